/**
 * The runtime's transport behaviour (timeouts, backoff, dropped connections, stale-version
 * re-basing) against a tiny local HTTP server that speaks tRPC's wire format, so each failure can
 * be staged exactly. The same flows against the real API are in api.test.ts.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kindOf } from '@sponge/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryTools } from './memory-tools.ts';
import type { MemoryToolsEvent, MemoryToolsOptions } from './memory-tools.ts';
import { MemoryToolError, isMemoryToolError } from './errors.ts';

interface Seen {
  path: string;
  input: unknown;
  authorization: string | undefined;
}
type Reply = { status?: number; body?: unknown; delayMs?: number; destroy?: boolean };
type Handler = (path: string, input: Record<string, unknown>, n: number) => Reply;

const ok = (data: unknown): Reply => ({ body: { result: { data } } });
const fail = (
  httpStatus: number,
  code: string,
  reason: string,
  extra: Record<string, unknown> = {},
): Reply => ({
  status: httpStatus,
  body: {
    error: { message: `${reason} (test)`, code: -32000, data: { code, httpStatus, reason, ...extra } },
  },
});

const session = (version: number) => ({
  id: 'ses_1',
  version,
  pinnedRevision: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
});
const loadAt = (version: number) =>
  ok({ session: session(version), tools: [], preload: { rows: [], truncated: false } });
const answer = (
  version: number,
  rows: unknown[],
  nextCursor: string | null = null,
  answerId = `ans_${version}`,
) =>
  ok({
    answerId,
    version,
    pinnedRevision: 1,
    rows,
    nextCursor,
    explainToken: `tok_${answerId}`,
    explainExpiresAt: '2026-01-01T00:10:00.000Z',
  });
const noteRow = (row: number, name: string, digest: string | null) => ({
  row,
  source: 'note',
  kind: kindOf(name),
  name,
  digest,
  conflicts: [],
});
const D = (c: string) => c.repeat(64);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      const closed = new Promise((r) => s.close(r));
      s.closeAllConnections(); // fetch keeps connections alive for seconds otherwise
      return closed;
    }),
  );
});

async function fakeApi(handler: Handler) {
  const seen: Seen[] = [];
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let input: unknown;
    if (req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      input = body ? JSON.parse(body) : undefined;
    } else {
      const raw = url.searchParams.get('input');
      input = raw === null ? undefined : JSON.parse(raw);
    }
    const path = url.pathname.replace(/^\/trpc\//, '');
    seen.push({ path, input, authorization: req.headers.authorization });
    const reply = handler(
      path,
      (input ?? {}) as Record<string, unknown>,
      seen.filter((s) => s.path === path).length,
    );
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (res.destroyed) return;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(reply.body));
  };
  const server = createServer((req, res) => void respond(req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

function toolsFor(url: string, extra: Partial<MemoryToolsOptions> = {}) {
  const events: MemoryToolsEvent[] = [];
  const tools = createMemoryTools({
    url,
    runToken: 'rt_test',
    // Generous by default: two test files share 2 cores, and a cold first request can be slow.
    timeoutMs: 5_000,
    backoffMs: 20,
    log: (e) => events.push(e),
    ...extra,
  });
  return { tools, events };
}

/** A timeout short enough to wait out, and a server delay well past it. */
const SHORT = 400;
const SLOW = 2_500;

const addLead = {
  changes: [{ op: 'add' as const, name: 'lead:reef-survey-2016', text: 'methods section missing' }],
};
const applied = (version: number) =>
  ok({ version, applied: [{ op: 'add', name: 'lead:reef-survey-2016', digest: D('a') }], replayed: false });

