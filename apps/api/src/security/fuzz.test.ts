/**
 * Fuzzing every procedure over real HTTP with fast-check-generated bad input: wrong types, huge
 * and unicode strings, 0 and 65 changes, bad names, unknown fields, forged, revoked and expired
 * credentials and explain tokens, oversized bodies and batches, malformed JSON and wrong methods.
 *
 * Every answer must be a 4xx (never a 5xx, never a raw SQL message), and afterwards both
 * databases must hold exactly what they held before: the owner's panels and run lists (digests,
 * versions, states) and a full dump of every table of memory.db and sponge.db.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HARNESS_RUNTIME_KEY,
  acceptChatRun,
  leaksInternals,
  loginOwner,
  must,
  mutate,
  query,
  request,
  startApi,
  tempDataDir,
} from '@sponge/testing/api';
import type { ApiProcess, Owner, RawResponse, RunHandle } from '@sponge/testing/api';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';

interface ProcedureInfo {
  path: string;
  /** A subscription (`chat.events`) is sent as a query is: a GET with `?input=`. */
  type: 'query' | 'mutation' | 'subscription';
  /** The procedure's own input parser, when it takes input. */
  parse: ((input: unknown) => boolean) | null;
}

/** Every procedure of the router, read from the router itself so a new one is fuzzed too. */
async function listProcedures(): Promise<ProcedureInfo[]> {
  const { appRouter } = await import('../router.ts');
  const procedures = (
    appRouter as unknown as {
      _def: { procedures: Record<string, { _def: { type: string; inputs: unknown[] } }> };
    }
  )._def.procedures;
  return Object.entries(procedures).map(([path, p]) => {
    const parsers = p._def.inputs as Array<{ safeParse?: (v: unknown) => { success: boolean } }>;
    const parse =
      parsers.length === 0
        ? null
        : (input: unknown) =>
            parsers.every((s) => typeof s.safeParse !== 'function' || s.safeParse(input).success);
    return { path, type: p._def.type as ProcedureInfo['type'], parse };
  });
}

// ---------------------------------------------------------------------------------------------
// Generators

const hugeString = fc
  .tuple(
    fc.constantFrom('x', 'é', '\u{1F41F}', '\u0000', '\uD800', '"', '\\', ' ', 'a:b'),
    fc.constantFrom(1_001, 4_001, 20_001, 200_000),
  )
  .map(([c, n]) => c.repeat(n));
