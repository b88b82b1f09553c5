/**
 * The authorization matrix: every procedure × every kind of caller, each cell with its expected
 * outcome, over real HTTP. Every response a caller gets is also checked for leaks: working
 * notes of a session (their names and text) never appear in a response to anyone but the
 * document's owner and that session's own run.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_RUNTIME_KEY, startTestServer } from './testing/harness.ts';
import type { Json, RawResult, TestServer } from './testing/harness.ts';
import { insertUser } from './accounts/users.ts';
import { openSse, subscriptionUrl } from './testing/sse.ts';

const PRINCIPALS = [
  'owner',
  'otherOwner',
  'sharedUser',
  'publicViewer',
  'runToken',
  'otherRunToken',
  'apiKey',
  'runtimeKey',
  'purgeKey',
  'none',
  'malformed',
  /** An account made by sign-up (email and password), unrelated to Ada's documents. */
  'signedUp',
  /** The session of an account that was disabled after it signed in. */
  'disabled',
  /** The run token of a run that account accepted before it was disabled (SPEC §6c). */
  'disabledRunToken',
  /** A session token its holder signed out of (replayed). */
  'signedOut',
] as const;
type Principal = (typeof PRINCIPALS)[number];

/** 'ok', or the tRPC code expected (its reason follows from SPEC §9, see REASON). */
type Outcome = 'ok' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'BAD_REQUEST' | 'PRECONDITION_FAILED';
const REASON: Record<Exclude<Outcome, 'ok'>, string> = {
  UNAUTHORIZED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  BAD_REQUEST: 'explain_token_invalid',
  PRECONDITION_FAILED: 'session_closed',
};

interface Fixture {
  tokens: Record<Principal, string | undefined>;
  /** Ada's private document, shared with Rosalind; run R1 (session S1) holds ALPHA notes. */
  dPrivate: string;
  /** Ada's published document; run R2 (session S2) holds BETA notes. */
  dPublic: string;
  r1: string;
  s1: string;
  r2: string;
  s2: string;
  /** Throwaways the owner's destructive cells act on, so the other cells keep their targets. */
  dTrash: string;
  /** Ada's document whose indexing failed (documents.reindex takes only those). */
  dFailed: string;
  /** Ada's document the invitation cells open (each accepted link grants only it). */
  dInvite: string;
  rTrash: string;
  sTrash: string;
  spareKeyId: string;
  /** Ada's key the owner revokes as a connected agent (auth.revokeConnectedAgent). */
  spareAgentId: string;
  /** The id of Ada's key that the `apiKey` principal uses: nobody else may revoke it. */
  liveKeyId: string;
  /** A run the runtime rows claim and finish. */
  rRuntime: string;
  /** A run the runtime key claimed, with the claim's token: its lease is renewed and released. */
  rLease: { runId: string; runToken: string };
  explainR1: string;
}

interface Row {
  procedure: string;
  kind: 'query' | 'mutation' | 'subscription';
  input?: (p: Principal, fx: Fixture) => unknown;
  expect: Record<Principal, Outcome>;
  /** Overrides the reason for a cell whose refusal has a more specific one. */
  reasons?: Partial<Record<Principal, string>>;
}

// Expectation profiles.
const all = (o: Outcome): Record<Principal, Outcome> =>
  Object.fromEntries(PRINCIPALS.map((p) => [p, o])) as Record<Principal, Outcome>;
/** No valid credential: a disabled account's and a signed-out session are none at all. */
const unauth = {
  purgeKey: 'UNAUTHORIZED',
  none: 'UNAUTHORIZED',
  malformed: 'UNAUTHORIZED',
  disabled: 'UNAUTHORIZED',
  disabledRunToken: 'UNAUTHORIZED',
  signedOut: 'UNAUTHORIZED',
} as const;
/** Signed-in people only (login token); API keys and run tokens are the wrong kind. */
const people = (o: Partial<Record<Principal, Outcome>> = {}): Record<Principal, Outcome> => {
  const row: Omit<Record<Principal, Outcome>, 'signedUp'> = {
    owner: 'ok',
    otherOwner: 'ok',
    sharedUser: 'ok',
    publicViewer: 'ok',
    runToken: 'FORBIDDEN',
    otherRunToken: 'FORBIDDEN',
    apiKey: 'FORBIDDEN',
    runtimeKey: 'FORBIDDEN',
    ...unauth,
    ...o,
  };
  // A signed-up stranger is treated as another owner is: the account kind makes no difference.
  return { ...row, signedUp: o.signedUp ?? row.otherOwner };
};
/** The document's owner only; everyone else signed in learns nothing (NOT_FOUND). */
const ownerOnly = (apiKey: Outcome = 'FORBIDDEN'): Record<Principal, Outcome> =>
  people({ otherOwner: 'NOT_FOUND', sharedUser: 'NOT_FOUND', publicViewer: 'NOT_FOUND', apiKey });
