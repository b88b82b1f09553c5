/**
 * Every procedure's success path and every SPEC §9 error, over real HTTP against a real server
 * on temp libSQL files, with the demo seed on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer } from './testing/harness.ts';
import type { Json, TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';
import { REEF_DOCUMENT_ID } from './demo/library.ts';

const ADA = { id: 'user-ada', name: 'Ada Lovelace', email: 'user-ada@demo.invalid' };

let s: TestServer;
let ada: string;
let grace: string;
let rosalind: string;

beforeAll(
  async () => ([s, ada, grace, rosalind] = await startSignedIn('user-ada', 'user-grace', 'user-rosalind')),
);
afterAll(() => s?.close());

describe('health and auth', () => {
  it('health answers { ok: true }', async () => {
    expect(await s.client().health.query()).toEqual({ ok: true });
  });

  it('demoUsers lists the three demo people', async () => {
    const users = await s.client().auth.demoUsers.query();
    expect(users.map((u) => u.name)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Rosalind Franklin']);
  });

  it('login returns a user token and sets an HttpOnly SameSite=Lax cookie', async () => {
    const res = await fetch(`${s.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'user-ada' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { data: { userToken: string } } };
    expect(body.result.data.userToken).toMatch(/^ut_[A-Za-z0-9_-]{43}$/);
    const cookie = res.headers.get('set-cookie') ?? '';
    // The token with the library's signature: the value the browser sends back.
    const value = /sponge_session=([^;]+)/.exec(cookie)?.[1] ?? '';
    expect(decodeURIComponent(value).startsWith(`${body.result.data.userToken}.`)).toBe(true);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    // The cookie alone signs the browser in.
    const me = await fetch(`${s.url}/trpc/auth.me`, {
      headers: { cookie: `sponge_session=${value}` },
    });
    expect(((await me.json()) as Json).result.data).toEqual(ADA);
    // The bare token is no cookie: only a signed one is.
    const unsigned = await fetch(`${s.url}/trpc/auth.me`, {
      headers: { cookie: `sponge_session=${body.result.data.userToken}` },
    });
    expect(((await unsigned.json()) as Json).result.data).toBeNull();
  });

  it('login of an unknown user is NOT_FOUND; me is null without a credential', async () => {
    const r = await s.call('mutation', 'auth.login', { userId: 'user-nobody' });
    expect(r.status).toBe(404);
    expect(r.error?.data.reason).toBe('not_found');
    expect(await s.client().auth.me.query()).toBeNull();
    expect(await s.client(ada).auth.me.query()).toEqual(ADA);
  });

  it('logout revokes the token and clears the cookie', async () => {
    const token = await s.login('user-grace');
    const res = await fetch(`${s.url}/trpc/auth.logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/sponge_session=;.*Max-Age=0/);
    expect(await s.client(token).auth.me.query()).toBeNull();
    const e = await errorOf(s.client(token).documents.list.query());
    expect([e.code, e.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);
  });

  it('API keys: create (shown once), list, use, revoke', async () => {
    const key = await s.client(ada).auth.createApiKey.mutate({ label: 'my agent' });
    expect(key.apiKey).toMatch(/^ak_/);
    const keys = await s.client(ada).auth.apiKeys.query();
    expect(keys.find((k) => k.id === key.id)).toEqual({
      id: key.id,
      label: 'my agent',
      createdAt: key.createdAt,
    });
    expect(JSON.stringify(keys)).not.toContain(key.apiKey);
    expect(await s.client(key.apiKey).auth.me.query()).toEqual(ADA);
    expect((await s.client(key.apiKey).documents.list.query()).length).toBeGreaterThan(0);
    expect(await s.client(ada).auth.revokeApiKey.mutate({ id: key.id })).toEqual({
      id: key.id,
      revoked: true,
    });
    const e = await errorOf(s.client(key.apiKey).documents.list.query());
    expect(e.reason).toBe('unauthenticated');
    const again = await errorOf(s.client(ada).auth.revokeApiKey.mutate({ id: key.id }));
    expect(again.reason).toBe('not_found');
  });

  it('an API key never obtains the memory tools: runs.accept refuses it and records nothing', async () => {
    const key = await s.client(ada).auth.createApiKey.mutate({ label: 'own agent' });
    const before = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    for (const mode of ['chat', 'staged'] as const) {
      const e = await errorOf(
        s.client(key.apiKey).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode }),
      );
      expect([e.code, e.reason]).toEqual(['FORBIDDEN', 'forbidden']);
    }
    expect(await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID })).toEqual(before);
  });
});

describe('documents', () => {
  it('list: own documents, shared and published ones, each with its access', async () => {
    const adaDocs = await s.client(ada).documents.list.query();
    expect(adaDocs.find((d) => d.id === REEF_DOCUMENT_ID)).toMatchObject({
      title: 'Reef recovery after the 2016 bleaching',
      ownerId: 'user-ada',
      access: 'owner',
    });
    expect(adaDocs.find((d) => d.id === 'doc-seagrass-carbon')?.access).toBe('public');
    expect(adaDocs.some((d) => d.id === 'doc-larval-connectivity')).toBe(false);
    const rosDocs = await s.client(rosalind).documents.list.query();
    expect(rosDocs.find((d) => d.id === REEF_DOCUMENT_ID)?.access).toBe('shared');
    expect(rosDocs.filter((d) => d.access === 'owner')).toEqual([]);
  });

  it('get: full text for owner, shared and public readers; owner-only facts hidden from others', async () => {
    const own = await s.client(ada).documents.get.query({ documentId: REEF_DOCUMENT_ID });
    expect(own.text).toContain('degree heating weeks');
    expect(own.sharedWith).toEqual([{ id: 'user-rosalind', name: 'Rosalind Franklin' }]);
    expect(own.memoryInStagedRuns).toBe(false);
    const shared = await s.client(rosalind).documents.get.query({ documentId: REEF_DOCUMENT_ID });
    expect(shared.text).toBe(own.text);
    expect(shared.access).toBe('shared');
    expect(shared.sharedWith).toBeNull();
    const pub = await s.client(ada).documents.get.query({ documentId: 'doc-seagrass-carbon' });
    expect(pub.access).toBe('public');
    const e = await errorOf(s.client(grace).documents.get.query({ documentId: REEF_DOCUMENT_ID }));
    expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
  });

  it('get: runsClosedSince is null until ACCEPT_RUNS_UNTIL passes, then says since when (owner only)', async () => {
    const own = await s.client(ada).documents.get.query({ documentId: REEF_DOCUMENT_ID });
    expect(own.runsClosedSince).toBeNull();
    let t = Date.parse('2030-01-01T00:00:00Z');
    const closing = await startTestServer(
      { ACCEPT_RUNS_UNTIL: '2030-01-01T01:00:00Z' },
      { now: () => new Date(t) },
    );
    try {
      const owner = closing.client(await closing.login('user-ada'));
      const reader = closing.client(await closing.login('user-rosalind'));
      const get = { documentId: REEF_DOCUMENT_ID };
      expect((await owner.documents.get.query(get)).runsClosedSince).toBeNull();
      t = Date.parse('2030-01-01T01:00:00Z');
      expect((await owner.documents.get.query(get)).runsClosedSince).toBe('2030-01-01T01:00:00.000Z');
      expect((await reader.documents.get.query(get)).runsClosedSince).toBeNull();
      // The same instant chat.ask starts refusing new runs at.
      const e = await errorOf(owner.chat.ask.mutate({ ...get, text: 'still open?' }));
      expect([e.code, e.reason]).toEqual(['PRECONDITION_FAILED', 'runs_closed']);
    } finally {
      await closing.close();
    }
  });

  it('search ranks only documents the caller may read', async () => {
    const hits = await s.client(ada).documents.search.query({ query: 'coral bleaching recovery', limit: 5 });
    expect(hits[0]?.id).toBe(REEF_DOCUMENT_ID);
    expect(hits.every((h) => h.score > 0 && h.score <= 1)).toBe(true);
    const graceHits = await s.client(grace).documents.search.query({ query: 'bleaching' });
    expect(graceHits.some((h) => h.id === REEF_DOCUMENT_ID)).toBe(false);
  });

  it('share, publish and remove (owner only)', async () => {
    const c = s.client(ada);
    const shared = await c.documents.share.mutate({ documentId: 'doc-survey-methods', userId: 'user-grace' });
    expect(shared.sharedWith).toEqual([{ id: 'user-grace', name: 'Grace Hopper' }]);
    expect((await s.client(grace).documents.get.query({ documentId: 'doc-survey-methods' })).access).toBe(
      'shared',
    );
    const published = await c.documents.publish.mutate({ documentId: 'doc-survey-methods' });
    expect(published.publishedAt).toMatch(/^\d{4}-/);
    expect((await s.client(rosalind).documents.get.query({ documentId: 'doc-survey-methods' })).access).toBe(
      'public',
    );
    const notMine = await errorOf(
      s.client(grace).documents.publish.mutate({ documentId: 'doc-survey-methods' }),
    );
    expect(notMine.reason).toBe('not_found');
    const self = await errorOf(
      c.documents.share.mutate({ documentId: 'doc-survey-methods', userId: 'user-ada' }),
    );
    expect(self.reason).toBe('invalid_input');
    const nobody = await errorOf(
      c.documents.share.mutate({ documentId: 'doc-survey-methods', userId: 'user-nobody' }),
    );
    expect(nobody.reason).toBe('not_found');
    const removed = await c.documents.remove.mutate({ documentId: 'doc-survey-methods' });
    expect(removed.removedAt).toMatch(/^\d{4}-/);
    expect((await c.documents.list.query()).some((d) => d.id === 'doc-survey-methods')).toBe(false);
    expect(
      (await errorOf(s.client(grace).documents.get.query({ documentId: 'doc-survey-methods' }))).reason,
    ).toBe('not_found');
    expect((await errorOf(c.documents.remove.mutate({ documentId: 'doc-survey-methods' }))).reason).toBe(
      'not_found',
    );
  });
});

describe('the demo run', () => {
  it('has a finished chat run whose open session shows notes, reviewed knowledge and a conflict', async () => {
    const runs = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    const demo = runs.at(-1)!;
    expect(demo).toMatchObject({ mode: 'chat', status: 'finished', state: 'open', memory: true });
    const panel = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: demo.sessionId! });
    expect(panel.session).toMatchObject({ id: demo.sessionId, state: 'open', version: 2, pinnedRevision: 4 });
    expect(Date.parse(panel.session!.forgetsAt) - Date.parse(panel.session!.startedAt)).toBe(86_400_000);
    expect(panel.workingNotes.map((n) => n.name).sort()).toEqual([
      'finding:bleaching-threshold',
      'lead:reef-survey-2016',
      'ruled-out:dataset-2014',
      'todo:check-figure-3',
    ]);
    expect(panel.workingNotes.find((n) => n.name === 'lead:reef-survey-2016')?.text).toMatch(
      /^methods section missing/,
    );
    const reviewed = panel.reviewedInView.find((r) => r.name === 'finding:bleaching-threshold')!;
    expect(reviewed).toMatchObject({ revision: 4, source: { documentId: REEF_DOCUMENT_ID } });
    const doc = await s.client(ada).documents.get.query({ documentId: REEF_DOCUMENT_ID });
    expect(doc.text).toContain(reviewed.passage);
    // The same name with different content: marked on both rows, never resolved away.
    const note = panel.workingNotes.find((n) => n.name === 'finding:bleaching-threshold')!;
    expect(note.digest).not.toBe(reviewed.digest);
    expect(note.conflicts).toContainEqual({
      source: 'reviewed',
      name: 'finding:bleaching-threshold',
      reason: 'different_content',
    });
    expect(reviewed.conflicts).toContainEqual({
      source: 'note',
      name: 'finding:bleaching-threshold',
      reason: 'different_content',
    });
    expect(panel.sessions.map((x) => x.id)).toContain(demo.sessionId);
  });

  it('its transcript interleaves messages and memory cards derived from the log', async () => {
    const runs = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    const demo = runs.at(-1)!;
    const items = await s.client(ada).chat.transcript.query({ runId: demo.id });
    expect(items.map((i) => (i.type === 'message' ? i.role : `card:${i.count}`))).toEqual([
      'you',
      'card:2',
      'agent',
      'card:2',
      'agent',
    ]);
    const card = items[1]!;
    expect(card).toMatchObject({
      type: 'memory',
      action: 'remembered',
      names: ['lead:reef-survey-2016', 'ruled-out:dataset-2014'],
      sessionId: demo.sessionId,
      forgotten: false,
    });
  });
});

describe('a chat run end to end, with every SPEC §9 error of the agent tools', () => {
  let runId: string;
  let token: string;
  let sessionId: string;
  const agent = () => s.client(token);

  beforeAll(async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    ({ runId, runToken: token } = run);
    sessionId = run.sessionId!;
    expect(run.runToken).toMatch(/^rt_/);
    expect(sessionId).toBeTruthy();
  });

  it('load: version 0, pinned at the newest demo revision (4), five tools with JSON Schemas, preload with the reviewed record', async () => {
    const load = await agent().agent.load.query();
    expect(load.session).toMatchObject({ id: sessionId, version: 0, pinnedRevision: 4 });
    expect(load.tools.map((t) => t.name)).toEqual(['remember', 'query', 'read', 'explain', 'recall']);
    for (const t of load.tools) expect(t.inputSchema).toMatchObject({ type: 'object' });
    const remember = load.tools[0]!.inputSchema as {
      properties: Record<string, unknown>;
      additionalProperties: unknown;
    };
    expect(Object.keys(remember.properties).sort()).toEqual(['basedOn', 'changes', 'requestId']);
    expect(remember.additionalProperties).toBe(false);
    expect(load.preload.rows).toContainEqual(
      expect.objectContaining({ source: 'reviewed', name: 'finding:bleaching-threshold' }),
    );
    expect(load.preload.truncated).toBe(false);
  });

  it('remember, identical replay, stale_version with currentVersion', async () => {
    const input = {
      basedOn: 0,
      requestId: 'r-1',
      changes: [
        { op: 'add' as const, name: 'lead:coral-cover', text: 'cover fell 51 percent at exposed sites' },
        {
          op: 'add' as const,
          name: 'todo:grazers',
          text: 'check herbivore counts',
          links: [{ rel: 'supports' as const, to: 'lead:coral-cover' }],
        },
      ],
    };
    const r1 = await agent().agent.remember.mutate(input);
    expect(r1.version).toBe(1);
    expect(r1.replayed).toBe(false);
    expect(r1.applied.map((a) => a.name)).toEqual(['lead:coral-cover', 'todo:grazers']);
    const again = await agent().agent.remember.mutate(input);
    expect(again).toEqual({ ...r1, replayed: true });
    const raw = await s.call(
      'mutation',
      'agent.remember',
      { basedOn: 0, requestId: 'r-2', changes: [{ op: 'add', name: 'lead:x', text: 'x' }] },
      token,
    );
    expect(raw.status).toBe(409);
    expect(raw.error?.data).toMatchObject({
      code: 'CONFLICT',
      httpStatus: 409,
      reason: 'stale_version',
      currentVersion: 1,
    });
    expect(raw.error?.message).toBeTruthy();
  });

  it('name_exists, no_such_note (replace, remove, read, link), request_id_reused', async () => {
    const add = await errorOf(
      agent().agent.remember.mutate({
        basedOn: 1,
        requestId: 'r-3',
        changes: [{ op: 'add', name: 'lead:coral-cover', text: 'again' }],
      }),
    );
    expect([add.code, add.reason]).toEqual(['CONFLICT', 'name_exists']);
    const rep = await errorOf(
      agent().agent.remember.mutate({
        basedOn: 1,
        requestId: 'r-4',
        changes: [{ op: 'replace', name: 'lead:missing', text: 'x' }],
      }),
    );
    expect([rep.code, rep.reason]).toEqual(['NOT_FOUND', 'no_such_note']);
    const rem = await errorOf(
      agent().agent.remember.mutate({
        basedOn: 1,
        requestId: 'r-5',
        changes: [{ op: 'remove', name: 'lead:missing' }],
      }),
    );
    expect(rem.reason).toBe('no_such_note');
    const link = await errorOf(
      agent().agent.remember.mutate({
        basedOn: 1,
        requestId: 'r-6',
        changes: [{ op: 'add', name: 'lead:y', text: 'y', links: [{ rel: 'supports', to: 'lead:nowhere' }] }],
      }),
    );
    expect(link.reason).toBe('no_such_note');
    const read = await errorOf(agent().agent.read.query({ name: 'lead:missing' }));
    expect([read.code, read.reason]).toEqual(['NOT_FOUND', 'no_such_note']);
    const reused = await errorOf(
      agent().agent.remember.mutate({
        basedOn: 1,
        requestId: 'r-1',
        changes: [{ op: 'add', name: 'lead:z', text: 'z' }],
      }),
    );
    expect([reused.code, reused.reason]).toEqual(['UNPROCESSABLE_CONTENT', 'request_id_reused']);
    // Nothing of the refused calls was written.
    expect((await agent().agent.load.query()).session.version).toBe(1);
  });

  it('query: the question menu, rows without content, paging', async () => {
    const current = await agent().agent.query.query({ question: 'current_notes' });
    expect(current.version).toBe(1);
    expect(current.pinnedRevision).toBe(4);
    expect(current.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(['lead:coral-cover', 'todo:grazers', 'finding:bleaching-threshold']),
    );
    for (const r of current.rows)
      expect(Object.keys(r).sort()).toEqual(['conflicts', 'digest', 'kind', 'name', 'row', 'source']);
    const supports = await agent().agent.query.query({ question: 'supports', name: 'lead:coral-cover' });
    expect(supports.rows.map((r) => r.name)).toContain('todo:grazers');
    const related = await agent().agent.query.query({ question: 'related_to', name: 'todo:grazers' });
    expect(related.rows.map((r) => r.name)).toContain('lead:coral-cover');
    const changed = await agent().agent.query.query({ question: 'changed_since', sinceVersion: 0 });
    expect(changed.rows.map((r) => r.name).sort()).toEqual(['lead:coral-cover', 'todo:grazers']);
    const conflicts = await agent().agent.query.query({ question: 'conflicts' });
    expect(Array.isArray(conflicts.rows)).toBe(true);
    const page1 = await agent().agent.query.query({ question: 'current_notes', limit: 1 });
    expect(page1.rows).toHaveLength(1);
    expect(page1.nextCursor).toBeTruthy();
    const page2 = await agent().agent.query.query({
      question: 'current_notes',
      limit: 1,
      cursor: page1.nextCursor!,
    });
    expect(page2.rows[0]?.name).not.toBe(page1.rows[0]?.name);
    const missingName = await errorOf(agent().agent.query.query({ question: 'supports' } as never));
    expect(missingName.reason).toBe('invalid_input');
  });

  it('explain, and explain_token_invalid for a tampered token', async () => {
    const ans = await agent().agent.query.query({ question: 'current_notes' });
    const why = await agent().agent.explain.query({ token: ans.explainToken, row: 0 });
    expect(why).toMatchObject({
      row: 0,
      name: ans.rows[0]!.name,
      question: 'current_notes',
      basis: { version: 1, pinnedRevision: 4 },
    });
    expect(typeof why.reason).toBe('string');
    // Flip a character in the middle (the last one may only carry padding bits).
    const mid = Math.floor(ans.explainToken.length / 2);
    const ch = ans.explainToken[mid];
    const tampered =
      ans.explainToken.slice(0, mid) + (ch === 'A' ? 'B' : 'A') + ans.explainToken.slice(mid + 1);
    const bad = await errorOf(agent().agent.explain.query({ token: tampered, row: 0 }));
    expect([bad.code, bad.reason]).toEqual(['BAD_REQUEST', 'explain_token_invalid']);
  });

  it('read with and without a digest; stale_digest once the note changed', async () => {
    const before = await agent().agent.read.query({ name: 'lead:coral-cover' });
    expect(before).toMatchObject({
      source: 'note',
      kind: 'lead',
      text: 'cover fell 51 percent at exposed sites',
      version: 1,
      author: `agent:${runId}`,
    });
    expect(before.digest).toMatch(/^[0-9a-f]{64}$/);
    const reviewed = await agent().agent.read.query({
      name: 'finding:bleaching-threshold',
      source: 'reviewed',
    });
    expect(reviewed).toMatchObject({ source: 'reviewed', revision: 4 });
    await agent().agent.remember.mutate({
      basedOn: 1,
      requestId: 'r-7',
      changes: [{ op: 'replace', name: 'lead:coral-cover', text: 'cover fell by half' }],
    });
    const stale = await errorOf(
      agent().agent.read.query({ name: 'lead:coral-cover', digest: before.digest }),
    );
    expect([stale.code, stale.reason]).toEqual(['CONFLICT', 'stale_digest']);
  });

  it('recall answers the SPEC union (shadow by default: no rows)', async () => {
    expect(await agent().agent.recall.query({ text: 'coral cover' })).toEqual({ mode: 'shadow', rows: [] });
  });

  it('invalid_input: 0 or 65 changes, bad name, unknown field, bad request id, long text — nothing written', async () => {
    const version = (await agent().agent.load.query()).session.version;
    const cases: unknown[] = [
      { basedOn: version, requestId: 'v-1', changes: [] },
      {
        basedOn: version,
        requestId: 'v-2',
        changes: Array.from({ length: 65 }, (_, i) => ({ op: 'add', name: `todo:t${i}`, text: 't' })),
      },
      { basedOn: version, requestId: 'v-3', changes: [{ op: 'add', name: 'Lead:Bad Name', text: 't' }] },
      {
        basedOn: version,
        requestId: 'v-4',
        changes: [{ op: 'add', name: 'lead:ok', text: 't' }],
        author: 'someone-else',
      },
      {
        basedOn: version,
        requestId: 'v-5',
        changes: [{ op: 'add', name: 'lead:ok', text: 't', time: '2020-01-01T00:00:00Z' }],
      },
      {
        basedOn: version,
        requestId: 'bad id with spaces',
        changes: [{ op: 'add', name: 'lead:ok', text: 't' }],
      },
      {
        basedOn: version,
        requestId: 'v-6',
        changes: [{ op: 'add', name: 'lead:ok', text: 'x'.repeat(4_001) }],
      },
      {
        basedOn: version,
        requestId: 'v-7',
        changes: [{ op: 'add', name: 'lead:ok', text: 't', links: [{ rel: 'cites', to: 'lead:x' }] }],
      },
      { basedOn: -1, requestId: 'v-8', changes: [{ op: 'add', name: 'lead:ok', text: 't' }] },
      'not an object',
    ];
    for (const input of cases) {
      const r = await s.call('mutation', 'agent.remember', input, token);
      expect(r.status, JSON.stringify(input).slice(0, 80)).toBe(400);
      expect(r.error?.data.code).toBe('BAD_REQUEST');
      expect(r.error?.data.reason).toBe('invalid_input');
      expect(Array.isArray(r.error?.data.issues)).toBe(true);
    }
    const big = await s.call(
      'mutation',
      'agent.remember',
      {
        basedOn: version,
        requestId: 'v-9',
        changes: [{ op: 'add', name: 'lead:big', text: 't', data: { blob: 'x'.repeat(17_000) } }],
      },
      token,
    );
    expect([big.status, big.error?.data.reason]).toEqual([400, 'invalid_input']);
    const many = await s.call('mutation', 'agent.remember', cases[1], token);
    expect(many.error?.message).toMatch(/64/);
    expect((await agent().agent.load.query()).session.version).toBe(version);
  });

  it('the agent and the owner write to the transcript; cards carry the session id', async () => {
    await s.client(ada).chat.say.mutate({ runId, text: 'What changed?' });
    await agent().agent.say.mutate({ text: 'Cover fell by half at exposed sites.' });
    const items = await s.client(ada).chat.transcript.query({ runId });
    const messages = items.filter((i) => i.type === 'message');
    expect(messages.map((m) => m.role)).toEqual(['you', 'agent']);
    const cards = items.filter((i) => i.type === 'memory');
    expect(cards.filter((c) => c.action === 'remembered').map((c) => c.count)).toEqual([2, 1]);
    expect(cards.some((c) => c.action === 'recalled')).toBe(true);
    expect(cards.every((c) => c.sessionId === sessionId)).toBe(true);
  });

  it('runs.list and memory.sessions show the run’s session', async () => {
    const runs = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    expect(runs[0]).toMatchObject({ id: runId, sessionId, state: 'open', status: 'live', mode: 'chat' });
    const sessions = await s.client(ada).memory.sessions.query({ documentId: REEF_DOCUMENT_ID });
    expect(sessions[0]?.id).toBe(sessionId);
    const panel = await s.client(ada).memory.panel.query({ documentId: REEF_DOCUMENT_ID });
    expect(panel.session?.id).toBe(sessionId); // newest session without sessionId
  });

  it('Forget now: notes and card names go, a forgotten card stays, late writes are session_closed', async () => {
    const forgot = await s.client(ada).memory.forget.mutate({ sessionId });
    expect(forgot.state).toBe('forgotten');
    expect((await s.client(ada).memory.forget.mutate({ sessionId })).state).toBe('forgotten');
    const panel = await s.client(ada).memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId });
    expect(panel.session?.state).toBe('forgotten');
    expect(panel.workingNotes).toEqual([]);
    const items = await s.client(ada).chat.transcript.query({ runId });
    const cards = items.filter((i) => i.type === 'memory');
    expect(cards).toEqual([
      {
        type: 'memory',
        action: 'remembered',
        count: 0,
        removed: 0,
        names: [],
        sessionId,
        at: expect.any(String),
        forgotten: true,
      },
    ]);
    expect(JSON.stringify(items)).not.toContain('lead:coral-cover');
    for (const call of [
      () => agent().agent.load.query(),
      () =>
        agent().agent.remember.mutate({
          basedOn: 2,
          requestId: 'late',
          changes: [{ op: 'add', name: 'lead:late', text: 'x' }],
        }),
      () => agent().agent.query.query({ question: 'current_notes' }),
      () => agent().agent.read.query({ name: 'lead:coral-cover' }),
      () => agent().agent.recall.query({ text: 'x' }),
    ]) {
      const e = await errorOf(call());
      expect([e.code, e.reason]).toEqual(['PRECONDITION_FAILED', 'session_closed']);
    }
  });

  it('runs.finish ends the run: its token stops opening the tools', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const fin = await s.client(ada).runs.finish.mutate({ runId: run.runId });
    expect(fin.status).toBe('finished');
    const e = await errorOf(s.client(run.runToken).agent.load.query());
    expect([e.code, e.reason]).toEqual(['FORBIDDEN', 'forbidden']);
  });
});

describe('note data', () => {
  it('data comes back exactly as sent over HTTP, a "__proto__" key included', async () => {
    // A run of its own, so the end-to-end run's counts stay as they are.
    const { runToken } = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const data = JSON.parse('{"__proto__": {"x": 1}, "n": [1, {"__proto__": null}]}') as unknown;
    const r = await s.call(
      'mutation',
      'agent.remember',
      { basedOn: 0, requestId: 'proto-1', changes: [{ op: 'add', name: 'lead:proto', text: 't', data }] },
      runToken,
    );
    expect(r.status, r.text).toBe(200);
    const read = await s.call('query', 'agent.read', { name: 'lead:proto' }, runToken);
    expect(read.text).toContain('"data":{"__proto__":{"x":1},"n":[1,{"__proto__":null}]}');
    expect(read.data.digest).toBe(r.data.applied[0].digest);
  });
});

describe('transcript cards of removals', () => {
  it('count every change a remember call made, and say how many of them were removals', async () => {
    // A run of its own, so the end-to-end run's counts stay as they are.
    const { runId, runToken } = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(runToken);
    const add = (name: string) => ({ op: 'add' as const, name, text: name });
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'rm-1',
      changes: [add('lead:a'), add('lead:b'), add('lead:c'), add('todo:d')],
    });
    // Only removals: the web reads this card as "Removed 2 notes", never "Remembered".
    await agent.agent.remember.mutate({
      basedOn: 1,
      requestId: 'rm-2',
      changes: [
        { op: 'remove', name: 'lead:a' },
        { op: 'remove', name: 'lead:b' },
      ],
    });
    await agent.agent.remember.mutate({
      basedOn: 2,
      requestId: 'rm-3',
      changes: [
        add('lead:e'),
        { op: 'replace', name: 'lead:c', text: 'c, again' },
        { op: 'remove', name: 'todo:d' },
      ],
    });
    const items = await s.client(ada).chat.transcript.query({ runId });
    const cards = items.flatMap((i) => (i.type === 'memory' && i.action === 'remembered' ? [i] : []));
    expect(cards.map(({ count, removed, names }) => ({ count, removed, names }))).toEqual([
      { count: 4, removed: 0, names: ['lead:a', 'lead:b', 'lead:c', 'todo:d'] },
      { count: 2, removed: 2, names: ['lead:a', 'lead:b'] },
      { count: 3, removed: 1, names: ['lead:e', 'lead:c', 'todo:d'] },
    ]);
  });
});

describe('the inner context (no HTTP)', () => {
  it('builds a caller from a bearer header, as the HTTP adapter does', async () => {
    const { createCallerFactory } = await import('./trpc/procedures.ts');
    const { appRouter } = await import('./router.ts');
    const { createInnerContext } = await import('./trpc/context.ts');
    const caller = createCallerFactory(appRouter)(
      await createInnerContext({ deps: s.app, authorization: `Bearer ${ada}` }),
    );
    expect((await caller.auth.me())?.id).toBe('user-ada');
    const anonymous = createCallerFactory(appRouter)(await createInnerContext({ deps: s.app }));
    await expect(anonymous.documents.list()).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      reason: 'unauthenticated',
    });
  });
});

describe('wire format', () => {
  it('errors carry code, httpStatus and reason in data, and no stack', async () => {
    const r = await s.call('query', 'documents.list', undefined, undefined);
    expect(r.status).toBe(401);
    expect(r.error?.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, reason: 'unauthenticated' });
    expect(r.text).not.toMatch(/stack|\.ts:\d+/);
  });

  it('an unknown procedure is NOT_FOUND, never a 500', async () => {
    const r = await s.call('query', 'agent.nope', undefined, ada);
    expect(r.status).toBe(404);
    expect(r.error?.data.reason).toBe('not_found');
  });

  it('a mutation sent as GET is refused as 405', async () => {
    const r = await s.call('query', 'auth.logout', undefined, ada);
    expect(r.status).toBe(405);
  });

  it('timestamps are ISO-8601 strings (no transformer)', async () => {
    const runs = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    expect(runs[0]?.acceptedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });
});
