/**
 * The purge worker for the purge figure, in its own process as in production
 * (`pnpm --filter @sponge/api purge`): passes until nothing is left, then reports. Like the
 * production worker it calls `purgeOnce()` with the package's defaults, unless a chunk size is
 * given.
 *
 *   node --import tsx src/purge-child.ts <db-path> [chunk-size]
 */
import { openBenchPurger } from './store.ts';

const [path, chunk] = process.argv.slice(2);
const purger = await openBenchPurger(path!);
const t0 = performance.now();
let sessions = 0;
let rows = 0;
let passes = 0;
for (;;) {
  const r = await purger.purgeOnce(chunk === undefined ? {} : { chunkSize: Number(chunk) });
  passes++;
  sessions += r.purgedSessions;
  rows += r.deletedRows;
  if (r.purgedSessions === 0 && r.deletedRows === 0) break;
}
const ms = performance.now() - t0;
purger.close();
process.stdout.write(`${JSON.stringify({ sessions, rows, passes, ms })}\n`);
