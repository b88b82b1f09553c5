/**
 * Child process for concurrency.test.ts: opens its own store on the database file, prints
 * `ready`, waits for a line on stdin (so the parent releases all children at once), then fires
 * `count` remember calls that are all based on the same version. Prints one JSON line: the
 * outcome of every call ('ok:<version>' or the refusal's reason[:currentVersion]).
 *
 *   node --import tsx src/testing/remember-race-child.ts <db-path> <session-id> <based-on> <tag> <count>
 */
import { fileUrl, openStore } from './fixtures.ts';

const [dbPath, sessionId, basedOn, tag, count] = process.argv.slice(2);
if (!dbPath || !sessionId || !basedOn || !tag || !count) {
  process.stderr.write('usage: remember-race-child.ts <db-path> <session-id> <based-on> <tag> <count>\n');
  process.exit(2);
}

const store = await openStore(fileUrl(dbPath));
try {
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
  const outcomes = await Promise.all(
    Array.from({ length: Number(count) }, (_, i) =>
      store
        .remember(
          { sessionId, author: `agent:${tag}` },
          {
            basedOn: Number(basedOn),
            requestId: `${tag}-${i}`,
            changes: [{ op: 'add', name: `lead:${tag}-${i}`, text: `from ${tag} call ${i}` }],
          },
        )
        .then(
          (r) => `ok:${r.version}`,
          (e: { reason?: string; currentVersion?: number }) =>
            `${e.reason ?? 'raw'}${e.currentVersion === undefined ? '' : `:${e.currentVersion}`}`,
        ),
    ),
  );
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
} finally {
  store.close();
}
