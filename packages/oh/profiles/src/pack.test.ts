import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { canonicalJson } from './canonical-json.ts';
import { ProfileError } from './errors.ts';
import { createPack, loadPack, packDigest, packJson, validateRecord } from './pack.ts';
import type { Pack, PackDefinition } from './pack.ts';

/** A small pack that exercises every part of the format. */
function definition(): PackDefinition {
  return {
    name: 'mini',
    version: '1.0.0',
    title: 'Mini',
    description: 'A pack for tests.',
    kinds: {
      publication: {
        description: 'A paper.',
        fields: {
          title: { codec: { type: 'text', maxLength: 100 }, required: true, description: 'Title.' },
          published: { codec: { type: 'date' }, required: false, description: 'When.' },
        },
        relations: {},
      },
      finding: {
        description: 'A result.',
        fields: {
          statement: {
            codec: { type: 'text', maxLength: 500 },
            required: true,
            description: 'What was found.',
          },
          effect: { codec: { type: 'quantity' }, required: false, description: 'Effect size.' },
          source: { codec: { type: 'ref', kinds: ['publication'] }, required: true, description: 'Where.' },
          tags: {
            codec: { type: 'list', of: { type: 'text', maxLength: 20 }, maxItems: 2 },
            required: false,
            description: 'Tags.',
          },
        },
        relations: { reported_in: { to: ['publication'], field: 'source', description: 'Reported in.' } },
      },
    },
    example: {
      kind: 'finding',
      fields: { effect: { unit: '1', value: '0.42' }, source: 'publication:p1', statement: 'It works.' },
    },
  };
}

type Json = Record<string, unknown>;
const DELETE = Symbol('delete');

/** A JSON copy of the sealed mini pack, to break in tests. */
function sealed(): Json {
  return JSON.parse(packJson(createPack(definition())));
}

function at(json: unknown, path: string): unknown {
  return path === '' ? json : path.split('.').reduce<unknown>((o, key) => (o as Json)[key], json);
}

/** Set (or delete) the value at a dotted path, in place. */
function setAt(json: Json, path: string, value: unknown): Json {
  const keys = path.split('.');
  const last = keys.pop()!;
  const parent = at(json, keys.join('.')) as Json;
  if (value === DELETE) delete parent[last];
  else parent[last] = value;
  return json;
}

