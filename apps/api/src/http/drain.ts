/**
 * Answering a request whose body will not be used (an upload over the limit, a refused
 * cross-site POST) so that the client can read the answer. Closing the socket while the client
 * is still sending makes its next write fail (EPIPE), and Node's fetch then reports that instead
 * of the answer: so the body is read and thrown away first, up to a bound, then the answer goes
 * out and the connection closes.
 *
 * @example
 * answerAfterDrain(req, res, () => answerError(res, error, path, 'mutation'));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface DrainBound {
  /** Bytes read and discarded at most; past them the answer goes out and the socket closes. */
  bytes: number;
  /** Time spent draining at most (a client trickling bytes). */
  ms: number;
}

export function answerAfterDrain(
  req: IncomingMessage,
  res: ServerResponse,
  answer: () => void,
  bound: DrainBound,
): void {
  let done = false;
  let seen = 0;
  const stop = () => {
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', finish);
    req.off('close', gone);
  };
  const finish = () => {
    if (done) return;
    stop();
    // The body is not reused on this connection either way; a client past the bound is cut off.
    res.setHeader('Connection', 'close');
    answer();
    if (!req.complete) res.once('finish', () => req.socket.destroy());
  };
  const gone = () => {
    if (!done) stop();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > bound.bytes) finish();
  };
  const timer = setTimeout(finish, bound.ms);
  if (req.complete) return finish();
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', gone);
  // An aborted body: the socket is gone, nothing to answer.
  req.once('error', gone);
}
