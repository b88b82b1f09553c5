/**
 * The runtime against the real API: `startServer` in-process on temp libSQL files with the demo
 * seed. Each test accepts its own chat run, so each has a fresh session at version 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTools } from './memory-tools.ts';
import type { MemoryToolsEvent, MemoryToolsOptions } from './memory-tools.ts';
import { MemoryToolError, isMemoryToolError } from './errors.ts';
import { REEF_NOTES, runReefScenario } from './reef.ts';
import { startRealApi } from './testing/real-api.ts';
import type { RealApi } from './testing/real-api.ts';

let api: RealApi;
beforeAll(async () => {
  api = await startRealApi();
});
afterAll(async () => {
  await api?.close();
});

async function freshTools(extra: Partial<MemoryToolsOptions> = {}) {
  const run = await api.acceptRun();
  const events: MemoryToolsEvent[] = [];
  const tools = createMemoryTools({
    url: api.url,
    runToken: run.runToken,
    backoffMs: 10,
    log: (e) => events.push(e),
    ...extra,
  });
  return { run, tools, events };
}

const note = (name: string, text: string) => ({ op: 'add' as const, name, text });

describe('load and remember', () => {
  it('loads the session, the server tools and the preload at version 0', async () => {
    const { run, tools } = await freshTools();
    const loaded = await tools.load();
    expect(loaded.session).toMatchObject({ id: run.sessionId, version: 0 });
    expect(Date.parse(loaded.session.expiresAt) - Date.parse(loaded.session.startedAt)).toBe(86_400_000);
    expect(loaded.tools.map((t) => t.name).sort()).toEqual([
      'explain',
      'query',
      'read',
      'recall',
      'remember',
    ]);
    expect(loaded.preload.truncated).toBe(false);
    // A fresh session has no notes; the preload holds only reviewed knowledge in view.
    expect(loaded.preload.rows.every((r) => r.source === 'reviewed')).toBe(true);
    expect(JSON.stringify(loaded.preload.rows)).not.toContain('"text"');
    expect(tools.state).toMatchObject({ version: 0, closed: null });
    expect(tools.state.serverTools).toHaveLength(5);
  });

  it('remembers through a model-shaped call and tracks the version', async () => {
    const { tools } = await freshTools();
    await tools.load();
    const first = await tools.execute('remember', {
      changes: [note(REEF_NOTES.lead, 'methods section missing')],
    });
    expect(first).toMatchObject({
      version: 1,
      replayed: false,
      applied: [{ op: 'add', name: REEF_NOTES.lead }],
    });
    expect(first.applied[0]!.digest).toMatch(/^[0-9a-f]{64}$/);
    const second = await tools.execute('remember', {
      changes: [
        note(REEF_NOTES.ruledOut, 'dataset ends 2014'),
        {
          op: 'add',
          name: REEF_NOTES.todo,
          text: 'check figure 3',
          links: [{ rel: 'depends_on', to: REEF_NOTES.lead }],
        },
      ],
    });
    expect(second.version).toBe(2);
    expect(tools.state.version).toBe(2);
  });

  it('loads by itself when the first call is a remember', async () => {
    const { tools } = await freshTools();
    expect(tools.state.version).toBeNull();
    await expect(tools.remember({ changes: [note('lead:auto-load', 'x')] })).resolves.toMatchObject({
      version: 1,
    });
    expect(tools.state.session).not.toBeNull();
  });
});

describe('stale_version', () => {
  it('recovers through changed_since when another step moved memory', async () => {
    const { run, tools: a, events } = await freshTools();
    await a.load();
    await a.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] }); // v1, a knows it

    // Another step of the same run (a second runtime on the same token) moves memory on twice.
    const b = createMemoryTools({ url: api.url, runToken: run.runToken });
    await b.load();
    await b.remember({ changes: [note(REEF_NOTES.ruledOut, 'dataset ends 2014')] }); // v2
    await b.remember({
      changes: [{ op: 'replace', name: REEF_NOTES.lead, text: 'methods section missing; asked the authors' }],
    }); // v3
    expect(a.state.version).toBe(1);

    const result = await a.remember({
      changes: [note(REEF_NOTES.todo, 'check figure 3 against the second paper')],
    });
    expect(result).toMatchObject({ version: 4, replayed: false });
    expect(a.state.version).toBe(4);

    const stale = events.filter((e) => e.type === 'stale');
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ basedOn: 1, currentVersion: 3 });
    expect(a.state.lastMoved.map((r) => r.name).sort()).toEqual(
      [REEF_NOTES.lead, REEF_NOTES.ruledOut].sort(),
    );
    // The refused attempt and the re-based one: two remember calls with different request ids.
    const calls = events.filter((e) => e.type === 'call' && e.tool === 'remember');
    expect(calls).toHaveLength(3); // the v1 write, the stale one, the re-based one
    expect(new Set(calls.map((e) => (e as { requestId?: string }).requestId)).size).toBe(3);
  });

  it('does not overwrite a note another step changed; the error names it', async () => {
    const { run, tools: a } = await freshTools();
    await a.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] }); // v1
    const b = createMemoryTools({ url: api.url, runToken: run.runToken });
    await b.remember({
      changes: [{ op: 'replace', name: REEF_NOTES.lead, text: 'the supplement has the methods' }],
    }); // v2

    const error = await a
      .remember({
        changes: [{ op: 'replace', name: REEF_NOTES.lead, text: 'methods section still missing' }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryToolError);
    expect(error).toMatchObject({ reason: 'stale_version', code: 'CONFLICT', currentVersion: 2 });
    expect((error as MemoryToolError).moved?.map((r) => r.name)).toEqual([REEF_NOTES.lead]);
    // Nothing was written over the other step's change.
    const read = await b.read({ name: REEF_NOTES.lead });
    expect(read.text).toBe('the supplement has the methods');
  });

  it('surfaces name_exists when the re-based add clashes with the other step', async () => {
    const { run, tools: a } = await freshTools();
    await a.load();
    const b = createMemoryTools({ url: api.url, runToken: run.runToken });
    await b.remember({ changes: [note(REEF_NOTES.todo, 'check figure 3')] });
    const error = await a
      .remember({ changes: [note(REEF_NOTES.todo, 'check figure 3 too')] })
      .catch((e: unknown) => e);
    expect(isMemoryToolError(error, 'name_exists')).toBe(true);
    expect(error).toMatchObject({ code: 'CONFLICT' });
    expect(a.state.version).toBe(1);
  });
});

const urlOf = (input: string | URL | Request) => (input instanceof Request ? input.url : input.toString());

describe('a retried remember writes once', () => {
  it('sends the same request id after a lost response and gets the replayed result', async () => {
    let dropped = 0;
    // The server applies the first remember; its answer is lost on the way back, as after a timeout.
    const losingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (urlOf(input).includes('/agent.remember') && dropped === 0) {
        dropped += 1;
        await response.text();
        throw new DOMException('the answer was lost on the way back', 'TimeoutError');
      }
      return response;
    };
    const { run, tools, events } = await freshTools({ fetch: losingFetch });
    await tools.load();
    const result = await tools.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] });
    expect(result).toMatchObject({ version: 1, replayed: true });
    const retried = events.filter((e) => e.type === 'retry');
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ tool: 'remember', reason: 'timeout' });
    const ids = events
      .filter((e) => e.type === 'call' && e.tool === 'remember')
      .map((e) => (e as { requestId?: string }).requestId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(tools.state.version).toBe(1);

    // Seen from another runtime: one change, one version.
    const other = createMemoryTools({ url: api.url, runToken: run.runToken });
    expect((await other.load()).session.version).toBe(1);
    const changes = await other.changedSince(0);
    expect(changes.rows.map((r) => r.name)).toEqual([REEF_NOTES.lead]);
  });

  it('answers replayed: true on the retry path, version +1 only', async () => {
    let armed = false;
    const losingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (armed && urlOf(input).includes('/agent.remember')) {
        armed = false;
        await response.text();
        throw new DOMException('the answer was lost on the way back', 'TimeoutError');
      }
      return response;
    };
    const { tools } = await freshTools({ fetch: losingFetch });
    await tools.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] });
    const before = tools.state.version!;
    armed = true;
    const result = await tools.remember({ changes: [note(REEF_NOTES.ruledOut, 'dataset ends 2014')] });
    expect(result.replayed).toBe(true);
    expect(result.version).toBe(before + 1);
    expect(tools.state.version).toBe(before + 1);
    const answer = await tools.query({ question: 'current_notes' });
    expect(answer.version).toBe(before + 1);
    expect(answer.rows.filter((r) => r.source === 'note').map((r) => r.name)).toEqual([
      REEF_NOTES.ruledOut,
      REEF_NOTES.lead,
    ]);
  });
});

describe('query, explain and read', () => {
  it('explains a row of an answer and reads a note checked against its digest', async () => {
    const { tools } = await freshTools();
    await tools.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] });
    await tools.remember({
      changes: [
        {
          op: 'add',
          name: REEF_NOTES.todo,
          text: 'check figure 3',
          links: [{ rel: 'depends_on', to: REEF_NOTES.lead }],
        },
      ],
    });
    const answer = await tools.execute('query', { question: 'current_notes' });
    expect(answer.version).toBe(2);
    expect(answer.rows[0]).toMatchObject({ row: 0, source: 'note', name: REEF_NOTES.todo });

    const why = await tools.execute('explain', { row: 0 });
    expect(why).toMatchObject({
      row: 0,
      name: REEF_NOTES.todo,
      source: 'note',
      question: 'current_notes',
      basis: { version: 2 },
    });
    expect(why.reason.length).toBeGreaterThan(0);
    // By answerId as well, and the raw token call gives the same answer.
    expect(await tools.execute('explain', { row: 0, answerId: answer.answerId })).toEqual(why);
    expect(await tools.explain({ token: answer.explainToken, row: 0 })).toEqual(why);

    const related = await tools.execute('query', { question: 'related_to', name: REEF_NOTES.lead });
    expect(related.rows.map((r) => r.name)).toContain(REEF_NOTES.todo);

    const leadRow = answer.rows.find((r) => r.name === REEF_NOTES.lead)!;
    const read = await tools.execute('read', { name: REEF_NOTES.lead, digest: leadRow.digest! });
    expect(read).toMatchObject({
      source: 'note',
      name: REEF_NOTES.lead,
      text: 'methods section missing',
      digest: leadRow.digest,
    });
    expect(read.author).toMatch(/^agent:/);

    await tools.remember({
      changes: [{ op: 'replace', name: REEF_NOTES.lead, text: 'methods in the supplement' }],
    });
    await expect(
      tools.execute('read', { name: REEF_NOTES.lead, digest: leadRow.digest! }),
    ).rejects.toMatchObject({
      reason: 'stale_digest',
      code: 'CONFLICT',
    });
    await expect(tools.execute('read', { name: 'lead:never-written' })).rejects.toMatchObject({
      reason: 'no_such_note',
      code: 'NOT_FOUND',
    });
  });

  it('passes server-side refusals through as MemoryToolError', async () => {
    const { tools } = await freshTools();
    await expect(tools.explain({ token: 'not-a-token', row: 0 })).rejects.toMatchObject({
      reason: 'explain_token_invalid',
      code: 'BAD_REQUEST',
    });
    // basedOn from the caller, far in the future: the server refuses and the runtime re-bases.
    await expect(tools.remember({ basedOn: 99, changes: [note('lead:x', 'x')] })).resolves.toMatchObject({
      version: 1,
    });
  });
});

describe('the reef scenario', () => {
  it('plays through against the real API and prints each call', async () => {
    const { tools } = await freshTools();
    const lines: string[] = [];
    const result = await runReefScenario(tools, { log: (l) => lines.push(l) });
    expect(result.remembered.map((r) => r.version)).toEqual([1, 2, 3]);
    expect(result.notes.rows.filter((r) => r.source === 'note').map((r) => r.name)).toEqual([
      REEF_NOTES.todo,
      REEF_NOTES.ruledOut,
      REEF_NOTES.lead,
    ]);
    expect(result.explained).toMatchObject({ row: 0, name: REEF_NOTES.todo });
    expect(result.read.text).toBe('methods section missing');
    expect(result.replaced).toMatchObject({
      version: 4,
      applied: [{ op: 'replace', name: REEF_NOTES.todo }],
    });
    expect(['shadow', 'live', 'off']).toContain(result.recalled.mode);
    const transcript = lines.join('\n');
    expect(transcript).toContain('● remember add lead:reef-survey-2016 "methods section missing"');
    expect(transcript).toContain('● explain row 0');
    expect(transcript).toMatch(/\[0\] note\s+todo:check-figure-3\s+[0-9a-f]{4}\.\.\./);
  });

  it('a second play on the same run replaces instead of failing', async () => {
    const { run, tools } = await freshTools();
    await runReefScenario(tools);
    const again = await runReefScenario(createMemoryTools({ url: api.url, runToken: run.runToken }));
    expect(again.remembered.map((r) => r.applied[0]!.op)).toEqual(['replace', 'replace', 'replace']);
    expect(again.replaced.version).toBe(8);
  });
});

describe('closed sessions', () => {
  it('answers session_closed on every tool after the owner forgets', async () => {
    const { run, tools } = await freshTools();
    await tools.remember({ changes: [note(REEF_NOTES.lead, 'methods section missing')] });
    await expect(api.owner.memory.forget.mutate({ sessionId: run.sessionId! })).resolves.toMatchObject({
      state: 'forgotten',
    });

    await expect(tools.remember({ changes: [note('lead:late', 'a late write')] })).rejects.toMatchObject({
      reason: 'session_closed',
      code: 'PRECONDITION_FAILED',
    });
    expect(tools.state.closed).toBe('session_closed');
    for (const call of [
      () => tools.load(),
      () => tools.execute('query', { question: 'current_notes' }),
      () => tools.execute('read', { name: REEF_NOTES.lead }),
      () => tools.execute('recall', { text: 'reef' }),
    ]) {
      await expect(call()).rejects.toMatchObject({ reason: 'session_closed' });
    }
  });

  it('answers memory_off on a staged run', async () => {
    const run = await api.acceptRun('staged');
    expect(run.sessionId).toBeNull();
    const tools = createMemoryTools({ url: api.url, runToken: run.runToken });
    await expect(tools.load()).rejects.toMatchObject({ reason: 'memory_off', code: 'PRECONDITION_FAILED' });
    expect(tools.state.closed).toBe('memory_off');
  });

  it('a wrong token is unauthenticated and is not retried', async () => {
    const tools = createMemoryTools({ url: api.url, runToken: 'rt_not-a-real-token' });
    await expect(tools.load()).rejects.toMatchObject({
      reason: 'unauthenticated',
      code: 'UNAUTHORIZED',
      retryable: false,
    });
  });
});
