/**
 * Text inputs over real HTTP (SPEC §6c). libSQL hands text back cut off at the first U+0000
 * (`"abc\u0000def"` is read as `"abc"`), and a lone surrogate has no UTF-8 form: every procedure
 * that takes text refuses both as invalid_input, naming the field, and stores nothing (both
 * databases dumped before and after). Titles and file names lose control and bidi characters;
 * body text loses control characters; emoji and other Unicode come back exactly as sent.
 */
import { createHash } from 'node:crypto';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';

let s: TestServer;
let ada: string;
let run: { runId: string; runToken: string; sessionId: string | null };

/** Every row of every table of a database, digested, so any write shows. */
async function dump(url: string): Promise<Record<string, string>> {
  const db = createClient({ url });
  try {
    const tables = await db.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    );
    const out: Record<string, string> = {};
    for (const t of tables.rows) {
      const rs = await db.execute(`SELECT * FROM "${String(t.name).replaceAll('"', '""')}"`);
      const rows = rs.rows.map((r) =>
        JSON.stringify(
          rs.columns.map((c) => (r[c] instanceof ArrayBuffer ? Buffer.from(r[c]).toString('base64') : r[c])),
        ),
      );
      rows.sort();
      out[String(t.name)] = `${rows.length} ${createHash('sha256').update(rows.join('\n')).digest('hex')}`;
    }
    return out;
  } finally {
    db.close();
  }
}

const state = async () => ({ memory: await dump(s.memoryUrl), app: await dump(s.appUrl) });

/**
 * The state once background work after the set-up has finished: the seed library indexed and
 * every note embedded. Waited for, not guessed: recall's background pauses can outlast any poll.
 */
async function settledState(): Promise<unknown> {
  await s.app.library.indexer.idle();
  await s.app.store.drainRecall();
  return state();
}

const BAD = [
  ['U+0000', 'abc\u0000def', 'contains U+0000'],
  ['a lone surrogate', 'abc\uD83Ddef', 'contains a lone UTF-16 surrogate'],
] as const;

type Case = {
  procedure: string;
  kind: 'query' | 'mutation';
  /** The field the message names. */
  field: string;
  input: (bad: string) => unknown;
  token: () => string;
};

const decide = (over: Record<string, unknown>) => ({
  documentId: REEF_DOCUMENT_ID,
  profile: 'research',
  kind: 'finding',
  name: 'finding:text-inputs',
  text: 'A finding.',
  fields: {
    statement: 'Grazing fish matter.',
    study: 'study:reef-resurvey-2016',
    effectMeasure: 'percent-change',
  },
  sourceDocumentId: REEF_DOCUMENT_ID,
  passage: 'We resurveyed 112 sites',
  decision: 'reject',
  comment: 'A comment.',
  ...over,
});
const remember = (change: Record<string, unknown>) => ({
  basedOn: 0,
  requestId: 'text-1',
  changes: [{ op: 'add', name: 'lead:text', text: 'a note', ...change }],
});