/** Run tokens only. */
const agentOnly = (o: Partial<Record<Principal, Outcome>> = {}): Record<Principal, Outcome> => ({
  owner: 'FORBIDDEN',
  signedUp: 'FORBIDDEN',
  otherOwner: 'FORBIDDEN',
  sharedUser: 'FORBIDDEN',
  publicViewer: 'FORBIDDEN',
  runToken: 'ok',
  otherRunToken: 'ok',
  apiKey: 'FORBIDDEN',
  runtimeKey: 'FORBIDDEN',
  ...unauth,
  ...o,
});
/** The hosted runtime's key only (SPEC §7b): every other credential is the wrong kind. */
const runtimeOnly = (): Record<Principal, Outcome> => ({
  ...agentOnly({ runToken: 'FORBIDDEN', otherRunToken: 'FORBIDDEN' }),
  runtimeKey: 'ok',
});

/** The document a principal relates to in the way its name says. */
const docFor = (p: Principal, fx: Fixture) => (p === 'publicViewer' ? fx.dPublic : fx.dPrivate);
const runFor = (p: Principal, fx: Fixture) => (p === 'publicViewer' ? fx.r2 : fx.r1);
const sessionFor = (p: Principal, fx: Fixture) => (p === 'publicViewer' ? fx.s2 : fx.s1);

let s: TestServer;
let fx: Fixture;

function uploadForm(name: string, text: string): FormData {
  const form = new FormData();
  form.append('file', new File([text], name, { type: 'text/plain' }));
  return form;
}

function importForm(bibtex: string): FormData {
  const form = new FormData();
  form.append('file', new File([bibtex], 'refs.bib'));
  return form;
}

async function ok(r: Promise<RawResult>): Promise<Json> {
  const res = await r;
  if (!res.ok) throw new Error(res.text);
  return res.data;
}

async function currentVersion(token: string): Promise<number> {
  return (await ok(s.call('query', 'agent.load', undefined, token))).session.version as number;
}

/** A subscription's first event over SSE, as a call's answer: its item, or the error it ends with. */
async function firstEvent(procedure: string, input: unknown, token: string | undefined): Promise<RawResult> {
  const headers: Record<string, string> = {};
  if (token !== undefined)
    headers.authorization = token.startsWith('RAW ') ? token.slice(4) : `Bearer ${token}`;
  const stream = await openSse(subscriptionUrl(s.url, procedure, input), headers);
  try {
    const e = await stream.next();
    const text = JSON.stringify(e?.data ?? null);
    if (e?.event === 'serialized-error') {
      const error = e.data as NonNullable<RawResult['error']>;
      return { status: stream.status, ok: false, data: undefined, error, text };
    }
    return {
      status: stream.status,
      ok: e !== null && e.event === undefined,
      data: e?.data,
      error: undefined,
      text,
    };
  } finally {
    stream.close();
  }
}

const MATRIX_PASSWORD = 'matrix passphrase';

/** Shares the invitation document with `email` and returns the token of a new link to it. */
async function inviteToken(f: Fixture, email: string): Promise<string> {
  const c = s.client(f.tokens.owner);
  await c.documents.share.mutate({ documentId: f.dInvite, email });
  const { path } = await c.documents.inviteLink.mutate({ documentId: f.dInvite, email });
  return path.replace('/invite/', '');
}

