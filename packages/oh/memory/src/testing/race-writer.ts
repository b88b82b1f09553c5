/**
 * Child process for purge-races.test.ts: keeps writing to several sessions, round robin, with
 * the real clock, while the parent purges them. Prints one line per outcome:
 * `ack <session> <version>`, `closed <session>` (session_closed) or `error <session> <reason>`,
 * and `done` once every session has refused a write (the writer then stops).
 *
 *   node --import tsx src/testing/race-writer.ts <db-path> <marker> <session-id>...
 */
import { fileUrl, openStore, reasonOf } from './fixtures.ts';

const [dbPath, marker, ...sessionIds] = process.argv.slice(2);
if (!dbPath || !marker || sessionIds.length === 0) {
  process.stderr.write('usage: race-writer.ts <db-path> <marker> <session-id>...\n');
  process.exit(2);
}

const store = await openStore(fileUrl(dbPath));
const versions = new Map<string, number>();
for (const id of sessionIds) versions.set(id, (await store.getSession(id))?.version ?? 0);
const open = new Set(sessionIds);
process.stdout.write('ready\n');
let n = 0;
while (open.size > 0) {
  for (const id of [...open]) {
    const v = versions.get(id)!;
    n++;
    try {
      const r = await store.remember(
        { sessionId: id, author: 'agent:race-writer' },
        {
          basedOn: v,
          requestId: `race-${n}`,
          changes: [
            { op: 'add', name: `late:n${n}-a`, text: `${marker} late ${n} a` },
            { op: 'add', name: `late:n${n}-b`, text: `${marker} late ${n} b`, data: { marker } },
          ],
        },
      );
      versions.set(id, r.version);
      process.stdout.write(`ack ${id} ${r.version}\n`);
    } catch (err) {
      const reason = reasonOf(err) ?? String(err);
      if (reason === 'session_closed') {
        open.delete(id);
        process.stdout.write(`closed ${id}\n`);
      } else {
        process.stdout.write(`error ${id} ${reason}\n`);
        if (reason === 'stale_version') versions.set(id, (await store.getSession(id))?.version ?? v);
      }
    }
  }
}
store.close();
process.stdout.write('done\n');