const owner = () => ada;
const agent = () => run.runToken;
const cases: Case[] = [
  {
    procedure: 'documents.add',
    kind: 'mutation',
    field: 'title',
    token: owner,
    input: (b) => ({ title: b, text: 'Text.' }),
  },
  {
    procedure: 'documents.add',
    kind: 'mutation',
    field: 'text',
    token: owner,
    input: (b) => ({ title: 'T', text: b }),
  },
  {
    procedure: 'documents.add',
    kind: 'mutation',
    field: 'an author',
    token: owner,
    input: (b) => ({ title: 'T', text: 'Text.', authors: [b] }),
  },
  {
    procedure: 'documents.search',
    kind: 'query',
    field: 'query',
    token: owner,
    input: (b) => ({ query: b }),
  },
  {
    procedure: 'auth.createApiKey',
    kind: 'mutation',
    field: 'label',
    token: owner,
    input: (b) => ({ label: b }),
  },
  { procedure: 'auth.login', kind: 'mutation', field: 'the id', token: owner, input: (b) => ({ userId: b }) },
  {
    procedure: 'chat.ask',
    kind: 'mutation',
    field: 'text',
    token: owner,
    input: (b) => ({ documentId: REEF_DOCUMENT_ID, text: b }),
  },
  {
    procedure: 'chat.say',
    kind: 'mutation',
    field: 'text',
    token: owner,
    input: (b) => ({ runId: run.runId, text: b }),
  },
  { procedure: 'agent.say', kind: 'mutation', field: 'text', token: agent, input: (b) => ({ text: b }) },
  {
    procedure: 'agent.remember',
    kind: 'mutation',
    field: 'text',
    token: agent,
    input: (b) => remember({ text: b }),
  },
  {
    procedure: 'agent.remember',
    kind: 'mutation',
    field: 'data',
    token: agent,
    input: (b) => remember({ data: { deep: [{ value: b }] } }),
  },
  {
    procedure: 'agent.remember',
    kind: 'mutation',
    field: 'a field name in data',
    token: agent,
    input: (b) => remember({ data: { [b]: 1 } }),
  },
  {
    procedure: 'agent.remember',
    kind: 'mutation',
    field: 'name',
    token: agent,
    input: (b) => remember({ name: `lead:${b}` }),
  },
  { procedure: 'agent.recall', kind: 'query', field: 'text', token: agent, input: (b) => ({ text: b }) },
  { procedure: 'agent.read', kind: 'query', field: 'name', token: agent, input: (b) => ({ name: b }) },
  {
    procedure: 'agent.query',
    kind: 'query',
    field: 'cursor',
    token: agent,
    input: (b) => ({ question: 'current_notes', cursor: b }),
  },
  {
    procedure: 'agent.explain',
    kind: 'query',
    field: 'token',
    token: agent,
    input: (b) => ({ token: b, row: 0 }),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    field: 'comment',
    token: owner,
    input: (b) => decide({ comment: b }),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    field: 'text',
    token: owner,
    input: (b) => decide({ text: b }),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    field: 'passage',
    token: owner,
    input: (b) => decide({ passage: b }),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    field: 'fields',
    token: owner,
    input: (b) => decide({ fields: { statement: b, study: 'study:reef-resurvey-2016' } }),
  },
  {
    procedure: 'review.decide',
    kind: 'mutation',
    field: 'a field name in fields',
    token: owner,
    input: (b) => decide({ fields: { statement: 'S.', [b]: 'x' } }),
  },
  { procedure: 'profiles.preview', kind: 'query', field: 'name', token: owner, input: (b) => ({ name: b }) },
  {
    procedure: 'profiles.install',
    kind: 'mutation',
    field: 'name',
    token: owner,
    input: (b) => ({ documentId: REEF_DOCUMENT_ID, name: b }),
  },
  {
    procedure: 'runs.accept',
    kind: 'mutation',
    field: 'the id',
    token: owner,
    input: (b) => ({ documentId: b, mode: 'chat' }),
  },
];

function textFile(name: string, text: string, title?: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type: 'text/plain' }), name);
  if (title !== undefined) form.append('title', title);
  return form;
}

beforeAll(async () => {
  [s, ada] = await startSignedIn('user-ada');
  run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
}, 60_000);

afterAll(() => s?.close());