const unicodeString = fc.string({ unit: 'binary', maxLength: 64 });
const weirdString = fc.oneof(
  unicodeString,
  hugeString,
  fc.constantFrom(
    '',
    ' ',
    'lead:',
    ':x',
    'LEAD:X',
    'lead:x'.repeat(40),
    'a'.repeat(129),
    '../../etc/passwd',
    "'; DROP TABLE notes; --",
    '%00',
    '\u202e',
  ),
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1, 0.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2, 65, 10_001),
);
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  weirdString,
  weirdNumber,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(unicodeString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** A valid input for each known procedure, to be broken one field at a time. */
function templates(ctx: FuzzContext): Record<string, Record<string, unknown>> {
  const change = { op: 'add', name: 'lead:fuzz', text: 'fuzz' };
  return {
    'auth.login': { userId: ctx.owner.userId },
    'auth.createApiKey': { label: 'fuzz key' },
    'auth.revokeApiKey': { id: 'key_x' },
    'documents.get': { documentId: ctx.owner.documentId },
    'documents.search': { query: 'reef', limit: 5 },
    'documents.add': { title: 'Fuzz', text: 'A pasted fuzz document.' },
    'documents.reindex': { documentId: ctx.owner.documentId },
    'documents.share': { documentId: ctx.owner.documentId, userId: ctx.other.userId },
    'documents.shares': { documentId: ctx.owner.documentId },
    'documents.confirmShare': { documentId: ctx.owner.documentId, email: 'fuzz@example.org' },
    'documents.inviteLink': { documentId: ctx.owner.documentId, email: 'fuzz@example.org' },
    'documents.acceptInvite': { token: 'A'.repeat(43) },
    'documents.publish': { documentId: ctx.owner.documentId },
    'documents.remove': { documentId: ctx.owner.documentId },
    'runs.accept': { documentId: ctx.owner.documentId, mode: 'chat' },
    'runs.list': { documentId: ctx.owner.documentId },
    'runs.finish': { runId: ctx.run.runId },
    'runs.settings': { documentId: ctx.owner.documentId, memoryInStagedRuns: true },
    'agent.remember': { basedOn: ctx.version, requestId: 'fuzz-1', changes: [change] },
    'agent.query': { question: 'current_notes', limit: 5 },
    'agent.read': { name: 'lead:fuzz-0' },
    'agent.explain': { token: ctx.explainToken, row: 0 },
    'agent.recall': { text: 'reef', limit: 3 },
    'agent.say': {
      text: 'hello',
      citations: [{ documentId: ctx.owner.documentId, page: 1, quote: 'reef' }, { note: 'lead:fuzz-0' }],
    },
    'library.search': { query: 'reef', limit: 5, documentId: ctx.owner.documentId },
    'library.read': { documentId: ctx.owner.documentId, page: 1, start: 0, length: 100 },
    'memory.panel': { documentId: ctx.owner.documentId, sessionId: ctx.run.sessionId },
    'memory.forget': { sessionId: ctx.run.sessionId },
    'memory.sessions': { documentId: ctx.owner.documentId },
    'review.export': { documentId: ctx.owner.documentId, revision: 0 },
    'chat.transcript': { runId: ctx.run.runId },
    'chat.say': { runId: ctx.run.runId, text: 'hello' },
    'chat.ask': { documentId: ctx.owner.documentId, runId: ctx.run.runId, text: 'hello' },
    'runtime.claim': { runId: ctx.run.runId },
    'runtime.finish': { runId: ctx.run.runId },
  };
}

/** Breaks a valid input: a field replaced, dropped or added, or the whole input replaced. */
function brokenInput(template: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(template);
  const replaceField = keys.length
    ? fc.tuple(fc.constantFrom(...keys), weirdValue).map(([k, v]) => ({ ...template, [k]: v }))
    : weirdValue.map((v) => ({ x: v }));
  const dropField = keys.length
    ? fc
        .constantFrom(...keys)
        .map((k) => Object.fromEntries(Object.entries(template).filter(([key]) => key !== k)))
    : fc.constant({});
  const unknownField = fc
    .tuple(
      fc.constantFrom('author', 'time', 'ownerId', 'runId', 'sessionId', '__proto__', 'constructor', 'x'),
      weirdValue,
    )
    .map(([k, v]) => ({ ...template, [k]: v }));
  return fc.oneof(replaceField, dropField, unknownField, weirdValue);
}

/** Bad remember inputs the schema alone must refuse: the SPEC §5 and §9 limits. */
function badRemember(version: number): fc.Arbitrary<unknown> {
  const ok = (i: number) => ({ op: 'add', name: `lead:fz-${i}`, text: 't' });
  const badName = fc.oneof(
    weirdString,
    fc.constantFrom(
      'Lead:x',
      'lead',
      'lead:',
      'lead:-x',
      '1lead:x',
      `k:${'a'.repeat(97)}`,
      `${'k'.repeat(33)}:a`,
      'lead:x y',
      'lead:é',
    ),
  );
  return fc.oneof(
    fc.constant({ basedOn: version, requestId: 'fz-zero', changes: [] }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-65',
      changes: Array.from({ length: 65 }, (_, i) => ok(i)),
    }),
    badName.map((name) => ({
      basedOn: version,
      requestId: 'fz-name',
      changes: [{ op: 'add', name, text: 't' }],
    })),
    fc.constant({
      basedOn: version,
      requestId: 'fz-long',
      changes: [{ op: 'add', name: 'lead:fz', text: 'x'.repeat(4_001) }],
    }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-data',
      changes: [{ op: 'add', name: 'lead:fz', text: 't', data: { big: 'x'.repeat(17_000) } }],
    }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-links',
      changes: [
        {
          op: 'add',
          name: 'lead:fz',
          text: 't',
          links: Array.from({ length: 17 }, () => ({ rel: 'supports', to: 'lead:fuzz-0' })),
        },
      ],
    }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-rel',
      changes: [{ op: 'add', name: 'lead:fz', text: 't', links: [{ rel: 'loves', to: 'lead:fuzz-0' }] }],
    }),
    fc.constant({ basedOn: version, requestId: 'fz-dup', changes: [ok(1), ok(1)] }),
    fc.constant({ basedOn: version, requestId: 'fz-author', changes: [ok(1)], author: 'agent:evil' }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-time',
      changes: [{ ...ok(1), time: '2020-01-01T00:00:00Z' }],
    }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-op',
      changes: [{ op: 'upsert', name: 'lead:fz', text: 't' }],
    }),
    fc.constant({
      basedOn: version,
      requestId: 'fz-rm',
      changes: [{ op: 'remove', name: 'lead:fuzz-0', text: 'extra' }],
    }),
    fc.constant({ basedOn: version, requestId: 'x'.repeat(129), changes: [ok(1)] }),
    fc.constant({ basedOn: version, requestId: 'has space', changes: [ok(1)] }),
    weirdValue.map((v) => ({ basedOn: v, requestId: 'fz-based', changes: [ok(1)] })),
    fc
      .array(weirdValue, { minLength: 1, maxLength: 3 })
      .map((changes) => ({ basedOn: version, requestId: 'fz-changes', changes })),
  );
}

