/**
 * The application database's migrations stay what was released (issue 38): the app's list, which
 * now takes the library's entries from @sponge/library, starts with exactly the migrations
 * released before (testing/released-migrations.json: names and statements, the derived ones as
 * built for 8 dimensions), and a database made by those is up to date under the list as it is,
 * with the same schema as a new one. A migration's id is its position, so an edit, a reorder or a
 * statement lost between the two lists fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { applyMigrations } from '@oh/memory';
import type { Migration } from '@oh/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { openAppDatabase } from './stores.ts';
import released from './testing/released-migrations.json' with { type: 'json' };
import { APP_MIGRATIONS } from './migrations.ts';

type Released = (typeof released.migrations)[number];

const SETTINGS = { dimensions: released.dimensions };

/** A released migration as the runner takes it again. */
function asMigration(m: Released): Migration {
  if ('derived' in m)
    return {
      name: m.name,
      derive: (settings) =>
        settings.dimensions === undefined && m.skippedWithoutSettings ? undefined : m.derived,
      drop: m.drop ?? [],
    };
  return { name: m.name, statements: m.statements };
}

/** A migration as released: what it builds for SETTINGS (derived) or its statements. */
function asReleased(m: Migration): unknown {
  if (!('name' in m)) return { statements: m };
  if ('derive' in m) {
    const built = m.derive(SETTINGS);
    return {
      name: m.name,
      derived: { shape: built?.shape, statements: built?.statements },
      drop: m.drop ?? [],
      skippedWithoutSettings: m.derive({}) === undefined,
    };
  }
  return { name: m.name, statements: m.statements };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function database(name: string): Promise<Client> {
  const dir = mkdtempSync(join(tmpdir(), `sponge-migrations-${name}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openAppDatabase({ url: `file:${join(dir, 'sponge.db')}` });
  cleanups.push(() => db.close());
  return db;
}

/** Every table, index and trigger as SQLite keeps it (the statement that made it, as written). */
async function schema(db: Client): Promise<string[]> {
  const rs = await db.execute(
    `SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
  );
  return rs.rows.map((r) => `${String(r.type)} ${String(r.name)}: ${String(r.sql)}`);
}

describe("the application database's migrations", () => {
  it('begin with exactly the released ones, in their order', () => {
    expect(released.migrations.length).toBe(22);
    expect(APP_MIGRATIONS.slice(0, released.migrations.length).map(asReleased)).toEqual(released.migrations);
  });

  it('find a database the released list made up to date, with the schema a new one gets', async () => {
    const old = await database('released');
    await applyMigrations(old, 'app', released.migrations.map(asMigration));
    await applyMigrations(old, 'app', released.migrations.map(asMigration), undefined, SETTINGS);
    const before = await schema(old);

    // As the API opens it: its list, then again with the adapter's dimension (prepareDocumentIndex).
    const fresh = APP_MIGRATIONS.length - released.migrations.length;
    const later = Array.from({ length: fresh }, (_, i) => released.migrations.length + i + 1);
    expect((await applyMigrations(old, 'app', APP_MIGRATIONS)).applied).toEqual(later);
    expect((await applyMigrations(old, 'app', APP_MIGRATIONS, undefined, SETTINGS)).applied).toEqual([]);
    if (fresh === 0) expect(await schema(old)).toEqual(before);

    const made = await database('new');
    await applyMigrations(made, 'app', APP_MIGRATIONS);
    await applyMigrations(made, 'app', APP_MIGRATIONS, undefined, SETTINGS);
    expect(await schema(made)).toEqual(await schema(old));
  });
});