/** The `path: message` lines a load is refused with. */
function loadIssues(json: unknown): string[] {
  try {
    loadPack(json);
  } catch (e) {
    expect(e).toBeInstanceOf(ProfileError);
    const err = e as ProfileError;
    expect(err.message).toContain(err.issues[0]!.path);
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('pack was accepted');
}

const reseal = (json: Json) => ({ ...json, digest: packDigest(json as unknown as PackDefinition) });

describe('digest', () => {
  it('is the SHA-256 of the canonical JSON without the digest field, and stable', () => {
    const pack = createPack(definition());
    const { digest, ...body } = pack;
    expect(digest).toBe(createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex'));
    // Pinned: a change here means canonical JSON or the pack format changed under existing packs.
    expect(digest).toBe(MINI_DIGEST);
  });

  it('does not depend on key order', () => {
    const def = definition();
    const reversed = Object.fromEntries(Object.entries(def).reverse()) as unknown as PackDefinition;
    expect(packDigest(reversed)).toBe(packDigest(def));
  });

  it('refuses a pack whose content does not match its digest', () => {
    const json = setAt(sealed(), 'title', 'Mini, edited');
    try {
      loadPack(json);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ProfileError);
      expect((e as ProfileError).reason).toBe('integrity');
      expect((e as ProfileError).message).toMatch(
        /^pack mini@1\.0\.0: digest [0-9a-f]{64} does not match its content/,
      );
    }
  });
});

const MINI_DIGEST = '72a876d8652e74a853526f8e1196502d4b99795552ec3d3a7f1994d2951d7e95';

describe('loadPack', () => {
  it('loads a sealed pack from its canonical JSON and freezes it', () => {
    const pack = loadPack(JSON.parse(packJson(createPack(definition()))));
    expect(pack.name).toBe('mini');
    expect(Object.isFrozen(pack.kinds.finding!.fields)).toBe(true);
    expect(packJson(pack)).toBe(canonicalJson(pack));
  });

  it('names the path of an unknown codec', () => {
    const json = setAt(sealed(), 'kinds.finding.fields.effect.codec', { type: 'floatt' });
    expect(loadIssues(reseal(json))).toEqual([
      expect.stringMatching(/^kinds\.finding\.fields\.effect\.codec\.type: unknown codec "floatt"/),
    ]);
  });

  const base = sealed();
  it.each<[string, string, unknown, RegExp]>([
    ['a version that is not semantic', 'version', '1.0', /^version: expected a semantic version/],
    ['a bad pack name', 'name', 'Mini Pack', /^name: a pack name is/],
    ['an unknown top-level key', 'author', 'me', /^: Unrecognized key: "author"/],
    [
      'a missing description',
      'kinds.finding.description',
      DELETE,
      /^kinds\.finding\.description: Invalid input/,
    ],
    [
      'a bad kind name',
      'kinds.Finding',
      at(base, 'kinds.finding'),
      /^kinds\.Finding: "Finding" is not allowed here: a kind name is/,
    ],
    [
      'a bad field name',
      'kinds.finding.fields.effect_size',
      at(base, 'kinds.finding.fields.tags'),
      /^kinds\.finding\.fields\.effect_size: "effect_size" is not allowed here: a field name is camelCase/,
    ],
    [
      'a codec option of the wrong type',
      'kinds.finding.fields.tags.codec.maxItems',
      '2',
      /^kinds\.finding\.fields\.tags\.codec\.maxItems: Invalid input: expected number/,
    ],
    [
      'a nested unknown codec',
      'kinds.finding.fields.tags.codec.of',
      { type: 'txt' },
      /^kinds\.finding\.fields\.tags\.codec\.of\.type: unknown codec "txt"/,
    ],
    [
      'a reference to a kind the pack does not have',
      'kinds.finding.fields.source.codec.kinds',
      ['publication', 'study'],
      /^kinds\.finding\.fields\.source\.codec\.kinds\.1: no kind "study" in this pack/,
    ],
    [
      'a relation whose field does not exist',
      'kinds.finding.relations.reported_in.field',
      'paper',
      /^kinds\.finding\.relations\.reported_in\.field: kind finding has no field "paper"/,
    ],
    [
      'a relation on a field that is not a reference',
      'kinds.finding.relations.reported_in.field',
      'statement',
      /^kinds\.finding\.relations\.reported_in\.field: field "statement" is not a reference/,
    ],
    [
      'a relation that disagrees with its field',
      'kinds.finding.relations.reported_in.to',
      ['finding'],
      /^kinds\.finding\.relations\.reported_in\.to: \[finding\] differs from the kinds field "source" refers to: \[publication\]/,
    ],
    [
      'a bad relation name',
      'kinds.finding.relations.Reported-In',
      at(base, 'kinds.finding.relations.reported_in'),
      /^kinds\.finding\.relations\.Reported-In: .*a relation name is/,
    ],
    ['no kinds', 'kinds', {}, /^kinds: a pack needs at least one kind/],
    [
      'an example of an unknown kind',
      'example',
      { kind: 'study', fields: {} },
      /^example\.kind: no kind "study" in this pack/,
    ],
    [
      'an example that does not validate',
      'example.fields.effect',
      { unit: 'furlongs', value: '1' },
      /^example\.fields\.effect\.unit: "furlongs" is not a UCUM unit/,
    ],
    [
      'an example that is not in canonical form',
      'example.fields.effect',
      { unit: '1', value: '+0.42' },
      /^example\.fields: not in canonical form; write \{"effect":\{"unit":"1","value":"0\.42"\}/,
    ],
  ])('refuses %s, naming the path', (_what, path, value, message) => {
    const json = setAt(sealed(), path, value === DELETE ? value : structuredClone(value));
    expect(loadIssues(reseal(json))).toEqual(expect.arrayContaining([expect.stringMatching(message)]));
  });

  it('refuses a bad digest format and a non-object', () => {
    expect(loadIssues({ ...sealed(), digest: 'ABC' })).toEqual([
      'digest: a digest is 64 lowercase hex digits (SHA-256)',
    ]);
    expect(loadIssues('research')).toEqual([': Invalid input: expected object, received string']);
  });

  it('createPack refuses a malformed definition the same way', () => {
    const def = setAt(definition() as unknown as Json, 'kinds.finding.fields.effect.codec', {
      type: 'floatt',
    });
    expect(() => createPack(def as unknown as PackDefinition)).toThrow(
      /kinds\.finding\.fields\.effect\.codec\.type: unknown codec "floatt"/,
    );
  });
});

describe('validateRecord', () => {
  const pack = createPack(definition());

  it('returns the fields in canonical form', () => {
    const r = validateRecord(pack, 'finding', {
      statement: 'It works.',
      source: 'publication:p1',
      effect: { value: '+00.50', unit: '%' },
      tags: ['a'],
    });
    expect(r).toEqual({
      ok: true,
      value: {
        effect: { unit: '%', value: '0.50' },
        source: 'publication:p1',
        statement: 'It works.',
        tags: ['a'],
      },
    });
    if (r.ok) expect(Object.keys(r.value)).toEqual(['effect', 'source', 'statement', 'tags']);
  });

  it('refuses unknown fields, enforces required ones and names nested paths', () => {
    const r = validateRecord(pack, 'finding', {
      statement: 'x',
      effect: { value: 1.5, unit: 'mg' },
      tags: ['ok', 'x'.repeat(21), 'three'],
      author: 'agent',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      { path: 'author', message: 'unknown field "author" (fields: effect, source, statement, tags)' },
      { path: 'effect.value', message: expect.stringMatching(/^1.5 is a float/) },
      { path: 'source', message: 'required' },
      { path: 'tags', message: 'at most 2 items, got 3' },
    ]);
  });

  it('refuses a reference of the wrong kind', () => {
    const r = validateRecord(pack, 'finding', { statement: 'x', source: 'finding:other' });
    expect(r).toEqual({
      ok: false,
      errors: [{ path: 'source', message: 'finding:other refers to a finding; expected a publication' }],
    });
  });

  it('refuses an unknown kind and a non-object', () => {
    expect(validateRecord(pack, 'study', {})).toEqual({
      ok: false,
      errors: [{ path: '', message: 'pack mini has no kind "study" (kinds: finding, publication)' }],
    });
    expect(validateRecord(pack, 'toString', {}).ok).toBe(false);
    expect(validateRecord(pack, 'publication', ['x'])).toEqual({
      ok: false,
      errors: [{ path: '', message: 'expected an object with fields published, title, got a list' }],
    });
  });

  it('checks a hand-built pack object before using it', () => {
    const forged = { ...definition(), digest: '0'.repeat(64) } as Pack;
    expect(() => validateRecord(forged, 'finding', {})).toThrow(ProfileError);
  });
});