// ---------------------------------------------------------------------------------------------
// State snapshots

/**
 * Tables that count attempts, refused ones too (http/limit-store.ts): a fuzzed call that reached
 * a limit is one more attempt there, which is what they are for, not a change of state.
 */
const ATTEMPT_COUNTERS = new Set(['limit_windows', 'limit_buckets', 'upload_places']);

async function dumpDatabase(path: string): Promise<Record<string, string>> {
  const db = createClient({ url: `file:${path}` });
  try {
    const tables = await db.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    const out: Record<string, string> = {};
    for (const t of tables.rows) {
      const name = String(t.name);
      if (ATTEMPT_COUNTERS.has(name)) continue;
      const rs = await db.execute(`SELECT * FROM "${name.replaceAll('"', '""')}"`).catch(() => null);
      if (!rs) continue;
      const rows = rs.rows.map((r) =>
        JSON.stringify(
          rs.columns.map((c) => (r[c] instanceof ArrayBuffer ? Buffer.from(r[c]).toString('base64') : r[c])),
        ),
      );
      rows.sort();
      out[name] = `${rows.length} rows, sha256 ${createHash('sha256').update(rows.join('\n')).digest('hex')}`;
    }
    return out;
  } finally {
    db.close();
  }
}

interface FuzzContext {
  api: ApiProcess;
  owner: Owner;
  other: Owner;
  run: RunHandle;
  otherRun: RunHandle;
  finishedRunToken: string;
  revokedUserToken: string;
  explainToken: string;
  version: number;
}

async function snapshot(ctx: FuzzContext): Promise<unknown> {
  const views: Record<string, unknown> = {};
  for (const o of [ctx.owner, ctx.other]) {
    const runs = must<Array<{ sessionId: string | null }>>(
      await query(ctx.api.port, 'runs.list', { documentId: o.documentId }, o.token),
      'runs.list',
    );
    views[`runs:${o.userId}`] = runs;
    for (const r of runs) {
      if (!r.sessionId) continue;
      views[`panel:${r.sessionId}`] = must(
        await query(
          ctx.api.port,
          'memory.panel',
          { documentId: o.documentId, sessionId: r.sessionId },
          o.token,
        ),
        'memory.panel',
      );
    }
    views[`documents:${o.userId}`] = must(
      await query(ctx.api.port, 'documents.list', undefined, o.token),
      'documents.list',
    );
  }
  return {
    views,
    memoryDb: await dumpDatabase(join(ctx.api.dataDir, 'memory.db')),
    appDb: await dumpDatabase(join(ctx.api.dataDir, 'sponge.db')),
  };
}

// ---------------------------------------------------------------------------------------------

type Credential = { label: string; header: string | undefined; works: boolean };

function credentials(ctx: FuzzContext): Credential[] {
  const b64 = () => randomBytes(32).toString('base64url');
  return [
    { label: 'none', header: undefined, works: false },
    { label: 'forged user token', header: `Bearer ut_${b64()}`, works: false },
    { label: 'forged run token', header: `Bearer rt_${b64()}`, works: false },
    { label: 'forged api key', header: `Bearer ak_${b64()}`, works: false },
    { label: 'malformed', header: `Bearer ${'\u00ff'.repeat(3)}x y`, works: false },
    { label: 'basic', header: 'Basic dXNlcjpwYXNz', works: false },
    { label: 'revoked user token', header: `Bearer ${ctx.revokedUserToken}`, works: false },
    { label: 'finished run token', header: `Bearer ${ctx.finishedRunToken}`, works: false },
    { label: 'owner', header: `Bearer ${ctx.owner.token}`, works: true },
    { label: 'other owner', header: `Bearer ${ctx.other.token}`, works: true },
    { label: 'run', header: `Bearer ${ctx.run.runToken}`, works: true },
    { label: 'other run', header: `Bearer ${ctx.otherRun.runToken}`, works: true },
    { label: 'runtime key', header: `Bearer ${HARNESS_RUNTIME_KEY}`, works: true },
    { label: 'forged runtime key', header: `Bearer ${b64()}`, works: false },
  ];
}

/** Node's own limit on the request line and headers (16 KiB): beyond it the socket is refused. */
const HEADER_LIMIT = 16 * 1024;

