/**
 * The operator's `verify` command against the databases of a real running API (demo data plus
 * sessions written through the store): a healthy database passes, damage made with raw SQL on
 * the database is found and named, `--repair` rebuilds what is derived. Once as the real built
 * command (`node dist/bin/verify-main.js`) in a child process.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { runVerify } from './verify-command.ts';

const apiDir = join(import.meta.dirname, '../..');
const builtCommand = join(apiDir, 'dist/bin/verify-main.js');

interface Outcome {
  code: number;
  out: string;
  err: string;
}

function envOf(s: TestServer): Record<string, string> {
  return {
    DATA_DIR: s.dir,
    MEMORY_DATABASE_URL: s.memoryUrl,
    APP_DATABASE_URL: s.appUrl,
    LOG_LEVEL: 'silent',
  };
}

function collect(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

async function verify(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  const out = collect();
  const err = collect();
  const code = await runVerify(args, { env, cwd: apiDir, out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

/** The built command in its own process. Asynchronous: the API under test runs in this process. */
async function verifyCommand(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  if (!existsSync(builtCommand))
    throw new Error(`${builtCommand} is missing: run pnpm --filter @sponge/api build first`);
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [builtCommand, ...args], {
      cwd: apiDir,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      out: failed.stdout ?? '',
      err: failed.stderr ?? '',
    };
  }
}

