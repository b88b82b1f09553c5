import { describe, expect, it } from 'vitest';
import { cleanBody, textProblem } from '@oh/schema';
import {
  LIMITS,
  SPONGE_LIMITS,
  cleanLine,
  dataSchema,
  inputBoundsProblem,
  ownerInputs,
  rememberInputSchema,
  sayInputSchema,
  toolArgsSchemas,
  uploadFieldsSchema,
} from './index.ts';
import { documentTitleSchema } from './owner-inputs.ts';
import { toolInputSchemas } from './tools.ts';
import type { z } from 'zod';

const NUL = 'a\u0000b';
const LONE = 'a\uD83Db'; // the high half of 🐟 alone
const FISH = 'fish \u{1F41F}, café, 日本語, עברית, e\u0301';

/** A valid input of every owner procedure: each string in it is broken in turn below. */
const ownerSamples: { [P in keyof typeof ownerInputs]: unknown } = {
  'auth.login': { userId: 'user-ada' },
  'auth.signUp': { name: 'Ada Lovelace', email: 'ada@example.org', password: 'a long passphrase' },
  'auth.signIn': { email: 'ada@example.org', password: 'a long passphrase' },
  'auth.createApiKey': { label: 'my agent' },
  'auth.revokeApiKey': { id: 'key_1' },
  'auth.revokeConnectedAgent': { id: 'key_1' },
  'documents.get': { documentId: 'doc-1' },
  'documents.page': { documentId: 'doc-1', page: 3 },
  'documents.search': { query: 'reef', limit: 5 },
  'documents.add': { title: 'Reefs', authors: ['Ada'], text: 'Some text.', format: 'markdown' },
  'documents.reindex': { documentId: 'doc-1' },
  'documents.cite': { documentIds: ['doc-1'], format: 'text', style: 'apa' },
  'documents.update': { documentId: 'doc-1', title: 'Reefs', tags: ['corals'], doi: '10.1038/nature21707' },
  'documents.share': { documentId: 'doc-1', userId: 'user-grace' },
  'documents.shares': { documentId: 'doc-1' },
  'documents.confirmShare': { documentId: 'doc-1', email: 'bob@example.org' },
  'documents.inviteLink': { documentId: 'doc-1', email: 'bob@example.org' },
  'documents.acceptInvite': { token: 'abc' },
  'documents.publish': { documentId: 'doc-1' },
  'documents.remove': { documentId: 'doc-1' },
  'runs.accept': { documentId: 'doc-1', mode: 'chat' },
  'runs.list': { documentId: 'doc-1' },
  'runs.finish': { runId: 'run-1' },
  'runs.settings': { documentId: 'doc-1', memoryInStagedRuns: true },
  'chat.transcript': { runId: 'run-1' },
  'chat.say': { runId: 'run-1', text: 'hello' },
  'chat.ask': { documentId: 'doc-1', text: 'hello', runId: 'run-1' },
  'runtime.pending': { waitSeconds: 1, ignore: ['run-1'] },
  'runtime.claim': { runId: 'run-1' },
  'runtime.finish': { runId: 'run-1' },
  'runtime.renew': { runId: 'run-1', runToken: 'rt_1' },
  'runtime.release': { runId: 'run-1', runToken: 'rt_1' },
  'memory.panel': { documentId: 'doc-1', sessionId: 'ses-1' },
  'memory.forget': { sessionId: 'ses-1' },
  'memory.sessions': { documentId: 'doc-1' },
  'profiles.list': { documentId: 'doc-1' },
  'profiles.preview': { name: 'research' },
  'profiles.install': { documentId: 'doc-1', name: 'research' },
  'profiles.installed': { documentId: 'doc-1' },
  'review.decide': {
    documentId: 'doc-1',
    fromSession: 'ses-1',
    fromNote: 'lead:x',
    profile: 'research',
    kind: 'finding',
    fields: { statement: 'A statement.', tags: ['a', { deep: 'b' }] },
    name: 'finding:x',
    text: 'A finding.',
    sourceDocumentId: 'doc-1',
    passage: 'a passage',
    decision: 'accept',
    comment: 'ok',
    with: [{ kind: 'study', name: 'study:y', text: 'A study.', fields: { title: 'Y' }, passage: 'another' }],
  },
  'review.history': { documentId: 'doc-1' },
  'review.export': { documentId: 'doc-1', revision: 0 },
};

