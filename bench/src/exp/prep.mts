import { createRequire } from 'node:module'; const Database = createRequire('/work/main/node_modules/.pnpm/@libsql+client@0.18.0/node_modules/@libsql/client/package.json')('libsql');
import { openStore, NOTE_TEXT } from '/work/main/bench/src/store.ts';
const path = `/tmp/exp/p${Date.now()}.db`;
const store = await openStore(path);
const s = await store.openSession({ ownerId: 'u', documentId: 'd', runId: 'r', pinnedRevision: 0 });
await store.remember({ sessionId: s.id, author: 'a' }, { basedOn: 0, requestId: 'x', changes: [{ op: 'add', name: 'lead:a', text: NOTE_TEXT }] });
store.close();
const db = new Database(path);
const sqls: Record<string, string> = {
  preread: `SELECT s.id, s.state, s.version FROM sessions AS s LEFT JOIN log AS l ON l.session_id = s.id AND l.request_id = ? WHERE s.id = ?`,
  log: `INSERT INTO log (session_id, version, request_id, request_hash, author, at, ops, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  changes: `INSERT INTO note_changes (session_id, version, seq, op, name, kind, text, data, links, digest, author, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  raw: `INSERT INTO purge_credential (id, key_hash, registered_at) VALUES (?, ?, ?)`,
  begin: 'BEGIN IMMEDIATE', commit: 'COMMIT',
};
for (const [k, sql] of Object.entries(sqls)) {
  for (let i = 0; i < 200; i++) db.prepare(sql);
  const t = performance.now();
  for (let i = 0; i < 2000; i++) db.prepare(sql);
  console.log(k, ((performance.now() - t) / 2000 * 1000).toFixed(1), 'µs per prepare');
}