describe('transport', () => {
  it('sends the run token to /trpc and reads the preload', async () => {
    const api = await fakeApi((path) =>
      path === 'agent.load' ? loadAt(4) : fail(404, 'NOT_FOUND', 'not_found'),
    );
    const { tools } = toolsFor(api.url);
    const loaded = await tools.load();
    expect(loaded.session.version).toBe(4);
    expect(tools.state.version).toBe(4);
    expect(tools.state.session?.id).toBe('ses_1');
    expect(api.seen).toEqual([{ path: 'agent.load', input: undefined, authorization: 'Bearer rt_test' }]);
  });

  it('sends a timed-out remember again with the same request id, backing off', async () => {
    const api = await fakeApi((path, _input, n) => {
      if (path === 'agent.load') return loadAt(0);
      return n <= 2 ? { ...applied(1), delayMs: SLOW } : applied(1);
    });
    const { tools, events } = toolsFor(api.url, { timeoutMs: SHORT });
    const result = await tools.remember(addLead);
    expect(result.version).toBe(1);
    expect(tools.state.version).toBe(1);

    const sent = api.seen
      .filter((s) => s.path === 'agent.remember')
      .map((s) => s.input as { requestId: string; basedOn: number });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((s) => s.requestId)).size).toBe(1);
    expect(sent[0]!.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(sent.every((s) => s.basedOn === 0)).toBe(true);

    const retries = events.filter((e) => e.type === 'retry');
    expect(retries.map((e) => e.reason)).toEqual(['timeout', 'timeout']);
    // Full-range jitter over a doubling ceiling: 20 ms then 40 ms.
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(10);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(20);
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(20);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(40);
  });

  it('retries a dropped connection', async () => {
    const api = await fakeApi((path, _input, n) =>
      path === 'agent.load' ? loadAt(0) : n === 1 ? { destroy: true } : applied(1),
    );
    const { tools, events } = toolsFor(api.url);
    await expect(tools.remember(addLead)).resolves.toMatchObject({ version: 1 });
    expect(events.filter((e) => e.type === 'retry').map((e) => e.reason)).toEqual(['network']);
  });

  it('gives up after the bounded retries with reason timeout', async () => {
    const api = await fakeApi((path) =>
      path === 'agent.load' ? loadAt(0) : { ...applied(1), delayMs: SLOW },
    );
    const { tools } = toolsFor(api.url, { retries: 2, timeoutMs: SHORT });
    const error = await tools.remember(addLead).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryToolError);
    expect(error).toMatchObject({ reason: 'timeout', code: 'TIMEOUT', retryable: true });
    expect(api.seen.filter((s) => s.path === 'agent.remember')).toHaveLength(3);
    expect(tools.state.version).toBe(0);
  });

  it('caps the backoff at maxBackoffMs and reports the final failure once', async () => {
    const api = await fakeApi((path) => (path === 'agent.load' ? loadAt(0) : { destroy: true }));
    const { tools, events } = toolsFor(api.url, { retries: 3, backoffMs: 40, maxBackoffMs: 50 });
    await expect(tools.remember(addLead)).rejects.toMatchObject({ reason: 'network', retryable: true });
    const remember = events.filter((e) => e.type !== 'stale' && e.type !== 'answer' && e.tool === 'remember');
    expect(remember.map((e) => e.type)).toEqual([
      'call',
      'retry',
      'call',
      'retry',
      'call',
      'retry',
      'call',
      'error',
    ]);
    const delays = remember.flatMap((e) => (e.type === 'retry' ? [e.delayMs] : []));
    expect(delays[0]).toBeGreaterThanOrEqual(20);
    expect(delays.every((d) => d <= 50)).toBe(true);
    expect(remember.filter((e) => e.type === 'call').map((e) => e.attempt)).toEqual([0, 1, 2, 3]);
  });

  it('retries a 503 but never an answer such as name_exists', async () => {
    const api = await fakeApi((path, _input, n) => {
      if (path === 'agent.load') return loadAt(0);
      return n === 1 ? fail(503, 'SERVICE_UNAVAILABLE', 'internal') : fail(409, 'CONFLICT', 'name_exists');
    });
    const { tools, events } = toolsFor(api.url);
    const error = await tools.remember(addLead).catch((e: unknown) => e);
    expect(isMemoryToolError(error, 'name_exists')).toBe(true);
    expect(events.filter((e) => e.type === 'retry' || e.type === 'error').map((e) => e.type)).toEqual([
      'retry',
      'error',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'error', error });
    expect(error).toMatchObject({ code: 'CONFLICT', httpStatus: 409, retryable: false });
    expect(api.seen.filter((s) => s.path === 'agent.remember')).toHaveLength(2);
  });

  it('sends an `unavailable` remember again with the same request id, longer than other failures', async () => {
    // The API's database is restarting: five 503s, then the write lands (or had landed: replayed).
    const api = await fakeApi((path, _input, n) => {
      if (path === 'agent.load') return loadAt(0);
      if (n <= 5) return fail(503, 'SERVICE_UNAVAILABLE', 'unavailable');
      return ok({
        version: 1,
        applied: [{ op: 'add', name: 'lead:reef-survey-2016', digest: D('a') }],
        replayed: true,
      });
    });
    // Two retries for anything else: five would be too many without the longer budget.
    const { tools, events } = toolsFor(api.url, { retries: 2, backoffMs: 10, maxBackoffMs: 20 });
    await expect(tools.remember(addLead)).resolves.toMatchObject({ version: 1, replayed: true });
    const sent = api.seen
      .filter((s) => s.path === 'agent.remember')
      .map((s) => s.input as { requestId: string; basedOn: number });
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map((s) => `${s.requestId} ${s.basedOn}`)).size).toBe(1);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.reason)).toEqual(
      Array(5).fill('unavailable'),
    );
    expect(tools.state.version).toBe(1);
  });

  it('gives up on `unavailable` after unavailableRetries, and says so once', async () => {
    const api = await fakeApi((path) =>
      path === 'agent.load' ? loadAt(0) : fail(503, 'SERVICE_UNAVAILABLE', 'unavailable'),
    );
    const { tools, events } = toolsFor(api.url, { unavailableRetries: 2 });
    const error = await tools.remember(addLead).catch((e: unknown) => e);
    expect(error).toMatchObject({
      reason: 'unavailable',
      code: 'SERVICE_UNAVAILABLE',
      httpStatus: 503,
      retryable: true,
    });
    expect(api.seen.filter((s) => s.path === 'agent.remember')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'retry' || e.type === 'error').map((e) => e.type)).toEqual([
      'retry',
      'retry',
      'error',
    ]);
  });

  it('maps a non-tRPC error page to a MemoryToolError', async () => {
    const api = await fakeApi(() => ({ status: 400, body: 'bad gateway html' }));
    const { tools } = toolsFor(api.url, { retries: 0 });
    await expect(tools.load()).rejects.toMatchObject({
      name: 'MemoryToolError',
      code: 'NETWORK_ERROR',
      httpStatus: 400,
      retryable: false,
    });
  });
});