const toolSamples: Array<[string, z.ZodType, unknown]> = [
  [
    'agent.remember',
    toolInputSchemas.remember,
    {
      basedOn: 0,
      requestId: 'r-1',
      changes: [
        {
          op: 'add',
          name: 'lead:a',
          text: 'a note',
          data: { k: 'v', list: ['x', { y: 'z' }] },
          links: [{ rel: 'supports', to: 'lead:b' }],
        },
        { op: 'remove', name: 'lead:c' },
      ],
    },
  ],
  ['agent.query', toolInputSchemas.query, { question: 'related_to', name: 'lead:a', limit: 5, cursor: 'c' }],
  ['agent.read', toolInputSchemas.read, { name: 'lead:a', source: 'note', digest: 'a'.repeat(64) }],
  ['agent.explain', toolInputSchemas.explain, { token: 't.s', row: 0 }],
  ['agent.recall', toolInputSchemas.recall, { text: 'reef', limit: 3 }],
  ['model explain', toolArgsSchemas.explain, { row: 0, answerId: 'ans-1', token: 't' }],
  ['agent.say', sayInputSchema, { text: 'hello' }],
  ['documents.upload', uploadFieldsSchema, { title: 'A file' }],
];

/** Fields whose value is one of a fixed list: a NUL there is refused as "not one of". */
const ENUMS = new Set(['mode', 'format', 'style', 'decision', 'op', 'rel', 'question', 'source']);

type Leaf = { path: Array<string | number>; value: string; key: boolean };

/** Every string in a sample, object keys of free-form JSON (data, fields) included. */
function strings(value: unknown, path: Array<string | number> = [], inJson = false): Leaf[] {
  if (typeof value === 'string') return [{ path, value, key: false }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, [...path, i], inJson));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => {
      const json = inJson || k === 'data' || k === 'fields';
      const own = inJson ? [{ path: [...path, k], value: k, key: true }] : [];
      return [...own, ...strings(v, [...path, k], json)];
    });
  return [];
}

