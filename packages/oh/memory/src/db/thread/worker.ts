/**
 * The database thread: one LocalClient (one connection, cached statements) serving the main
 * thread's requests in arrival order. Every SQLite call, including each commit's WAL sync, runs
 * here, so the API's event loop keeps parsing and answering HTTP while a commit is on disk.
 *
 * Waiting for another process's lock happens here too, but not in SQLite's busy handler: the
 * connection has no busy timeout, and a call that finds the lock taken tells the main thread so
 * (`waiting`), then is tried again every millisecond for up to `timeoutMs`. The notice lets the
 * main thread answer reads on its own connection meanwhile instead of queueing them behind the
 * wait (ShortcutClient). Retrying a whole call is safe: a call that fails on a lock has changed
 * nothing (LocalClient rolls its transaction back on any error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isLockError } from '../locks.ts';
import { LocalClient } from '../local-client.ts';
import { toWireError, toWireResult } from './wire.ts';
import type { Reply, Request, WireOutcome } from './wire.ts';

const port = parentPort!;
const { url, timeoutMs } = workerData as { url: string; timeoutMs: number };
/** What Atomics.wait sleeps on between tries: the thread has nothing else to do meanwhile. */
const nap = new Int32Array(new SharedArrayBuffer(4));

let client: LocalClient;
try {
  client = new LocalClient(url, { timeoutMs: 0 });
  port.postMessage({ id: 0, ok: true, value: null } satisfies Reply);
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: toWireError(error) } satisfies Reply);
  process.exit(0);
}

async function handle(req: Request): Promise<unknown> {
  switch (req.op) {
    case 'execute':
      return toWireResult(await client.execute(req.stmt));
    case 'batch':
      return (await client.batch(req.stmts, req.mode)).map(toWireResult);
    case 'batchGroup':
      return (await client.batchGroup(req.batches)).map((o): WireOutcome =>
        o.ok
          ? { ok: true, results: o.results.map(toWireResult) }
          : { ok: false, error: toWireError(o.error) },
      );
    case 'close':
      client.close();
      return null;
  }
}

/** `handle`, tried again while another connection holds the lock, for up to `timeoutMs`. */
async function handleWhenUnlocked(req: Request): Promise<unknown> {
  const giveUpAt = performance.now() + timeoutMs;
  let told = false;
  for (;;) {
    try {
      return await handle(req);
    } catch (error) {
      if (!isLockError(error) || performance.now() >= giveUpAt) throw error;
      if (!told) port.postMessage({ id: req.id, waiting: true } satisfies Reply);
      told = true;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
}

port.on('message', (req: Request) => {
  handleWhenUnlocked(req).then(
    (value) => {
      port.postMessage({ id: req.id, ok: true, value } satisfies Reply);
      if (req.op === 'close') port.close();
    },
    (error: unknown) =>
      port.postMessage({ id: req.id, ok: false, error: toWireError(error) } satisfies Reply),
  );
});