describe('stale_version', () => {
  it('reads changed_since over every page, then re-bases with a new request id', async () => {
    const api = await fakeApi((path, input) => {
      if (path === 'agent.load') return loadAt(3);
      if (path === 'agent.query') {
        expect(input).toMatchObject({ question: 'changed_since', sinceVersion: 3 });
        return input.cursor === undefined
          ? answer(5, [noteRow(0, 'todo:other', D('b'))], 'page-2')
          : answer(5, [noteRow(1, 'ruled-out:gone', null)]);
      }
      return input.basedOn === 5 ? applied(6) : fail(409, 'CONFLICT', 'stale_version', { currentVersion: 5 });
    });
    const { tools, events } = toolsFor(api.url);
    await tools.load();
    const result = await tools.remember(addLead);
    expect(result.version).toBe(6);
    expect(tools.state.version).toBe(6);
    expect(tools.state.lastMoved.map((r) => r.name)).toEqual(['todo:other', 'ruled-out:gone']);

    const writes = api.seen
      .filter((s) => s.path === 'agent.remember')
      .map((s) => s.input as { basedOn: number; requestId: string });
    expect(writes.map((w) => w.basedOn)).toEqual([3, 5]);
    expect(writes[0]!.requestId).not.toBe(writes[1]!.requestId);
    expect(api.seen.filter((s) => s.path === 'agent.query')).toHaveLength(2);
    expect(events).toContainEqual(expect.objectContaining({ type: 'stale', basedOn: 3, currentVersion: 5 }));
  });

  it('refuses to overwrite a note someone else changed, naming it', async () => {
    const api = await fakeApi((path) => {
      if (path === 'agent.load') return loadAt(3);
      if (path === 'agent.query') return answer(4, [noteRow(0, 'lead:reef-survey-2016', D('c'))]);
      return fail(409, 'CONFLICT', 'stale_version', { currentVersion: 4 });
    });
    const { tools } = toolsFor(api.url);
    const error = await tools
      .remember({ changes: [{ op: 'replace', name: 'lead:reef-survey-2016', text: 'mine' }] })
      .catch((e: unknown) => e);
    expect(isMemoryToolError(error, 'stale_version')).toBe(true);
    expect(error).toMatchObject({ code: 'CONFLICT', currentVersion: 4 });
    expect((error as MemoryToolError).moved?.map((r) => r.name)).toEqual(['lead:reef-survey-2016']);
    expect((error as MemoryToolError).message).toContain('lead:reef-survey-2016 changed after version 3');
    expect(api.seen.filter((s) => s.path === 'agent.remember')).toHaveLength(1);
  });

  it('stops after the bounded number of re-bases', async () => {
    let version = 1;
    const api = await fakeApi((path) => {
      if (path === 'agent.load') return loadAt(0);
      if (path === 'agent.query') return answer(version, []);
      version += 1; // someone always gets there first
      return fail(409, 'CONFLICT', 'stale_version', { currentVersion: version });
    });
    const { tools } = toolsFor(api.url, { staleAttempts: 2 });
    await expect(tools.remember(addLead)).rejects.toMatchObject({ reason: 'stale_version' });
    expect(api.seen.filter((s) => s.path === 'agent.remember')).toHaveLength(3);
  });
});