async function send(
  port: number,
  p: ProcedureInfo,
  input: unknown,
  auth: string | undefined,
): Promise<RawResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth !== undefined) headers.authorization = auth;
  const path =
    p.type !== 'mutation'
      ? `/trpc/${p.path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`
      : `/trpc/${p.path}`;
  try {
    return p.type !== 'mutation'
      ? fromStream(await request(port, { method: 'GET', path, headers }))
      : await request(port, { method: 'POST', path, headers, body: JSON.stringify(input ?? null) });
  } catch (err) {
    // A request line over Node's header limit gets a 431 and a closed socket, which the client
    // may see as a reset before it reads the 431: a refusal at the door, not a server error.
    if (path.length > HEADER_LIMIT && /ECONNRESET|EPIPE/.test(String(err)))
      return { status: 431, text: '', json: undefined };
    throw err;
  }
}

/**
 * A subscription answers over Server-Sent Events with HTTP 200 even when it refuses: the refusal
 * is the stream's `serialized-error` event, after which the stream ends. Read here as the status
 * and body a query's refusal has, so it is judged the same way.
 */
function fromStream(res: RawResponse): RawResponse {
  const error = /^event: serialized-error\ndata: (.*)$/m.exec(res.text)?.[1];
  if (error === undefined) return res;
  const parsed = JSON.parse(error) as { data?: { httpStatus?: number } };
  return { status: parsed.data?.httpStatus ?? 0, text: res.text, json: { error: parsed } };
}

/**
 * An oversized request may be cut off by the server before the client finished sending it; the
 * client then sees a reset instead of the status. That is a refusal at the door, not a failure.
 */
async function atTheDoor(p: Promise<RawResponse>, status: number): Promise<RawResponse> {
  try {
    return await p;
  } catch (err) {
    if (/ECONNRESET|EPIPE/.test(String(err))) return { status, text: '', json: undefined };
    throw err;
  }
}

/**
 * A valid review.decide of the research profile on the demo owner's reef document: its
 * `fields.effectMeasure` is an enum whose codec once rendered a deep value with a recursive
 * JSON.stringify (a RangeError, answered 500).
 */
const reviewDecide = {
  documentId: REEF_DOCUMENT_ID,
  profile: 'research',
  kind: 'finding',
  name: 'finding:deep',
  text: 'A finding.',
  fields: { statement: 'A statement.', study: 'study:reef-resurvey-2016', effectMeasure: 'percent-change' },
  sourceDocumentId: REEF_DOCUMENT_ID,
  passage: 'We resurveyed 112 sites',
  decision: 'reject',
  comment: 'deep',
};

/**
 * JSON text of an array or object nested `depth` levels deep. Written as text: JSON.stringify
 * of such a value throws a RangeError in the test itself.
 */
function deepJson(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth);
}

/** Where a deep value goes: the whole input ([]), each field, and each field of an object field. */
function deepTargets(template: Record<string, unknown>): string[][] {
  const targets: string[][] = [[]];
  for (const [key, value] of Object.entries(template)) {
    targets.push([key]);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const inner of Object.keys(value)) targets.push([key, inner]);
  }
  return targets;
}

/** The template's JSON text with the value at `target` replaced by `deep` (JSON text). */
function placeDeep(template: Record<string, unknown>, target: string[], deep: string): string {
  if (target.length === 0) return deep;
  const marker = '\u0001deep\u0001';
  const copy = structuredClone(template);
  let at: Record<string, unknown> = copy;
  for (const key of target.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[target.at(-1)!] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), deep);
}

/** Sends JSON text as it is: a query as GET ?input=, a mutation as a POST body. */
async function sendRaw(port: number, p: ProcedureInfo, json: string, auth: string): Promise<RawResponse> {
  const headers = { 'content-type': 'application/json', authorization: auth };
  const path =
    p.type !== 'mutation' ? `/trpc/${p.path}?input=${encodeURIComponent(json)}` : `/trpc/${p.path}`;
  try {
    return p.type !== 'mutation'
      ? fromStream(await request(port, { method: 'GET', path, headers }))
      : await request(port, { method: 'POST', path, headers, body: json });
  } catch (err) {
    // As in send(): a request line over Node's limit is answered 431 and the socket closed.
    if (path.length > HEADER_LIMIT && /ECONNRESET|EPIPE/.test(String(err)))
      return { status: 431, text: '', json: undefined };
    throw err;
  }
}

interface Bad {
  what: string;
  status: number;
  text: string;
}

/** Whether a tRPC error body carries the machine-readable reason of SPEC §9. */
function hasReason(json: unknown): boolean {
  if (Array.isArray(json)) return json.every((item) => hasReason(item));
  const error = (json as { error?: { data?: { reason?: unknown } } } | null)?.error;
  return typeof error?.data?.reason === 'string';
}

/** Batch answers carry one status per call: all must be 4xx as well. */
function statuses(res: RawResponse): number[] {
  if (!Array.isArray(res.json)) return [res.status];
  return (res.json as Array<{ error?: { data?: { httpStatus?: number } } }>).map(
    (item) => item.error?.data?.httpStatus ?? 200,
  );
}

