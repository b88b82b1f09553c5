/**
 * Child process for crash.test.ts: writes numbered remember calls to one session as fast as it
 * can and prints `ack <version>` after each acknowledged call, until it is killed.
 *
 *   node --import tsx src/testing/crash-writer.ts <db-path> <session-id>
 *
 * It loads its modules at once but opens the database only when a line arrives on stdin, so the
 * parent can start the next writer (paying Node and tsx start-up) while it checks the last crash.
 *
 * Call k (from version k-1 to k) does four things at once, so a half-applied call shows:
 * add `step:v<k>`, add `pair:v<k>`, remove `pair:v<k-1>` and replace `counter:main` (add at k=1).
 * After call k the session holds step:v1..v<k>, exactly one pair note (pair:v<k>) and a counter
 * reading k.
 */
import { changesFor } from './call-changes.ts';
import { fileUrl, openStore } from './fixtures.ts';

const [dbPath, sessionId] = process.argv.slice(2);
if (!dbPath || !sessionId) {
  process.stderr.write('usage: crash-writer.ts <db-path> <session-id>\n');
  process.exit(2);
}

await new Promise<void>((resolve) => {
  process.stdin.once('data', () => resolve());
  process.stdin.once('end', () => process.exit(0));
});
process.stdin.pause();
const store = await openStore(fileUrl(dbPath));
const ctx = { sessionId, author: 'agent:crash-writer' };
const session = await store.getSession(sessionId);
if (!session) throw new Error(`no session ${sessionId}`);
let version = session.version;
process.stdout.write(`ready ${version}\n`);
for (;;) {
  const k = version + 1;
  const result = await store.remember(ctx, {
    basedOn: version,
    requestId: `crash-${k}`,
    changes: changesFor(k),
  });
  version = result.version;
  // Pipes are written synchronously on Linux: once this returns, the parent can read the line.
  process.stdout.write(`ack ${version}\n`);
}
