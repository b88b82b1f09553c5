/**
 * File modes of the embedded data (SPEC §6c), on the real API process: a data folder made 0755
 * with 0644 databases (as `npm start` left them before) is 0700 with 0600 databases after start,
 * and the -wal/-shm files a write creates are 0600 too.
 */
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptChatRun, loginOwner, mutate, startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess } from '@sponge/testing/api';
import { databasePath } from './data-dir.ts';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('the data folder and database files', () => {
  const data = tempDataDir('modes');
  let api: ApiProcess | undefined;
  afterAll(async () => {
    await api?.stop();
    data.remove();
  });

  it('are owner-only after start, also when they existed with looser modes', async () => {
    // A first start makes the databases; then they are loosened as an older version left them.
    api = await startApi({ from: 'source', dataDir: data.dir });
    await api.stop();
    chmodSync(data.dir, 0o755);
    const databases = ['sponge.db', 'memory.db'].map((f) => join(data.dir, f));
    for (const db of databases) {
      chmodSync(db, 0o644);
      for (const side of ['-wal', '-shm']) if (existsSync(db + side)) chmodSync(db + side, 0o644);
    }

    api = await startApi({ from: 'source', dataDir: data.dir });
    // A write to each database, so each has its -wal while the API runs.
    const owner = await loginOwner(api.port, 0);
    const run = await acceptChatRun(api.port, owner);
    const remembered = await mutate(
      api.port,
      'agent.remember',
      { basedOn: 0, requestId: 'modes-1', changes: [{ op: 'add', name: 'lead:modes', text: 'x' }] },
      run.runToken,
    );
    expect(remembered.ok, remembered.text).toBe(true);

    expect(mode(data.dir)).toBe('700');
    for (const db of databases) {
      expect(mode(db), db).toBe('600');
      expect(existsSync(`${db}-wal`), `${db}-wal`).toBe(true);
      for (const side of ['-wal', '-shm'])
        if (existsSync(db + side)) expect(mode(db + side), db + side).toBe('600');
    }
    for (const secret of ['token-secret', 'purge.key'])
      if (existsSync(join(data.dir, secret))) expect(mode(join(data.dir, secret)), secret).toBe('600');
  }, 180_000);
});

describe('databasePath', () => {
  it('reads file: URLs and leaves servers alone', () => {
    expect(databasePath('file:/srv/data/sponge.db')).toBe('/srv/data/sponge.db');
    expect(databasePath('file:///srv/data/memory.db')).toBe('/srv/data/memory.db');
    expect(databasePath('libsql://db.example')).toBeNull();
    expect(databasePath(':memory:')).toBeNull();
  });
});