/** `sample` with the string at `leaf` replaced by `bad` (a key renamed, a value replaced). */
function broken(sample: unknown, leaf: Leaf, bad: string): unknown {
  const copy = structuredClone(sample) as Record<string | number, unknown>;
  let at = copy;
  for (const k of leaf.path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  const last = leaf.path.at(-1)!;
  if (leaf.key) {
    at[bad] = at[last];
    delete at[last];
  } else at[last] = bad;
  return copy;
}

const samples: Array<[string, z.ZodType, unknown]> = [
  ...Object.entries(ownerSamples).map(
    ([p, v]) =>
      [p, ownerInputs[p as keyof typeof ownerInputs] as z.ZodType, v] as [string, z.ZodType, unknown],
  ),
  ...toolSamples,
];

describe('text inputs of the contract', () => {
  it('has a sample of every owner procedure, and every sample is valid', () => {
    expect(Object.keys(ownerSamples).sort()).toEqual(Object.keys(ownerInputs).sort());
    for (const [p, schema, sample] of samples) expect(schema.safeParse(sample).error, p).toBeUndefined();
  });

  it.each([
    ['U+0000', NUL, 'U+0000'],
    ['a lone surrogate', LONE, 'lone UTF-16 surrogate'],
  ])(
    'refuses %s in every string of every input, JSON field names included, naming the field',
    (_, bad, words) => {
      let checked = 0;
      for (const [p, schema, sample] of samples) {
        for (const leaf of strings(sample)) {
          const result = schema.safeParse(broken(sample, leaf, bad));
          const where = `${p} ${leaf.key ? 'key ' : ''}${leaf.path.join('.')}`;
          expect(result.success, where).toBe(false);
          checked++;
          if (ENUMS.has(String(leaf.path.at(-1))) && !leaf.key) continue;
          const messages = result.error!.issues.map((i) => i.message).join('; ');
          expect(messages, where).toContain(words);
          // The message names the field (or the id, field name or JSON value it is in).
          expect(messages, where).toMatch(/^(the id|an? [a-z ]+|data|fields|[a-zA-Z]+) contains/);
        }
      }
      expect(checked).toBeGreaterThan(80);
    },
  );

  it('keeps ordinary Unicode and emoji (surrogate pairs) as they are', () => {
    expect(textProblem('text', FISH)).toBeNull();
    const add = ownerInputs['documents.add'].parse({ title: FISH, text: FISH, authors: [FISH] });
    expect(add).toMatchObject({ title: FISH, text: FISH, authors: [FISH] });
    expect(dataSchema.parse({ [FISH]: [FISH] })).toEqual({ [FISH]: [FISH] });
    expect(ownerInputs['chat.ask'].parse({ documentId: 'd', text: FISH }).text).toBe(FISH);
  });

  it('strips control characters from body text but keeps tab, line feed and carriage return', () => {
    expect(cleanBody('a\u0001b\u0007c\u001bd\u007fe\u0085f\u009fg\t\n\rh')).toBe('abcdefg\t\n\rh');
    expect(ownerInputs['chat.ask'].parse({ documentId: 'd', text: 'hi\u0007 there\u001b[31m' }).text).toBe(
      'hi there[31m',
    );
    expect(ownerInputs['documents.add'].parse({ title: 't', text: 'line 1\r\nline\u0008 2' }).text).toBe(
      'line 1\r\nline 2',
    );
    // Text of nothing but controls is empty.
    expect(ownerInputs['documents.add'].safeParse({ title: 't', text: '\u0001\u0002' }).success).toBe(false);
  });

  it('makes titles, authors, labels and file names one line without bidi controls', () => {
    expect(cleanLine('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    // A title nobody typed (a PDF's metadata, a file name) is cleaned, never refused.
    expect(cleanLine('a\u0000b\uD800c\u{1F41F}')).toBe('ab\uFFFDc\u{1F41F}');
    expect(cleanLine('a\u2066b\u2069c\u200Ed\u200Fe\u061Cf\u202Ag\u202Bh\u202Ci\u202Dj')).toBe('abcdefghij');
    expect(cleanLine('one\ntwo\r\nthree\tfour\u2028five\u0085six\u0007')).toBe('one two three four five six');
    expect(documentTitleSchema.parse('  Report\u202E\n2019\u0007  ')).toBe('Report 2019');
    expect(uploadFieldsSchema.parse({ title: '\u2067Kelp\u2069\tcanopy' })).toEqual({ title: 'Kelp canopy' });
    expect(ownerInputs['auth.createApiKey'].parse({ label: 'ci\nbot\u202E' })).toEqual({ label: 'ci bot' });
    expect(
      ownerInputs['documents.add'].parse({ title: 't', text: 'x', authors: ['A\u202Eda'] }).authors,
    ).toEqual(['Ada']);
    // A title of nothing but controls is empty, and refused as such.
    expect(documentTitleSchema.safeParse('\u202E\u0007\n').error?.issues[0]?.message).toBe(
      'title must not be empty',
    );
  });

  it('leaves record text as the agent wrote it, apart from the refusals', () => {
    const text = 'bell\u0007 and \u202E kept';
    const parsed = rememberInputSchema.parse({
      basedOn: 0,
      requestId: 'r',
      changes: [{ op: 'add', name: 'lead:a', text }],
    });
    expect(parsed.changes[0]).toMatchObject({ text });
  });
});

describe('the bounds on an input', () => {
  const nested = (depth: number, shape: 'array' | 'object'): unknown =>
    JSON.parse(
      shape === 'array'
        ? '['.repeat(depth) + ']'.repeat(depth)
        : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth),
    );

  it.each(['array', 'object'] as const)(
    'takes %s nesting up to the limit and refuses one level more',
    (shape) => {
      expect(inputBoundsProblem(nested(LIMITS.inputDepth, shape))).toBeNull();
      expect(inputBoundsProblem(nested(LIMITS.inputDepth + 1, shape))).toBe(
        'Input is nested deeper than 64 levels (arrays and objects).',
      );
    },
  );

  it('walks 10^5 levels without running out of stack', () => {
    // JSON.parse of such a body does not throw either (V8 parses JSON without recursion).
    for (const shape of ['array', 'object'] as const)
      expect(inputBoundsProblem(nested(100_000, shape))).toMatch(/deeper than 64 levels/);
  });

  it('refuses more values than any valid input holds', () => {
    expect(inputBoundsProblem(new Array(SPONGE_LIMITS.inputValues - 1).fill(0))).toBeNull();
    expect(inputBoundsProblem([new Array(SPONGE_LIMITS.inputValues).fill(0)])).toMatch(
      /more than 1,048,576 values/,
    );
    expect(inputBoundsProblem({ a: new Array(SPONGE_LIMITS.inputValues).fill({}) })).toMatch(/more than/);
  });

  it('treats anything but arrays and plain objects as a leaf', () => {
    expect(inputBoundsProblem(undefined)).toBeNull();
    expect(inputBoundsProblem('x'.repeat(1_000))).toBeNull();
    const form = new FormData();
    form.set('title', 't');
    expect(inputBoundsProblem(form)).toBeNull();
  });

  it('refuses data and review fields nested deeper than the limit', () => {
    const deep = nested(LIMITS.inputDepth + 1, 'array');
    expect(dataSchema.safeParse(deep).error?.issues[0]?.message).toBe('data is nested deeper than 64 levels');
    expect(dataSchema.safeParse(nested(LIMITS.inputDepth, 'array')).success).toBe(true);
    const decide = { ...(ownerSamples['review.decide'] as object), fields: { x: deep } };
    expect(ownerInputs['review.decide'].safeParse(decide).error?.issues[0]?.message).toBe(
      'fields is nested deeper than 64 levels',
    );
  });
});
