import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WEB_DIST, loadConfig, resolvePurgeKey, resolveTokenSecret } from './config.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({
      port: 3000,
      dataDir: '/srv/data',
      demo: true,
      sessionTtlSeconds: 86_400,
      explainTokenTtlSeconds: 600,
      purgeIntervalSeconds: 60,
      recallMode: 'shadow',
      acceptRunsUntil: null,
      memoryDbThread: 'worker',
      memoryDbSynchronous: 'FULL',
      memoryDb: { url: 'file:/srv/data/memory.db' },
      appDb: { url: 'file:/srv/data/sponge.db' },
      webDist: DEFAULT_WEB_DIST,
    });
    expect(DEFAULT_WEB_DIST).toMatch(/apps\/web\/dist$/);
  });

  it('reads every variable', () => {
    const c = loadConfig(
      {
        PORT: '8080',
        DATA_DIR: '/var/sponge',
        DEMO: 'false',
        SESSION_TTL_SECONDS: '60',
        EXPLAIN_TOKEN_TTL_SECONDS: '30',
        TOKEN_SECRET: 'x'.repeat(32),
        PURGE_INTERVAL_SECONDS: '5',
        RECALL_MODE: 'live',
        EMBEDDINGS_URL: 'https://embeddings.example/v1',
        EMBEDDINGS_MODEL: 'small',
        ACCEPT_RUNS_UNTIL: '2030-06-01T12:00:00Z',
        MEMORY_DATABASE_URL: 'libsql://memory.example',
        MEMORY_DATABASE_AUTH_TOKEN: 'm',
        APP_DATABASE_URL: 'libsql://app.example',
        APP_DATABASE_AUTH_TOKEN: 'a',
        WEB_DIST: 'web',
        MEMORY_DB_THREAD: 'main',
        MEMORY_DB_SYNCHRONOUS: 'NORMAL',
      },
      '/srv',
    );
    expect(c).toMatchObject({
      port: 8080,
      dataDir: '/var/sponge',
      demo: false,
      sessionTtlSeconds: 60,
      explainTokenTtlSeconds: 30,
      purgeIntervalSeconds: 5,
      recallMode: 'live',
      acceptRunsUntil: new Date('2030-06-01T12:00:00Z'),
      memoryDb: { url: 'libsql://memory.example', authToken: 'm' },
      appDb: { url: 'libsql://app.example', authToken: 'a' },
      webDist: '/srv/web',
      memoryDbThread: 'main',
      memoryDbSynchronous: 'NORMAL',
    });
  });

  it('DEMO defaults to off for a remote application database, and 0/false turn it off', () => {
    expect(loadConfig({ APP_DATABASE_URL: 'libsql://app.example' }).demo).toBe(false);
    expect(loadConfig({ APP_DATABASE_URL: 'libsql://app.example', DEMO: '1' }).demo).toBe(true);
    expect(loadConfig({ DEMO: '0' }).demo).toBe(false);
  });

  it('names every bad value in one message', () => {
    const p = problems({
      PORT: 'abc',
      DEMO: 'maybe',
      SESSION_TTL_SECONDS: '0',
      EXPLAIN_TOKEN_TTL_SECONDS: '601',
      TOKEN_SECRET: 'short',
      RECALL_MODE: 'loud',
      ACCEPT_RUNS_UNTIL: 'next tuesday',
      EMBEDDINGS_URL: 'ftp://x',
      MEMORY_DATABASE_URL: 'postgres://x',
      MEMORY_DB_THREAD: 'fork',
      MEMORY_DB_SYNCHRONOUS: 'OFF',
    });
    expect(p).toEqual([
      'PORT: expected an integer 0..65535, got "abc"',
      'DEMO: expected 1/true/on or 0/false/off, got "maybe"',
      'SESSION_TTL_SECONDS: expected an integer 1..31536000, got "0"',
      'EXPLAIN_TOKEN_TTL_SECONDS: expected an integer 1..600, got "601"',
      'TOKEN_SECRET: must be at least 32 characters',
      'RECALL_MODE: expected shadow, live or off',
      'EMBEDDINGS_URL: expected an http(s) URL of an OpenAI-compatible endpoint',
      'ACCEPT_RUNS_UNTIL: expected an ISO date or date-time, got "next tuesday"',
      'MEMORY_DB_THREAD: expected worker or main',
      'MEMORY_DB_SYNCHRONOUS: expected FULL or NORMAL',
      'MEMORY_DATABASE_URL: expected a file:, libsql:, http(s): or ws(s): URL',
    ]);
    try {
      loadConfig({ PORT: '-1' });
    } catch (e) {
      expect((e as Error).message).toBe(
        'Invalid configuration:\n  - PORT: expected an integer 0..65535, got "-1"',
      );
    }
  });

  it('refuses one database for both memory and the application', () => {
    expect(problems({ MEMORY_DATABASE_URL: 'libsql://same', APP_DATABASE_URL: 'libsql://same' })).toEqual([
      'MEMORY_DATABASE_URL: must differ from APP_DATABASE_URL (agent memory lives in its own database)',
    ]);
  });

  it('generates secrets once into DATA_DIR with mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-config-'));
    try {
      const c = loadConfig({ DATA_DIR: dir });
      const secret = resolveTokenSecret(c);
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(resolveTokenSecret(c)).toBe(secret);
      expect(statSync(join(dir, 'token-secret')).mode & 0o777).toBe(0o600);
      const key = resolvePurgeKey(c);
      expect(readFileSync(join(dir, 'purge.key'), 'utf8').trim()).toBe(key);
      expect(statSync(join(dir, 'purge.key')).mode & 0o777).toBe(0o600);
      expect(key).not.toBe(secret);
      expect(resolveTokenSecret(loadConfig({ DATA_DIR: dir, TOKEN_SECRET: 'y'.repeat(40) }))).toBe(
        'y'.repeat(40),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
