// Another process holding a database's write lock, for the tests and the bench that check what
// waits for it (issue 24, point 11). Plain JavaScript: it runs under any Node without a loader.
//
//   node lock-holder.mjs <db-path> [hold-ms]
//
// Takes the write lock (BEGIN IMMEDIATE), prints `locked`, and holds it until a line arrives on
// stdin (without `hold-ms`) or `hold-ms` has passed, then rolls back (nothing changes), prints `released` and exits.
import { createRequire } from 'node:module';

const [path, holdMs] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: lock-holder.mjs <db-path> [hold-ms]\n');
  process.exit(2);
}
// libsql is CommonJS with `module.exports = Database`.
const Database = createRequire(import.meta.url)('libsql');
const db = new Database(path, { timeout: 10_000 });
db.prepare('BEGIN IMMEDIATE').run();
process.stdout.write('locked\n');

function release() {
  db.prepare('ROLLBACK').run();
  db.close();
  process.stdout.write('released\n');
  process.exit(0);
}
if (holdMs !== undefined) setTimeout(release, Number(holdMs));
else {
  // The parent's word, or the parent gone (stdin closed): never hold the lock for an orphan.
  process.stdin.once('data', release);
  process.stdin.once('end', release);
}
