/**
 * The database thread: one LocalClient (one connection, cached statements) serving the main
 * thread's requests in arrival order. Every SQLite call, including each commit's WAL sync, runs
 * here, so the API's event loop keeps parsing and answering HTTP while a commit is on disk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LocalClient } from '../local-client.ts';
import { toWireError, toWireResult } from './wire.ts';
import type { Reply, Request, WireOutcome } from './wire.ts';

const port = parentPort!;
const { url, timeoutMs } = workerData as { url: string; timeoutMs: number };

let client: LocalClient;
try {
  client = new LocalClient(url, { timeoutMs });
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

port.on('message', (req: Request) => {
  handle(req).then(
    (value) => {
      port.postMessage({ id: req.id, ok: true, value } satisfies Reply);
      if (req.op === 'close') port.close();
    },
    (error: unknown) =>
      port.postMessage({ id: req.id, ok: false, error: toWireError(error) } satisfies Reply),
  );
});
