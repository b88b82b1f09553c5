/**
 * A bare Server-Sent Events reader over fetch, for tests and the bench: it opens a tRPC
 * subscription's stream as a browser's EventSource would and hands over its events one by one,
 * without the client's reconnecting, so a test decides when to drop and resume.
 *
 * @example
 * const stream = await openSse(`${url}/trpc/chat.events?input=…`, { authorization: `Bearer ${t}` });
 * const first = await stream.next(); // { event: undefined, id: 'm1.w0.r0.l0', data: {…} }
 * stream.close();
 */

export interface SseEvent {
  /** `connected`, `ping`, `return`, `serialized-error`, or undefined for a data event. */
  event: string | undefined;
  id: string | undefined;
  data: unknown;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The next event other than `connected` and `ping`; null once the stream ended. */
  next(timeoutMs?: number): Promise<SseEvent | null>;
  /** Every event received so far, pings included. */
  received: SseEvent[];
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const received: SseEvent[] = [];
  const queue: SseEvent[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  const push = (e: SseEvent | null) => {
    if (e) {
      received.push(e);
      if (e.event !== 'connected' && e.event !== 'ping') queue.push(e);
    } else ended = true;
    wake?.();
  };
  void (async () => {
    if (!res.body) return push(null);
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const e: SseEvent = { event: undefined, id: undefined, data: undefined };
          let data: string | undefined;
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') e.event = value;
            else if (field === 'id') e.id = value;
            else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
          }
          if (data === undefined && e.event === undefined && e.id === undefined) continue;
          e.data = data === undefined || data === '' ? undefined : JSON.parse(data);
          push(e);
        }
      }
    } catch {
      // aborted by close(), or the server went away
    }
    push(null);
  })();
  return {
    status: res.status,
    headers: res.headers,
    received,
    async next(timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0 && !ended) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
      return queue.shift() ?? null;
    },
    close: () => ac.abort(),
  };
}

/** The URL of a tRPC subscription's stream, with its input. */
export function subscriptionUrl(baseUrl: string, path: string, input: unknown): string {
  return `${baseUrl}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;
}