describe('U+0000 and lone surrogates', () => {
  for (const [what, bad, words] of BAD) {
    it(`are refused in every text of every procedure (${what}): 400 invalid_input naming the field, nothing stored`, async () => {
      const before = await settledState();
      const wrong: string[] = [];
      for (const c of cases) {
        const r = await s.call(c.kind, c.procedure, c.input(bad), c.token());
        const message = r.error?.message ?? '';
        if (
          r.status !== 400 ||
          r.error?.data.reason !== 'invalid_input' ||
          !message.includes(`${c.field} ${words}`)
        )
          wrong.push(`${c.procedure} ${c.field}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      // The upload's title field. A multipart form carries UTF-8, where a lone surrogate cannot
      // be written: the client sends U+FFFD instead, so only U+0000 reaches the server there.
      if (bad.includes('\u0000')) {
        const upload = await s.call(
          'mutation',
          'documents.upload',
          textFile('notes.txt', 'Some text.', bad),
          ada,
        );
        if (upload.status !== 400 || !upload.error?.message.includes(`title ${words}`))
          wrong.push(`documents.upload title: ${upload.status} ${upload.text.slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
      expect(await state()).toEqual(before);
    }, 60_000);
  }
});

describe('what is kept and what is cleaned', () => {
  const UNICODE = 'Récifs 珊瑚礁 \u{1F41F}\u{1F3DD}\uFE0F e\u0301 עברית';

  it('keeps emoji (surrogate pairs) and other Unicode in titles, text, messages and notes', async () => {
    const doc: Json = (
      await s.call(
        'mutation',
        'documents.add',
        { title: UNICODE, text: `${UNICODE}\n\tline two`, authors: [UNICODE] },
        ada,
      )
    ).data;
    const got: Json = (await s.call('query', 'documents.get', { documentId: doc.id }, ada)).data;
    expect(got).toMatchObject({ title: UNICODE, authors: [UNICODE], text: `${UNICODE}\n\tline two` });

    expect((await s.call('mutation', 'agent.say', { text: UNICODE }, run.runToken)).status).toBe(200);
    const turns: Json = (await s.call('query', 'agent.turns', undefined, run.runToken)).data;
    expect(turns.at(-1)).toMatchObject({ text: UNICODE });

    const data = { [UNICODE]: [UNICODE, { k: UNICODE }] };
    const written = await s.call(
      'mutation',
      'agent.remember',
      remember({ name: 'lead:unicode', text: UNICODE, data }),
      run.runToken,
    );
    expect(written.status).toBe(200);
    const read: Json = (await s.call('query', 'agent.read', { name: 'lead:unicode' }, run.runToken)).data;
    expect(read).toMatchObject({ text: UNICODE, data });
  });

  it('strips control and bidi characters from titles, authors and API-key labels, and control characters from body text', async () => {
    const doc: Json = (
      await s.call(
        'mutation',
        'documents.add',
        {
          title: ' Invoice\u202E\u2066 2019\n\tfinal\u0007 ',
          authors: ['Ada\u200F Lovelace\u001b'],
          text: 'Bell\u0007 and escape\u001b[31m, tab\tand\r\nlines\u0085.',
        },
        ada,
      )
    ).data;
    const got: Json = (await s.call('query', 'documents.get', { documentId: doc.id }, ada)).data;
    expect(got.title).toBe('Invoice 2019 final');
    expect(got.authors).toEqual(['Ada Lovelace']);
    // documents.add makes CRLF an LF; the C1 control NEL goes.
    expect(got.text).toBe('Bell and escape[31m, tab\tand\nlines.');

    const key = await s.call('mutation', 'auth.createApiKey', { label: 'ci\u202E bot\nnightly' }, ada);
    expect(key.status).toBe(200);
    const keys: Json = (await s.call('query', 'auth.apiKeys', undefined, ada)).data;
    expect(keys.map((k: Json) => k.label)).toContain('ci bot nightly');
  });

  it("cleans an upload's title field and a title made from its file name", async () => {
    const titled: Json = (
      await s.call(
        'mutation',
        'documents.upload',
        textFile('a.txt', 'Kelp text.', '\u2067Kelp\u2069\tcanopy\u0001'),
        ada,
      )
    ).data;
    expect((await s.call('query', 'documents.get', { documentId: titled.id }, ada)).data.title).toBe(
      'Kelp canopy',
    );
    const named: Json = (
      await s.call(
        'mutation',
        'documents.upload',
        textFile('\u202Ekelp\u0007_survey\u200E.txt', 'Kelp survey text.'),
        ada,
      )
    ).data;
    expect((await s.call('query', 'documents.get', { documentId: named.id }, ada)).data.title).toBe(
      'kelp survey',
    );
  });
});