/** Signs up (or in) like a browser and returns the session's token, taken from its cookie. */
async function sessionOf(procedure: 'auth.signUp' | 'auth.signIn', input: unknown): Promise<string> {
  const res = await fetch(`${s.url}/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const value = /sponge_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!res.ok || !value) throw new Error(`${procedure}: ${res.status} ${await res.text()}`);
  return decodeURIComponent(value).split('.')[0]!;
}

const ROWS: Row[] = [
  { procedure: 'health', kind: 'query', expect: all('ok') },
  { procedure: 'auth.demoUsers', kind: 'query', expect: all('ok') },
  { procedure: 'auth.me', kind: 'query', expect: all('ok') },
  { procedure: 'auth.login', kind: 'mutation', input: () => ({ userId: 'user-grace' }), expect: all('ok') },
  { procedure: 'auth.options', kind: 'query', expect: all('ok') },
  // Public: whatever a caller holds, a new account is its own (one per cell here).
  {
    procedure: 'auth.signUp',
    kind: 'mutation',
    input: (p) => ({
      name: `Matrix ${p}`,
      email: `matrix-${p.toLowerCase()}@example.org`,
      password: MATRIX_PASSWORD,
    }),
    expect: all('ok'),
  },
  {
    procedure: 'auth.signIn',
    kind: 'mutation',
    input: () => ({ email: 'signed-up@example.org', password: MATRIX_PASSWORD }),
    expect: all('ok'),
  },
  { procedure: 'auth.createApiKey', kind: 'mutation', input: () => ({ label: 'matrix' }), expect: people() },
  { procedure: 'auth.apiKeys', kind: 'query', expect: people() },
  {
    procedure: 'auth.revokeApiKey',
    kind: 'mutation',
    input: (_p, f) => ({ id: f.spareKeyId }),
    expect: people({ otherOwner: 'NOT_FOUND', sharedUser: 'NOT_FOUND', publicViewer: 'NOT_FOUND' }),
  },
  // Connected agents (SPEC §6c): a person's own, never an agent's business.
  { procedure: 'auth.connectedAgents', kind: 'query', expect: people() },
  {
    procedure: 'auth.revokeConnectedAgent',
    kind: 'mutation',
    // Everyone but the owner aims at the key the apiKey cells go on using.
    input: (p, f) => ({ id: p === 'owner' ? f.spareAgentId : f.liveKeyId }),
    expect: people({ otherOwner: 'NOT_FOUND', sharedUser: 'NOT_FOUND', publicViewer: 'NOT_FOUND' }),
  },
  { procedure: 'documents.list', kind: 'query', expect: people({ apiKey: 'ok' }) },
  {
    procedure: 'documents.get',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: people({ otherOwner: 'NOT_FOUND', apiKey: 'ok' }),
  },
  // One page, for whoever reads the document whole (documents.get).
  {
    procedure: 'documents.page',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f), page: 1 }),
    expect: people({ otherOwner: 'NOT_FOUND', apiKey: 'ok' }),
  },
  {
    procedure: 'documents.search',
    kind: 'query',
    // Narrowed to a document: another's answers like no hits (ok, empty), never NOT_FOUND.
    input: (p, f) => ({ query: 'reef', documentId: docFor(p, f) }),
    expect: people({ apiKey: 'ok' }),
  },
  // Anyone signed in (or their API key) adds to their own library; nobody else's.
  {
    procedure: 'documents.add',
    kind: 'mutation',
    // Each caller's own text: the same one twice in a library is a duplicate (SPEC §6d).
    input: (p) => ({ title: `Matrix ${p}`, text: `A pasted note about the matrix, by ${p}.` }),
    expect: people({ apiKey: 'ok' }),
  },
  {
    procedure: 'documents.upload',
    kind: 'mutation',
    input: (p) => uploadForm(`matrix-${p}.txt`, `An uploaded note about the matrix, by ${p}.`),
    expect: people({ apiKey: 'ok' }),
  },
  {
    procedure: 'documents.reindex',
    kind: 'mutation',
    input: (p, f) => ({ documentId: p === 'owner' ? f.dFailed : docFor(p, f) }),
    expect: ownerOnly(),
  },
  // What a document is (SPEC §6d): its owner edits it, with a session or an API key.
  {
    procedure: 'documents.update',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), tags: [`matrix ${p}`] }),
    expect: ownerOnly('ok'),
  },
  // A reference manager's export comes into the caller's own library (SPEC §6d).
  {
    procedure: 'documents.import',
    kind: 'mutation',
    input: (p) => importForm(`@misc{matrix, title = {Imported by ${p}}, abstract = {A note by ${p}.}}`),
    expect: people({ apiKey: 'ok' }),
  },
  // References of what the caller may read; another owner's document is NOT_FOUND.
  {
    procedure: 'documents.cite',
    kind: 'query',
    input: (p, f) => ({ documentIds: [docFor(p, f)], format: 'bibtex' }),
    expect: people({ otherOwner: 'NOT_FOUND', apiKey: 'ok' }),
  },
  {
    procedure: 'documents.share',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), userId: 'user-bystander' }),
    expect: ownerOnly(),
  },
  // Shares by email wait for the owner (SPEC §6c): only the owner lists, confirms, makes links.
  {
    procedure: 'documents.shares',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'documents.confirmShare',
    kind: 'mutation',
    // The fixture shared the private document with an account's address, waiting.
    input: (p, f) => ({ documentId: docFor(p, f), email: 'invitee@example.org' }),
    expect: ownerOnly(),
  },
  {
    procedure: 'documents.inviteLink',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), email: 'linked@example.org' }),
    expect: ownerOnly(),
  },
  {
    procedure: 'documents.acceptInvite',
    kind: 'mutation',
    // A fresh link of Ada's per cell (one use each): any signed-in person may accept one, not
    // its owner; an API key is the wrong kind.
    input: async (p, f) => ({ token: await inviteToken(f, `invite-${p.toLowerCase()}@example.org`) }),
    expect: people({ owner: 'BAD_REQUEST' }),
    reasons: { owner: 'invalid_input' },
  },
  {
    procedure: 'documents.publish',
    kind: 'mutation',
    input: (p, f) => ({ documentId: p === 'owner' ? f.dPublic : docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'documents.remove',
    kind: 'mutation',
    input: (p, f) => ({ documentId: p === 'owner' ? f.dTrash : docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'runs.accept',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), mode: 'staged' }),
    expect: ownerOnly(),
  },
  {
    procedure: 'runs.list',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly('ok'),
  },
  {
    procedure: 'runs.finish',
    kind: 'mutation',
    input: (p, f) => ({ runId: p === 'owner' ? f.rTrash : runFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'runs.settings',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), memoryInStagedRuns: false }),
    expect: ownerOnly(),
  },
  {
    procedure: 'memory.panel',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f), sessionId: sessionFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'memory.sessions',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'memory.forget',
    kind: 'mutation',
    input: (p, f) => ({ sessionId: p === 'owner' ? f.sTrash : sessionFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'chat.transcript',
    kind: 'query',
    input: (p, f) => ({ runId: runFor(p, f) }),
    expect: ownerOnly(),
  },
  // The first event of the stream (SPEC §7c): an item, or the error the subscription ends with.
  {
    procedure: 'chat.events',
    kind: 'subscription',
    input: (p, f) => ({ runId: runFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'chat.say',
    kind: 'mutation',
    input: (p, f) => ({ runId: runFor(p, f), text: 'hello' }),
    expect: ownerOnly(),
  },
  { procedure: 'agent.load', kind: 'query', expect: agentOnly() },
  {
    procedure: 'agent.remember',
    kind: 'mutation',
    input: async (p) => {
      const token = fx.tokens[p];
      const basedOn = p === 'runToken' || p === 'otherRunToken' ? await currentVersion(token!) : 0;
      return {
        basedOn,
        requestId: `matrix-${p}`,
        changes: [{ op: 'add', name: `lead:matrix-${p.toLowerCase()}`, text: 'matrix' }],
      };
    },
    expect: agentOnly(),
  },
  {
    procedure: 'agent.query',
    kind: 'query',
    input: () => ({ question: 'current_notes' }),
    expect: agentOnly(),
  },
  {
    procedure: 'agent.read',
    kind: 'query',
    // Another run asking for R1's note by name finds nothing: sessions never see each other.
    input: () => ({ name: 'lead:secret-alpha' }),
    expect: agentOnly({ otherRunToken: 'NOT_FOUND' }),
    reasons: { otherRunToken: 'no_such_note' },
  },
  {
    procedure: 'agent.explain',
    kind: 'query',
    // R1's explain token is bound to R1's session: foreign to any other run.
    input: (_p, f) => ({ token: f.explainR1, row: 0 }),
    expect: agentOnly({ otherRunToken: 'BAD_REQUEST' }),
  },
  { procedure: 'agent.recall', kind: 'query', input: () => ({ text: 'reef' }), expect: agentOnly() },
  { procedure: 'agent.say', kind: 'mutation', input: () => ({ text: 'hi' }), expect: agentOnly() },
  { procedure: 'agent.document', kind: 'query', expect: agentOnly() },
  { procedure: 'agent.turns', kind: 'query', expect: agentOnly() },
  // The library tools search and read the run owner's own library: another owner's run finds
  // nothing of Ada's (no hits), and reading her document is NOT_FOUND, as a missing one is.
  {
    procedure: 'library.search',
    kind: 'query',
    input: (_p, f) => ({ query: 'reef', documentId: f.dPrivate }),
    expect: agentOnly(),
  },
  {
    procedure: 'library.read',
    kind: 'query',
    input: (_p, f) => ({ documentId: f.dPrivate, length: 200 }),
    expect: agentOnly({ otherRunToken: 'NOT_FOUND' }),
  },
  {
    procedure: 'chat.ask',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), text: 'what does table 3 say?' }),
    expect: ownerOnly(),
  },
  { procedure: 'runtime.pending', kind: 'query', expect: runtimeOnly() },
  // Claim, then finish, a run of its own that nobody claimed yet (a claim holds a lease).
  {
    procedure: 'runtime.claim',
    kind: 'mutation',
    input: (_p, f) => ({ runId: f.rRuntime }),
    expect: runtimeOnly(),
  },
  { procedure: 'runtime.renew', kind: 'mutation', input: (_p, f) => f.rLease, expect: runtimeOnly() },
  { procedure: 'runtime.release', kind: 'mutation', input: (_p, f) => f.rLease, expect: runtimeOnly() },
  {
    procedure: 'runtime.finish',
    kind: 'mutation',
    input: (_p, f) => ({ runId: f.rRuntime }),
    expect: runtimeOnly(),
  },
  {
    procedure: 'profiles.list',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  { procedure: 'profiles.preview', kind: 'query', input: () => ({ name: 'research' }), expect: people() },
  {
    procedure: 'profiles.install',
    kind: 'mutation',
    input: (p, f) => ({ documentId: docFor(p, f), name: 'language' }),
    expect: ownerOnly(),
  },
  {
    procedure: 'profiles.installed',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    // A reject on the reef document (the seed installed Research there): valid for its owner.
    input: (p, f) => ({
      documentId: docFor(p, f),
      profile: 'research',
      kind: 'finding',
      name: 'finding:matrix',
      text: 'matrix',
      fields: { statement: 'matrix', study: 'study:matrix' },
      sourceDocumentId: f.dPrivate,
      passage: 'Recovery was uneven.',
      decision: 'reject',
      comment: 'matrix',
    }),
    expect: ownerOnly(),
  },
  {
    procedure: 'review.history',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  {
    procedure: 'review.export',
    kind: 'query',
    input: (p, f) => ({ documentId: docFor(p, f) }),
    expect: ownerOnly(),
  },
  // Last: logging out revokes the callers' tokens.
  { procedure: 'auth.logout', kind: 'mutation', expect: all('ok') },
];

/** Markers of working notes: R1's (ALPHA) and R2's (BETA). */
const ALPHA = ['lead:secret-alpha', 'SECRET-NOTE-ALPHA'];
const BETA = ['lead:secret-beta', 'SECRET-NOTE-BETA'];
/** Who may ever see each session's notes. */
const MAY_SEE_ALPHA: ReadonlySet<Principal> = new Set(['owner', 'runToken']);
const MAY_SEE_BETA: ReadonlySet<Principal> = new Set(['owner']);

beforeAll(async () => {
  // Every cell signs up from this one address: room for them all.
  s = await startTestServer(
    { SIGNUP: 'open' },
    {
      authLimits: {
        failuresPerAccount: 5,
        failuresPerAddress: 20,
        signUpsPerAddress: 100,
        windowSeconds: 900,
      },
    },
  );
  const now = new Date();
  await insertUser(s.app.app, { id: 'user-vera', name: 'Vera Viewer', isDemo: true }, now);
  await insertUser(s.app.app, { id: 'user-bystander', name: 'Bo Bystander', isDemo: false }, now);
  const ada = await s.login('user-ada');
  const grace = await s.login('user-grace');
  const rosalind = await s.login('user-rosalind');
  const vera = await s.login('user-vera');
  const c = s.client(ada);
  const mine = await c.documents.list.query();
  const own = mine.filter((d) => d.access === 'owner').map((d) => d.id);
  const [dPrivate, dPublic, dTrash] = [
    own.find((d) => d === 'doc-reef-recovery-2016')!,
    own.find((d) => d === 'doc-sea-surface-temperature')!,
    own.find((d) => d === 'doc-survey-methods')!,
  ];
  await c.documents.publish.mutate({ documentId: dPublic });
  const { id: dFailed } = await c.documents.add.mutate({ title: 'Failed indexing', text: 'Nothing to see.' });
  const { id: dInvite } = await c.documents.add.mutate({ title: 'Invitations', text: 'Shared by link.' });
  await insertUser(
    s.app.app,
    { id: 'user-invitee', name: 'Ivy Invitee', isDemo: false, email: 'invitee@example.org' },
    now,
  );
  await c.documents.share.mutate({ documentId: dPrivate, email: 'invitee@example.org' });
  await c.documents.share.mutate({ documentId: dPrivate, email: 'linked@example.org' });
  await s.app.library.indexer.idle();
  await s.app.app.execute({
    sql: `UPDATE documents SET index_state = 'failed', index_error = 'test' WHERE id = ?`,
    args: [dFailed],
  });
  const r1 = await s.acceptRun(ada, { documentId: dPrivate, mode: 'chat' });
  const r2 = await s.acceptRun(ada, { documentId: dPublic, mode: 'chat' });
  const rTrash = await s.acceptRun(ada, { documentId: dPrivate, mode: 'chat' });
  const rRuntime = await c.runs.accept.mutate({ documentId: dPrivate, mode: 'chat' });
  const rLease = await s.acceptRun(ada, { documentId: dPrivate, mode: 'chat' });
  const gDocs = await s.client(grace).documents.list.query();
  const r3 = await s.acceptRun(grace, {
    documentId: gDocs.find((d) => d.access === 'owner')!.id,
    mode: 'chat',
  });
  await s.client(r1.runToken).agent.remember.mutate({
    basedOn: 0,
    requestId: 'alpha',
    changes: [{ op: 'add', name: 'lead:secret-alpha', text: 'SECRET-NOTE-ALPHA about the reef' }],
  });
  await s.client(r2.runToken).agent.remember.mutate({
    basedOn: 0,
    requestId: 'beta',
    changes: [{ op: 'add', name: 'lead:secret-beta', text: 'SECRET-NOTE-BETA about temperatures' }],
  });
  const explainR1 = (await s.client(r1.runToken).agent.query.query({ question: 'current_notes' }))
    .explainToken;
  const signedUp = await sessionOf('auth.signUp', {
    name: 'Sam Signup',
    email: 'signed-up@example.org',
    password: MATRIX_PASSWORD,
  });
  const disabled = await sessionOf('auth.signUp', {
    name: 'Dee Disabled',
    email: 'disabled@example.org',
    password: MATRIX_PASSWORD,
  });
  const { id: deesDocument } = await ok(
    s.call(
      'mutation',
      'documents.add',
      { title: 'Dee’s notes', text: 'A note before the account was disabled.' },
      disabled,
    ),
  );
  const disabledRun = await s.acceptRun(disabled, { documentId: deesDocument, mode: 'chat' });
  // Only the flag, not the sessions or runs (the users command ends those too): the flag alone must stop them.
  await s.app.app.execute(
    `UPDATE users SET disabled_at = '2026-01-01T00:00:00.000Z' WHERE email = 'disabled@example.org'`,
  );
  const signedOut = await sessionOf('auth.signIn', {
    email: 'signed-up@example.org',
    password: MATRIX_PASSWORD,
  });
  await ok(s.call('mutation', 'auth.logout', undefined, signedOut));
  const apiKey = await c.auth.createApiKey.mutate({ label: 'matrix key' });
  const spare = await c.auth.createApiKey.mutate({ label: 'spare' });
  const spareAgent = await c.auth.createApiKey.mutate({ label: 'spare agent' });
  fx = {
    tokens: {
      owner: ada,
      otherOwner: grace,
      sharedUser: rosalind,
      publicViewer: vera,
      runToken: r1.runToken,
      otherRunToken: r3.runToken,
      apiKey: apiKey.apiKey,
      runtimeKey: TEST_RUNTIME_KEY,
      purgeKey: 'smoke-purge-key-0123456789abcdef',
      none: undefined,
      malformed: 'RAW Bearer ut_this-is-not-a-token',
      signedUp,
      disabled,
      disabledRunToken: disabledRun.runToken,
      signedOut,
    },
    dPrivate,
    dPublic,
    r1: r1.runId,
    s1: r1.sessionId!,
    r2: r2.runId,
    s2: r2.sessionId!,
    dTrash,
    dFailed,
    dInvite,
    rTrash: rTrash.runId,
    sTrash: rTrash.sessionId!,
    spareKeyId: spare.id,
    spareAgentId: spareAgent.id,
    liveKeyId: apiKey.id,
    rRuntime: rRuntime.runId,
    rLease: { runId: rLease.runId, runToken: rLease.runToken },
    explainR1,
  };
});
afterAll(async () => {
  await s?.close();
});

describe('authorization matrix', () => {
  const results: Array<{
    procedure: string;
    principal: Principal;
    expected: string;
    got: string;
    pass: boolean;
  }> = [];

  for (const row of ROWS) {
    it(`${row.procedure} × ${PRINCIPALS.length} callers`, async () => {
      for (const p of PRINCIPALS) {
        const input = row.input ? await row.input(p, fx) : undefined;
        const r =
          row.kind === 'subscription'
            ? await firstEvent(row.procedure, input, fx.tokens[p])
            : await s.call(row.kind, row.procedure, input, fx.tokens[p]);
        const expected = row.expect[p];
        const got = r.ok ? 'ok' : `${r.error?.data.code}/${r.error?.data.reason}`;
        const want = expected === 'ok' ? 'ok' : `${expected}/${row.reasons?.[p] ?? REASON[expected]}`;
        // A marker the caller itself sent (a name it asked for) may be echoed back; anything else is a leak.
        const sent = JSON.stringify(input ?? null);
        const leaks = [...(MAY_SEE_ALPHA.has(p) ? [] : ALPHA), ...(MAY_SEE_BETA.has(p) ? [] : BETA)].filter(
          (m) => r.text.includes(m) && !sent.includes(m),
        );
        results.push({
          procedure: row.procedure,
          principal: p,
          expected: want,
          got,
          pass: got === want && leaks.length === 0,
        });
        expect({ cell: `${row.procedure} as ${p}`, got, leaks }).toEqual({
          cell: `${row.procedure} as ${p}`,
          got: want,
          leaks: [],
        });
        if (!r.ok) expect(r.status).toBeLessThan(500);
      }
    });
  }

  it('covers every procedure of the router, and records the matrix', async () => {
    const { appRouter } = await import('./router.ts');
    const procedures = Object.keys(appRouter._def.procedures).sort();
    expect(ROWS.map((r) => r.procedure).sort()).toEqual(procedures);
    const failed = results.filter((r) => !r.pass);
    const summary = `authorization matrix: ${ROWS.length} procedures × ${PRINCIPALS.length} callers = ${results.length} cells, ${results.length - failed.length} passed, ${failed.length} failed`;
    console.log(summary);
    if (process.env.MATRIX_REPORT)
      writeFileSync(process.env.MATRIX_REPORT, JSON.stringify({ summary, results }, null, 2));
    expect(results.length).toBe(ROWS.length * PRINCIPALS.length);
    expect(failed).toEqual([]);
  });
});
