/**
 * The upgrade to confirmed shares (migration 017, SPEC §6c): what sign-up claimed, or an account
 * received at once when the share was made, was never confirmed by the owner, so it waits again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@libsql/client';
import { applyMigrations, openDatabase } from '@oh/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addOwner } from '../alone.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { listVisibleDocuments } from './documents.ts';

const at = (iso: string) => new Date(iso);

let dir: string;
let db: Client;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sponge-shares-'));
  db = await openDatabase({ url: pathToFileURL(join(dir, 'app.db')).href });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration 017_share_confirmation', () => {
  it('turns shares received through an email address back into waiting; shares by id stay', async () => {
    const { namespace, migrations } = LIBRARY_ALONE;
    const index = migrations.findIndex((m) => 'name' in m && m.name === '017_share_confirmation');
    expect(index).toBeGreaterThan(0);
    await applyMigrations(db, namespace, migrations.slice(0, index));

    const t0 = at('2026-01-01T00:00:00.000Z');
    await addOwner(db, { id: 'u-ada', name: 'Ada', email: 'ada@example.org' }, t0);
    await addOwner(db, { id: 'u-early', name: 'Early', email: 'early@example.org' }, t0);
    await addOwner(db, { id: 'u-rosa', name: 'Rosa', email: 'rosa@example.org' }, t0);
    // A row as the schema before 017 holds it (insertDocument writes today's columns).
    await db.execute({
      sql: `INSERT INTO documents (id, owner_id, title, text, characters, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      args: ['doc', 'u-ada', 'Reef', 'x', 1, t0.toISOString()],
    });
    // Before the upgrade: a share to an existing account (granted at once), one to an address
    // that a later sign-up claimed, and one by id, older than an email share to the same person.
    const t1 = '2026-01-02T00:00:00.000Z';
    const t2 = '2026-01-03T00:00:00.000Z';
    await db.batch([
      { sql: 'INSERT INTO shares VALUES (?, ?, ?)', args: ['doc', 'u-rosa', t0.toISOString()] },
      { sql: 'INSERT INTO email_shares VALUES (?, ?, ?)', args: ['doc', 'rosa@example.org', t1] },
      { sql: 'INSERT INTO email_shares VALUES (?, ?, ?)', args: ['doc', 'early@example.org', t1] },
      { sql: 'INSERT INTO shares VALUES (?, ?, ?)', args: ['doc', 'u-early', t1] },
      { sql: 'INSERT INTO email_shares VALUES (?, ?, ?)', args: ['doc', 'late@example.org', t1] },
    ]);
    await addOwner(db, { id: 'u-late', name: 'Late', email: 'late@example.org' }, at(t2));
    await db.execute({ sql: 'INSERT INTO shares VALUES (?, ?, ?)', args: ['doc', 'u-late', t2] });

    await applyMigrations(db, namespace, migrations);

    const sees = async (user: string) => (await listVisibleDocuments(db, user)).map((d) => d.id);
    expect(await sees('u-early')).toEqual([]);
    expect(await sees('u-late')).toEqual([]);
    expect(await sees('u-rosa')).toEqual(['doc']);
    const waiting = await db.execute('SELECT email, granted_to FROM email_shares ORDER BY email');
    expect(waiting.rows.map((r) => [r.email, r.granted_to])).toEqual([
      ['early@example.org', null],
      ['late@example.org', null],
      ['rosa@example.org', null],
    ]);
  });
});