describe('pnpm --filter @sponge/api verify', () => {
  let s: TestServer;
  let env: Record<string, string>;
  let demo = '';
  let mine = '';
  let forgotten = '';

  beforeAll(async () => {
    s = await startTestServer();
    env = envOf(s);
    const store = s.app.store;
    demo = (await store.listSessions(REEF_DOCUMENT_ID))[0]!.id;
    const open = (runId: string) =>
      store.openSession({ ownerId: 'user-ada', documentId: REEF_DOCUMENT_ID, runId, pinnedRevision: 0 });
    mine = (await open('run-verify-1')).id;
    const agent = { sessionId: mine, author: 'agent:run-verify-1' };
    await store.remember(agent, {
      basedOn: 0,
      requestId: 'v1',
      changes: [
        { op: 'add', name: 'lead:a', text: 'first lead', data: { pages: [3, 4] } },
        { op: 'add', name: 'lead:b', text: 'second lead', links: [{ rel: 'supports', to: 'lead:a' }] },
      ],
    });
    await store.remember(agent, {
      basedOn: 1,
      requestId: 'v2',
      changes: [{ op: 'replace', name: 'lead:a', text: 'first lead, checked' }],
    });
    forgotten = (await open('run-verify-2')).id;
    await store.remember(
      { sessionId: forgotten, author: 'agent:run-verify-2' },
      { basedOn: 0, requestId: 'f1', changes: [{ op: 'add', name: 'lead:gone', text: 'x' }] },
    );
    await store.forget(forgotten);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('passes a healthy database with exit 0 and a line per session', async () => {
    const r = await verify(env);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(
      new RegExp(
        `^session ${mine} \\(open, version 2\\): 2 log entries, 2 notes(, \\d+ recall vectors)?: ok$`,
        'm',
      ),
    );
    expect(r.out).toMatch(
      new RegExp(
        `^session ${demo} \\(open, version 2\\): 2 log entries, 4 notes(, \\d+ recall vectors)?: ok$`,
        'm',
      ),
    );
    expect(r.out).toMatch(
      new RegExp(`^session ${forgotten} \\(forgotten, version 1\\): content-free: ok$`, 'm'),
    );
    expect(r.out).toMatch(/^reviewed knowledge: 4 records, 4 decisions: ok$/m);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('OK: 3 sessions verified; reviewed knowledge ok');
  });

  it('runs as the built command: report on stdout, pino progress on stderr', async () => {
    const r = await verifyCommand({ ...env, LOG_LEVEL: 'info' }, '--', '--session', mine);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`^session ${mine} \\(open, version 2\\)`, 'm'));
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('OK: 1 session verified');
    const logs = r.err
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; service: string });
    expect(logs.map((l) => l.msg)).toEqual(['verify started', 'verify done']);
    expect(logs[0]?.service).toBe('sponge-verify');
  });

  it('finds a note text tampered on the database: exit 1, session and note named', async () => {
    const raw = createClient({ url: s.memoryUrl });
    try {
      await raw.execute({
        sql: `UPDATE notes SET text = 'rewritten behind the log' WHERE session_id = ? AND name = 'lead:a'`,
        args: [mine],
      });
    } finally {
      raw.close();
    }
    const r = await verify(env);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      new RegExp(
        `^session ${mine} \\(open, version 2\\): 2 log entries, 2 notes.*: MISMATCH \\(1 finding\\)$`,
        'm',
      ),
    );
    expect(r.out).toMatch(
      /^ {2}notes: lead:a: its content does not match the log \(replayed [0-9a-f]{4}\.\.\., stored content [0-9a-f]{4}\.\.\.\) \[repairable\]$/m,
    );
    expect(r.out).toMatch(new RegExp(`^session ${demo} .*: ok$`, 'm'));
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(
      'FAILED: 1 of 3 sessions with mismatches (1 with repairable findings: run verify --repair); reviewed knowledge ok',
    );
  });

  it('finds a deleted link row; --repair rebuilds it (and the note) from the log, then verify passes', async () => {
    const raw = createClient({ url: s.memoryUrl });
    try {
      const gone = await raw.execute({
        sql: `DELETE FROM link_index WHERE session_id = ? AND from_name = 'lead:b'`,
        args: [mine],
      });
      expect(gone.rowsAffected).toBe(1);
    } finally {
      raw.close();
    }
    const found = await verify(env, '--session', mine);
    expect(found.code).toBe(1);
    expect(found.out).toMatch(
      /^ {2}link_index: 1 link row is missing from link_index: lead:b supports lead:a \(version 1, change 1, link 0\) \[repairable\]$/m,
    );

    const repaired = await verify(env, '--repair');
    expect(repaired.code, repaired.out).toBe(0);
    // What was found, what was rebuilt, and the verdict after the repair.
    expect(repaired.out).toMatch(
      new RegExp(
        `^session ${mine} \\(open, version 2\\): 2 log entries, 2 notes.*: MISMATCH \\(2 findings\\)\n {2}notes: lead:a: .*\n {2}link_index: .*\n(.*\n)*? {2}repair: rebuilt notes 1, link_index 1.*\n {2}after repair: 2 log entries, 2 notes.*: ok$`,
        'm',
      ),
    );
    expect(repaired.out.trimEnd().split('\n').at(-1)).toMatch(
      /^OK: 3 sessions verified, [1-9]\d* repaired; reviewed knowledge ok$/,
    );

    // The real command agrees, and the API reads the note as the log has it again.
    const again = await verifyCommand(env);
    expect(again.code, again.out + again.err).toBe(0);
    expect((await s.app.store.notes(mine)).find((n) => n.name === 'lead:a')?.text).toBe(
      'first lead, checked',
    );
  });

  it('finds a deleted keyword row and vector row of the library; --repair indexes them again', async () => {
    await s.app.library.indexer.idle();
    const clean = await verify(env);
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).toMatch(/^library search indexes: [1-9]\d* ready documents, [1-9]\d* chunks: ok$/m);
    const raw = createClient({ url: s.appUrl });
    try {
      await raw.execute({
        sql: `DELETE FROM document_keywords WHERE rowid IN
                (SELECT id FROM document_chunk_spans WHERE document_id = ? AND chunk = 0)`,
        args: [REEF_DOCUMENT_ID],
      });
      const gone = await raw.execute({
        sql: 'DELETE FROM document_chunks WHERE document_id = ? AND chunk = 1',
        args: [REEF_DOCUMENT_ID],
      });
      expect(gone.rowsAffected).toBe(1);
    } finally {
      raw.close();
    }
    const found = await verify(env);
    expect(found.code).toBe(1);
    expect(found.out).toMatch(
      new RegExp(
        `^ {2}document_chunks: document ${REEF_DOCUMENT_ID}: (\\d+) of its (\\d+) chunks are in the vector index \\[repairable\\]$`,
        'm',
      ),
    );
    expect(found.out).toMatch(
      new RegExp(
        `^ {2}document_keywords: document ${REEF_DOCUMENT_ID}: \\d+ of its \\d+ chunks are in the keyword index \\[repairable\\]$`,
        'm',
      ),
    );
    expect(found.out.trimEnd().split('\n').at(-1)).toMatch(
      /the library's search indexes have 2 mismatches \(run verify --repair\)$/,
    );

    const repaired = await verify(env, '--repair');
    expect(repaired.code, repaired.out).toBe(0);
    expect(repaired.out).toMatch(/^ {2}repair: 1 document indexed again\n {2}after repair: .*: ok$/m);
    expect((await verify(env)).code).toBe(0);
  });

  it('refuses what it cannot verify with exit 2: bad flags, an unknown session, no database', async () => {
    const bad = await verify(env, '--sessoin', mine);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/Unknown option '--sessoin'[\s\S]*usage: pnpm --filter @sponge\/api verify/);
    const help = await verify(env, '--help');
    expect([help.code, help.out]).toEqual([0, expect.stringContaining('--repair')]);
    const unknown = await verify(env, '--session', 'no-such-session');
    expect([unknown.code, unknown.err]).toEqual([2, 'no session no-such-session in the memory database\n']);

    const empty = mkdtempSync(join(tmpdir(), 'sponge-verify-empty-'));
    try {
      const none = await verify({ DATA_DIR: empty, LOG_LEVEL: 'silent' });
      expect(none.code).toBe(2);
      expect(none.err).toMatch(/^no memory database at .*memory\.db/);
      // Verify never creates one.
      expect(existsSync(join(empty, 'memory.db'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
