/**
 * Exactly-once and no-lost-update under concurrency (SPEC §4): within one store, across several
 * connections, and across two Node processes on one database file.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const childScript = fileURLToPath(new URL('./testing/remember-race-child.ts', import.meta.url));

/** Starts a child; resolves `ready` once it opened its store, `done` with its outcomes. */
function startChild(args: string[]): { ready: Promise<void>; go: () => void; done: Promise<string[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, ...args], {
    cwd: packageDir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (d) => {
    out += String(d);
    if (out.includes('ready\n')) markReady();
  });
  child.stderr.on('data', (d) => (err += String(d)));
  const done = new Promise<string[]>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      markReady();
      if (code !== 0) reject(new Error(`child exited with ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as string[]);
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), done };
}

describe('concurrent remember', () => {
  it('16 concurrent calls on one session with the same basedOn: exactly 1 applied, 15 stale_version', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          outcome(
            h.store.remember(ctx, {
              basedOn: 0,
              requestId: `c-${i}`,
              changes: [{ op: 'add', name: `lead:c-${i}`, text: String(i) }],
            }),
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'stale_version')).toHaveLength(15);
      const session = await h.store.getSession(ctx.sessionId);
      expect(session?.version).toBe(1);
      expect(session?.noteCount).toBe(1);
      expect(await h.store.log(ctx.sessionId)).toHaveLength(1);
      expect((await h.store.verify(ctx.sessionId)).ok).toBe(true);
    }));

  it('the same race over 4 connections (each its own store): exactly 1 applied, the rest stale with currentVersion', () =>
    withHarness(async (h) => {
      const stores = [h.store, await h.openStore(), await h.openStore(), await h.openStore()];
      const { ctx } = await h.session();
      const errors = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          stores[i % 4]!.remember(ctx, {
            basedOn: 0,
            requestId: `m-${i}`,
            changes: [{ op: 'add', name: `lead:m-${i}`, text: String(i) }],
          }).then(
            () => null,
            (e: { reason: string; currentVersion?: number }) => e,
          ),
        ),
      );
      expect(errors.filter((e) => e === null)).toHaveLength(1);
      for (const e of errors.filter((x) => x !== null))
        expect(e).toMatchObject({ reason: 'stale_version', currentVersion: 1 });
      expect((await h.store.getSession(ctx.sessionId))?.version).toBe(1);
    }));

  it(
    'two Node processes racing on one database file: exactly 1 applied in total, no lost update',
    () =>
      withHarness(async (h) => {
        const { ctx } = await h.session();
        await h.store.remember(ctx, {
          basedOn: 0,
          requestId: 'seed',
          changes: [{ op: 'add', name: 'lead:seed', text: 'seed' }],
        });
        // Both children open their store first, then are released together: 8 calls each, all on version 1.
        const children = [
          startChild([h.memoryPath, ctx.sessionId, '1', 'pa', '8']),
          startChild([h.memoryPath, ctx.sessionId, '1', 'pb', '8']),
        ];
        await Promise.all(children.map((c) => c.ready));
        for (const c of children) c.go();
        const all = (await Promise.all(children.map((c) => c.done))).flat();
        expect(all.filter((o) => o === 'ok:2')).toHaveLength(1);
        expect(all.filter((o) => o === 'stale_version:2')).toHaveLength(15);
        const session = await h.store.getSession(ctx.sessionId);
        expect(session?.version).toBe(2);
        expect(session?.noteCount).toBe(2);
        const report = await h.store.verify(ctx.sessionId);
        expect(report).toMatchObject({ ok: true, logEntries: 2, notes: 2 });
      }),
    120_000,
  );

  it('a retry storm with one request id writes one change and answers every retry with the same result', () =>
    withHarness(async (h) => {
      const other = await h.openStore();
      const { ctx } = await h.session();
      const input = {
        basedOn: 0,
        requestId: 'storm',
        changes: [{ op: 'add' as const, name: 'lead:once', text: 'exactly once' }],
      };
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 ? other : h.store).remember(ctx, input)),
      );
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      const first = results.find((r) => !r.replayed)!;
      for (const r of results) expect({ ...r, replayed: false }).toEqual(first);
      expect(await h.store.log(ctx.sessionId)).toHaveLength(1);
      expect((await h.store.getSession(ctx.sessionId))?.version).toBe(1);
      expect((await h.store.notes(ctx.sessionId)).map((n) => n.name)).toEqual(['lead:once']);
    }));

  it('sequential writers on different connections never lose an update', () =>
    withHarness(async (h) => {
      const stores = [h.store, await h.openStore()];
      const { ctx } = await h.session();
      // Each writer reads the version, then writes based on it, retrying on stale_version.
      const writer = async (w: number) => {
        for (let k = 0; k < 15; k++) {
          for (;;) {
            const version = (await stores[w]!.getSession(ctx.sessionId))!.version;
            const result = await outcome(
              stores[w]!.remember(ctx, {
                basedOn: version,
                requestId: `w${w}-${k}`,
                changes: [{ op: 'add', name: `lead:w${w}-${k}`, text: 'x' }],
              }),
            );
            if (result === 'ok') break;
            expect(result).toBe('stale_version');
          }
        }
      };
      await Promise.all([writer(0), writer(1)]);
      const session = await h.store.getSession(ctx.sessionId);
      expect(session?.version).toBe(30);
      expect(session?.noteCount).toBe(30);
      expect((await h.store.verify(ctx.sessionId)).ok).toBe(true);
    }));
});