describe('tools for a model', () => {
  it('describes the five tools with JSON Schemas; the runtime owns basedOn and requestId', () => {
    const { tools } = toolsFor('http://127.0.0.1:9');
    expect(tools.tools.map((t) => t.name)).toEqual(['remember', 'query', 'read', 'explain', 'recall']);
    for (const t of tools.tools) {
      expect(t.description.length).toBeGreaterThan(40);
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const remember = tools.tools[0]!.inputSchema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(remember.properties)).toEqual(['changes']);
    expect(remember.required).toEqual(['changes']);
    expect(JSON.stringify(tools.tools)).not.toMatch(/basedOn|requestId/);
  });

  it('refuses bad arguments before any request, as invalid_input', async () => {
    const api = await fakeApi(() => loadAt(0));
    const { tools } = toolsFor(api.url);
    await expect(tools.execute('remember', { changes: [] })).rejects.toMatchObject({
      reason: 'invalid_input',
      code: 'BAD_REQUEST',
    });
    // As a model would send it: the name is only known at run time, the args are unchecked.
    const modelsChoice: string = 'remember';
    await expect(
      tools.execute(modelsChoice, {
        changes: [{ op: 'add', name: 'lead:x', text: 'x', author: 'me' }],
      }),
    ).rejects.toMatchObject({ reason: 'invalid_input' });
    await expect(tools.execute('query', { question: 'related_to' })).rejects.toThrow(
      /related_to needs a name/,
    );
    await expect(tools.execute('forget', {})).rejects.toMatchObject({
      reason: 'invalid_input',
      message: 'no tool named forget',
    });
    await expect(tools.execute('explain', { row: 0 })).rejects.toMatchObject({
      reason: 'explain_token_invalid',
    });
    expect(api.seen).toHaveLength(0);
  });

  it('explain finds the token of an answer by answerId, or the latest answer', async () => {
    const api = await fakeApi((path, input) => {
      if (path === 'agent.query')
        return answer(2, [noteRow(0, 'lead:a', D('a'))], null, `ans_${String(input.question)}`);
      return ok({
        row: input.row,
        name: 'lead:a',
        source: 'note',
        question: 'current_notes',
        reason: input.token,
        path: [],
        basis: { version: 2, pinnedRevision: 1 },
      });
    });
    const { tools } = toolsFor(api.url);
    await tools.execute('query', { question: 'current_notes' });
    await tools.execute('query', { question: 'conflicts' });
    expect(tools.state.version).toBe(2);
    expect((await tools.execute('explain', { row: 0 })).reason).toBe('tok_ans_conflicts');
    expect((await tools.execute('explain', { row: 0, answerId: 'ans_current_notes' })).reason).toBe(
      'tok_ans_current_notes',
    );
    await expect(tools.execute('explain', { row: 0, answerId: 'ans_unknown' })).rejects.toMatchObject({
      reason: 'explain_token_invalid',
    });
  });

  it('remembers that the session closed', async () => {
    const api = await fakeApi(() => fail(412, 'PRECONDITION_FAILED', 'session_closed'));
    const { tools } = toolsFor(api.url);
    await expect(tools.execute('read', { name: 'lead:a' })).rejects.toMatchObject({
      reason: 'session_closed',
      code: 'PRECONDITION_FAILED',
    });
    expect(tools.state.closed).toBe('session_closed');
  });
});