/** A 4xx with a tRPC error body (or Node's own 4xx before tRPC), never a 5xx or a leak. */
function judge(res: RawResponse, what: string, mustRefuse: boolean, bad: Bad[]): void {
  const all = [res.status, ...statuses(res)];
  const wrong =
    all.some((s) => s >= 500 || s === 0) ||
    leaksInternals(res.text) ||
    (mustRefuse && all.some((s) => s < 400)) ||
    (res.status >= 400 && res.json !== undefined && !hasReason(res.json));
  if (wrong) bad.push({ what, status: res.status, text: res.text.slice(0, 300) });
}

describe('fuzzing every procedure over HTTP', () => {
  const data = tempDataDir('fuzz');
  let ctx: FuzzContext;
  let procedures: ProcedureInfo[];
  let before: unknown;
  const bad: Bad[] = [];
  let sent = 0;

  beforeAll(async () => {
    // Explain tokens live 1 s here, so the ones issued during set-up are expired by fuzz time.
    const api = await startApi({
      from: 'source',
      dataDir: data.dir,
      env: { EXPLAIN_TOKEN_TTL_SECONDS: '1', RECALL_MODE: 'live' },
    });
    const owner = await loginOwner(api.port, 0);
    const other = await loginOwner(api.port, 1);
    const run = await acceptChatRun(api.port, owner);
    const otherRun = await acceptChatRun(api.port, other);
    const changes = Array.from({ length: 5 }, (_, i) => ({
      op: 'add',
      name: `lead:fuzz-${i}`,
      text: `note ${i}`,
      data: { i },
    }));
    must(
      await mutate(api.port, 'agent.remember', { basedOn: 0, requestId: 'setup-1', changes }, run.runToken),
      'remember',
    );
    must(
      await mutate(
        api.port,
        'agent.remember',
        { basedOn: 0, requestId: 'setup-o', changes },
        otherRun.runToken,
      ),
      'remember',
    );
    const answer = must<{ explainToken: string }>(
      await query(api.port, 'agent.query', { question: 'current_notes' }, run.runToken),
      'query',
    );
    const finished = await acceptChatRun(api.port, owner);
    must(await mutate(api.port, 'runs.finish', { runId: finished.runId }, owner.token), 'runs.finish');
    const users = must<Array<{ id: string }>>(await query(api.port, 'auth.demoUsers'), 'demoUsers');
    const second = must<{ userToken: string }>(
      await mutate(api.port, 'auth.login', { userId: users[0]!.id }),
      'login',
    );
    must(await mutate(api.port, 'auth.logout', null, second.userToken), 'logout');
    ctx = {
      api,
      owner,
      other,
      run,
      otherRun,
      finishedRunToken: finished.runToken,
      revokedUserToken: second.userToken,
      explainToken: answer.explainToken,
      version: 1,
    };
    procedures = await listProcedures();
    await new Promise((r) => setTimeout(r, 1_200)); // let the explain token expire
    before = await snapshot(ctx);
  }, 180_000);

  afterAll(async () => {
    await ctx?.api.stop();
    data.remove();
  });

  it('knows every procedure of the router', () => {
    const paths = procedures.map((p) => p.path);
    for (const p of [
      'health',
      'auth.login',
      'auth.logout',
      'runs.accept',
      'agent.remember',
      'agent.query',
      'agent.read',
      'agent.explain',
      'agent.recall',
      'agent.load',
      'memory.panel',
      'memory.forget',
      'chat.transcript',
      'documents.list',
      'chat.ask',
      'runtime.pending',
      'runtime.claim',
      'runtime.finish',
      'agent.document',
      'agent.turns',
      'library.search',
      'library.read',
      'documents.add',
      'documents.upload',
      'documents.reindex',
    ]) {
      expect(paths).toContain(p);
    }
  });

  it('answers generated bad input to every procedure, with every kind of credential, with a 4xx', async () => {
    const creds = credentials(ctx);
    const tpl = templates(ctx);
    for (const p of procedures) {
      const template = tpl[p.path] ?? {};
      const inputs: fc.Arbitrary<unknown> =
        p.path === 'agent.remember'
          ? fc.oneof(badRemember(ctx.version), brokenInput(template))
          : brokenInput(template);
      await fc.assert(
        fc.asyncProperty(inputs, fc.constantFrom(...creds), async (input, cred) => {
          const valid = p.parse ? p.parse(input) : true;
          // An input the procedure would accept is sent only with credentials that cannot act:
          // a working credential plus a valid input is a legitimate call, not a fuzz case.
          if (valid && cred.works) return;
          // Procedures without input ignore it; they may answer 200 (health, demoUsers, me, logout…).
          const mustRefuse =
            !valid || (p.path !== 'health' && !p.path.startsWith('auth.') && cred.works === false);
          const res = await send(ctx.api.port, p, input, cred.header);
          sent++;
          judge(
            res,
            `${p.path} as ${cred.label} with ${JSON.stringify(input)?.slice(0, 120)}`,
            mustRefuse,
            bad,
          );
        }),
        { numRuns: p.path.startsWith('agent.') ? 60 : 30, seed: 7 },
      );
    }
    expect(bad).toEqual([]);
  }, 180_000);

  it('refuses well-formed but wrong calls with a 4xx and changes nothing', async () => {
    const { api, owner, other, run, otherRun } = ctx;
    const cases: Array<[string, Promise<RawResponse>]> = [];
    const q = (path: string, input: unknown, token?: string) =>
      send(api.port, { path, type: 'query', parse: null }, input, token ? `Bearer ${token}` : undefined);
    const m = (path: string, input: unknown, token?: string) =>
      send(api.port, { path, type: 'mutation', parse: null }, input, token ? `Bearer ${token}` : undefined);
    const add = { op: 'add', name: 'lead:wrong', text: 'x' };
    cases.push([
      'stale basedOn',
      m('agent.remember', { basedOn: 0, requestId: 'w-stale', changes: [add] }, run.runToken),
    ]);
    cases.push([
      'future basedOn',
      m('agent.remember', { basedOn: 999, requestId: 'w-future', changes: [add] }, run.runToken),
    ]);
    cases.push([
      'add existing',
      m(
        'agent.remember',
        { basedOn: 1, requestId: 'w-exists', changes: [add, { op: 'add', name: 'lead:fuzz-0', text: 'x' }] },
        run.runToken,
      ),
    ]);
    cases.push([
      'replace missing',
      m(
        'agent.remember',
        {
          basedOn: 1,
          requestId: 'w-missing',
          changes: [add, { op: 'replace', name: 'lead:nope', text: 'x' }],
        },
        run.runToken,
      ),
    ]);
    cases.push([
      'remove missing',
      m(
        'agent.remember',
        { basedOn: 1, requestId: 'w-rm', changes: [{ op: 'remove', name: 'lead:nope' }] },
        run.runToken,
      ),
    ]);
    cases.push([
      'link to missing',
      m(
        'agent.remember',
        {
          basedOn: 1,
          requestId: 'w-link',
          changes: [{ ...add, links: [{ rel: 'supports', to: 'lead:nope' }] }],
        },
        run.runToken,
      ),
    ]);
    cases.push([
      'request id reused',
      m('agent.remember', { basedOn: 1, requestId: 'setup-1', changes: [add] }, run.runToken),
    ]);
    cases.push(['read missing', q('agent.read', { name: 'lead:nope' }, run.runToken)]);
    cases.push([
      'read stale digest',
      q('agent.read', { name: 'lead:fuzz-0', digest: '0'.repeat(64) }, run.runToken),
    ]);
    cases.push([
      'expired explain token',
      q('agent.explain', { token: ctx.explainToken, row: 0 }, run.runToken),
    ]);
    cases.push([
      'explain token of another session',
      q('agent.explain', { token: ctx.explainToken, row: 0 }, otherRun.runToken),
    ]);
    cases.push([
      'forged explain token',
      q(
        'agent.explain',
        {
          token: `${randomBytes(40).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
          row: 0,
        },
        run.runToken,
      ),
    ]);
    cases.push([
      'bad cursor',
      q('agent.query', { question: 'current_notes', cursor: 'not-a-cursor' }, run.runToken),
    ]);
    cases.push([
      'forged cursor',
      q(
        'agent.query',
        { question: 'current_notes', cursor: randomBytes(60).toString('base64url') },
        run.runToken,
      ),
    ]);
    cases.push([
      'agent tool with owner token',
      m('agent.remember', { basedOn: 1, requestId: 'w-owner', changes: [add] }, owner.token),
    ]);
    cases.push(['another owner forgets', m('memory.forget', { sessionId: run.sessionId }, other.token)]);
    cases.push([
      'another owner panel',
      q('memory.panel', { documentId: owner.documentId, sessionId: run.sessionId }, other.token),
    ]);
    cases.push([
      'panel of another doc session',
      q('memory.panel', { documentId: other.documentId, sessionId: run.sessionId }, other.token),
    ]);
    cases.push([
      'accept on another owner doc',
      m('runs.accept', { documentId: owner.documentId, mode: 'chat' }, other.token),
    ]);
    cases.push([
      'remove another owner doc',
      m('documents.remove', { documentId: owner.documentId }, other.token),
    ]);
    cases.push([
      'share another owner doc',
      m('documents.share', { documentId: owner.documentId, userId: other.userId }, other.token),
    ]);
    cases.push([
      'publish another owner doc',
      m('documents.publish', { documentId: owner.documentId }, other.token),
    ]);
    cases.push(['forget unknown session', m('memory.forget', { sessionId: 'ses_nope' }, owner.token)]);
    cases.push(['transcript of another run', q('chat.transcript', { runId: otherRun.runId }, owner.token)]);
    cases.push(['login unknown user', m('auth.login', { userId: 'usr_nope' })]);
    cases.push([
      'finished run remembers',
      m('agent.remember', { basedOn: 0, requestId: 'w-fin', changes: [add] }, ctx.finishedRunToken),
    ]);
    cases.push([
      'revoked user forgets',
      m('memory.forget', { sessionId: run.sessionId }, ctx.revokedUserToken),
    ]);
    for (const [what, p] of cases) judge(await p, what, true, bad);
    expect(bad).toEqual([]);
  }, 60_000);

  it('refuses malformed HTTP: bad JSON, wrong methods, oversized bodies and batches, unknown paths', async () => {
    const port = ctx.api.port;
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${ctx.run.runToken}` };
    const mutations = procedures.filter((p) => p.type === 'mutation');
    const queries = procedures.filter((p) => p.type === 'query');

    // Malformed JSON bodies, generated.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...mutations),
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.constantFrom(
            '{',
            '{"basedOn":',
            '[1,2',
            'nul',
            '{"a":1}}',
            '\u0000',
            '\uFEFF{}',
            "{'a':1}",
            '{"a":NaN}',
          ),
        ),
        async (p, body) => {
          let parses = true;
          try {
            JSON.parse(body);
          } catch {
            parses = false;
          }
          if (parses) return;
          const res = await request(port, { method: 'POST', path: `/trpc/${p.path}`, headers: auth, body });
          // tRPC reads the body only for procedures that take input; the others ignore it.
          judge(
            res,
            `malformed JSON to ${p.path}: ${JSON.stringify(body).slice(0, 80)}`,
            p.parse !== null,
            bad,
          );
        },
      ),
      { numRuns: 120, seed: 11 },
    );
    // Malformed ?input= on queries.
    for (const p of queries) {
      for (const raw of [
        '%7B',
        'not%20json',
        '%E0%A4%A',
        '%7B%22question%22%3A',
        '%5B%5D%5D',
        '%00',
        '%FF%FE',
      ]) {
        const res = await request(port, {
          method: 'GET',
          path: `/trpc/${p.path}?input=${raw}`,
          headers: auth,
        });
        judge(res, `malformed input to ${p.path}: ${raw}`, p.parse !== null, bad);
      }
    }
    // Wrong methods.
    for (const p of mutations) {
      judge(
        await request(port, { method: 'GET', path: `/trpc/${p.path}`, headers: auth }),
        `GET ${p.path}`,
        true,
        bad,
      );
    }
    for (const p of [...queries, ...mutations]) {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        judge(
          await request(port, { method, path: `/trpc/${p.path}`, headers: auth, body: '{}' }),
          `${method} ${p.path}`,
          true,
          bad,
        );
      }
    }
    for (const p of queries.filter((x) => x.parse !== null)) {
      judge(
        await request(port, { method: 'POST', path: `/trpc/${p.path}`, headers: auth, body: '{}' }),
        `POST ${p.path}`,
        true,
        bad,
      );
    }
    // Oversized bodies: 5 MiB of JSON, and a 64 KiB query string.
    const big = JSON.stringify({
      basedOn: 1,
      requestId: 'big',
      changes: [{ op: 'add', name: 'lead:big', text: 'x'.repeat(5 * 1024 * 1024) }],
    });
    judge(
      await atTheDoor(
        request(port, { method: 'POST', path: '/trpc/agent.remember', headers: auth, body: big }),
        413,
      ),
      'a 5 MiB body',
      true,
      bad,
    );
    const longInput = encodeURIComponent(
      JSON.stringify({ question: 'current_notes', cursor: 'x'.repeat(64 * 1024) }),
    );
    judge(
      await atTheDoor(
        request(port, { method: 'GET', path: `/trpc/agent.query?input=${longInput}`, headers: auth }),
        431,
      ),
      'a 64 KiB query string',
      true,
      bad,
    );
    expect((await query(port, 'health')).ok).toBe(true);
    // Oversized and bad batches.
    const batchOf = (n: number, input: unknown) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), input]));
    const paths = (n: number, path: string) => Array.from({ length: n }, () => path).join(',');
    for (const n of [65, 500, 5_000]) {
      const body = JSON.stringify(
        batchOf(n, {
          basedOn: 1,
          requestId: 'batch',
          changes: [{ op: 'add', name: 'lead:batch', text: 'x' }],
        }),
      );
      const res = await request(port, {
        method: 'POST',
        path: `/trpc/${paths(n, 'agent.remember')}?batch=1`,
        headers: auth,
        body,
      });
      judge(res, `a batch of ${n} remember calls`, true, bad);
    }
    const badBatch = await request(port, {
      method: 'POST',
      path: `/trpc/${paths(10, 'agent.remember')}?batch=1`,
      headers: auth,
      body: JSON.stringify(batchOf(10, { basedOn: 1, requestId: 'b', changes: [] })),
    });
    judge(badBatch, 'a batch of 10 bad remember calls', true, bad);
    judge(
      await request(port, {
        method: 'POST',
        path: '/trpc/agent.remember?batch=1',
        headers: auth,
        body: '"not an object"',
      }),
      'batch body not an object',
      true,
      bad,
    );
    // Unknown paths and odd content types.
    for (const path of [
      '/trpc/nope',
      '/trpc/agent.nope',
      '/trpc/agent',
      '/trpc/agent.remember.x',
      '/trpc/__proto__',
      '/trpc/constructor',
      '/trpc/toString',
    ]) {
      judge(
        await request(port, { method: 'POST', path, headers: auth, body: '{}' }),
        `POST ${path}`,
        true,
        bad,
      );
      judge(await request(port, { method: 'GET', path, headers: auth }), `GET ${path}`, true, bad);
    }
    const textPlain = await request(port, {
      method: 'POST',
      path: '/trpc/agent.remember',
      headers: { 'content-type': 'text/plain', authorization: auth.authorization },
      body: JSON.stringify({ basedOn: 1, requestId: 'tp', changes: [] }),
    });
    judge(textPlain, 'text/plain body', true, bad);
    expect(bad).toEqual([]);
  }, 120_000);

  it('answers 10^4- and 10^5-deep arrays and objects, in every field of every procedure, with a 4xx and never a 500', async () => {
    const tpl: Record<string, Record<string, unknown>> = { ...templates(ctx), 'review.decide': reviewDecide };
    // The credential each procedure works with, so the deep input gets past the credential check.
    const auth = (path: string) =>
      `Bearer ${path.startsWith('agent.') ? ctx.run.runToken : path.startsWith('runtime.') ? HARNESS_RUNTIME_KEY : ctx.owner.token}`;
    // auth.logout ignores input: were the deep input let through, it would sign the owner out
    // for the calls after it. Last, so a failure here is reported for every other procedure.
    const ordered = [
      ...procedures.filter((p) => p.path !== 'auth.logout'),
      ...procedures.filter((p) => p.path === 'auth.logout'),
    ];
    const deepBad: Bad[] = [];
    const byStatus = new Map<number, number>();
    const serverErrors: string[] = [];
    for (const p of ordered) {
      const template = tpl[p.path] ?? {};
      for (const target of deepTargets(template)) {
        // A query's input rides in the URL, whose request line Node caps at 16 KiB: the deepest
        // inputs are refused at the door (431), and a depth that fits still reaches the server.
        const depths = p.type === 'query' ? [10_000, 100_000, 'fits' as const] : [10_000, 100_000];
        for (const depth of depths) {
          for (const shape of ['array', 'object'] as const) {
            const n = depth === 'fits' ? (shape === 'array' ? 2_000 : 800) : depth;
            const body = placeDeep(template, target, deepJson(n, shape));
            const res = await sendRaw(ctx.api.port, p, body, auth(p.path));
            byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
            const what = `${p.path} with a ${n}-deep ${shape} ${target.length ? `in ${target.join('.')}` : 'as the input'}`;
            if (res.status >= 500 || res.status === 0) serverErrors.push(`${what}: ${res.status}`);
            const refused = res.status >= 400 && res.status < 500;
            if (!refused || leaksInternals(res.text) || (res.json !== undefined && !hasReason(res.json)))
              deepBad.push({ what, status: res.status, text: res.text.slice(0, 300) });
          }
        }
      }
    }
    const tally = [...byStatus].map(([status, n]) => `${n} × ${status}`).join(', ');
    console.log(`deep inputs: ${tally}; ${serverErrors.length} answered 5xx`);
    expect(serverErrors).toEqual([]);
    expect(deepBad).toEqual([]);
    expect((await query(ctx.api.port, 'health')).ok).toBe(true);
  }, 300_000);

  it('left both databases exactly as they were (digests, versions, states, every table)', async () => {
    const after = await snapshot(ctx);
    expect(after).toEqual(before);
    expect(ctx.api.output()).not.toMatch(/"level":50|"level":60|Internal error/);
    console.log(`fuzz: ${sent} generated calls`);
  }, 60_000);
});
