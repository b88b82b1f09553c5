import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { builtPacks, packFileUrl } from './build-packs.ts';
import { ProfileError } from './errors.ts';
import { loadPack, packDigest, validateRecord } from './pack.ts';
import { getPack, listPacks, previewPack } from './registry.ts';

/**
 * The shipped packs' versions and digests. A pack's content may change only with its version:
 * when this test fails after an edit to `definitions/`, bump the pack's version, rebuild the
 * files (`tsx src/profiles/build-packs.ts`) and update the line here.
 */
const SHIPPED = {
  research: { version: '1.0.0', digest: '15e81aa48472dcfb9bc178955f5f3dd75813741a0ca10677cfeac486aad763dc' },
  language: { version: '1.0.0', digest: '78aa4374f1698136d6844fb603f0f41dee25c3928d2e68f5ab18c0426c6af56e' },
  finance: { version: '1.0.0', digest: 'b2367aa592b13c361491deaa9c388ba55717612407fc7dce711f33d86bcc662d' },
} as const;

const NAMES = Object.keys(SHIPPED) as Array<keyof typeof SHIPPED>;

describe('shipped packs', () => {
  it('lists research, language and finance', () => {
    expect(listPacks().map((p) => p.name)).toEqual(['finance', 'language', 'research']);
    for (const p of listPacks())
      expect(p).toEqual({
        ...SHIPPED[p.name as keyof typeof SHIPPED],
        name: p.name,
        title: expect.any(String),
        description: expect.any(String),
      });
  });

  it.each(NAMES)('%s loads, and its digest verifies', (name) => {
    const pack = getPack(name);
    expect(pack.digest).toBe(packDigest(pack));
    expect({ version: pack.version, digest: pack.digest }).toEqual(SHIPPED[name]);
  });

  it.each(NAMES)('%s.json is canonical JSON and matches its definition', (name) => {
    const text = readFileSync(packFileUrl(name), 'utf8');
    expect(canonicalJson(JSON.parse(text))).toBe(text);
    // Fails when definitions/ changed and the files were not rebuilt.
    expect(builtPacks().find((b) => b.name === name)?.text).toBe(text);
  });

  it.each(NAMES)('%s refuses to load once tampered with', (name) => {
    const json = JSON.parse(readFileSync(packFileUrl(name), 'utf8'));
    json.description += ' ';
    expect(() => loadPack(json)).toThrow(expect.objectContaining({ reason: 'integrity' }));
  });

  it('getPack refuses an unknown name', () => {
    expect(() => getPack('astrology')).toThrow(ProfileError);
    expect(() => getPack('astrology')).toThrow(
      'no profile pack "astrology" (packs: finance, language, research)',
    );
    expect(() => getPack('__proto__')).toThrow(expect.objectContaining({ reason: 'not_found' }));
  });
});

describe('previewPack', () => {
  it.each(NAMES)('%s: the example validates and every kind is described', (name) => {
    const preview = previewPack(name);
    const pack = getPack(name);
    expect(preview).toMatchObject({ name, version: pack.version, digest: pack.digest, title: pack.title });
    expect(validateRecord(pack, preview.example.kind, preview.example.fields)).toEqual({
      ok: true,
      value: preview.example.fields,
    });
    expect(preview.kinds.map((k) => k.name)).toEqual(Object.keys(pack.kinds).sort());
    for (const kind of preview.kinds) {
      expect(kind.description).not.toBe('');
      expect(kind.fields.length).toBeGreaterThan(0);
      for (const f of kind.fields) expect(f.codec.summary).not.toBe('');
    }
    // JSON-safe: what tRPC sends is what we built.
    expect(JSON.parse(JSON.stringify(preview))).toEqual(preview);
  });

  it('shows required fields first, each codec with a summary and its spec, and relations', () => {
    const correction = previewPack('research').kinds.find((k) => k.name === 'correction')!;
    expect(correction.fields.map((f) => [f.name, f.required])).toEqual([
      ['corrects', true],
      ['date', true],
      ['reason', true],
      ['type', true],
      ['doi', false],
      ['notice', false],
    ]);
    expect(correction.fields[0]!.codec).toEqual({
      summary: 'reference to a finding or publication (kind:slug)',
      spec: { type: 'ref', kinds: ['finding', 'publication'] },
    });
    expect(correction.relations).toEqual([
      {
        name: 'corrects',
        to: ['finding', 'publication'],
        field: 'corrects',
        description: expect.any(String),
      },
    ]);
  });
});

/** One valid record for every kind of every shipped pack. */
const RECORDS: Record<keyof typeof SHIPPED, Record<string, Record<string, unknown>>> = {
  research: {
    publication: {
      title: 'Vitamin D and blood pressure: a randomised trial',
      authors: ['A. Author', 'B. Author'],
      status: 'retracted',
      doi: 'https://doi.org/10.1000/VD.2019.1',
      url: 'https://example.org/papers/vd',
      published: '2019-05',
      language: 'en',
      versions: [
        { status: 'preprint', date: '2018-11-02', url: 'https://example.org/preprints/vd' },
        { status: 'accepted', date: '2019-03' },
        { status: 'published', date: '2019-05-14', doi: '10.1000/vd.2019.1' },
        { status: 'retracted', date: '2021', note: 'Data could not be verified.' },
      ],
    },
    study: {
      title: 'VD-BP trial',
      design: 'randomized-controlled-trial',
      reportedIn: ['publication:vd-2019'],
      methods: ['method:ambulatory-bp'],
      registration: 'NCT01234567',
    },
    method: { name: 'Ambulatory blood pressure monitoring', category: 'observational' },
    sample: { size: 412, population: 'Adults 40–70 with stage 1 hypertension', study: 'study:vd-bp' },
    finding: {
      statement: 'No effect on systolic pressure.',
      study: 'study:vd-bp',
      effect: { value: '-0.3', unit: 'mm[Hg]' },
    },
    correction: {
      corrects: 'publication:vd-2019',
      type: 'retraction',
      date: '2021-02-01',
      reason: 'The data could not be verified.',
      doi: '10.1000/vd.2019.1.retraction',
    },
  },
  language: {
    term: { lemma: 'Schadenfreude', language: 'de', partOfSpeech: 'noun', pronunciation: 'ˈʃaːdn̩ˌfʁɔʏ̯də' },
    sense: {
      term: 'term:schadenfreude',
      definition: 'Freude über das Missgeschick anderer',
      definitionLanguage: 'de',
    },
    translation: { sense: 'sense:schadenfreude-1', language: 'en-GB', text: 'malicious joy' },
    'usage-example': {
      sense: 'sense:schadenfreude-1',
      text: 'Er konnte seine Schadenfreude kaum verbergen.',
      language: 'de-DE',
    },
  },
  finance: {
    instrument: {
      name: 'Apple Inc. common stock',
      type: 'equity',
      isin: 'US0378331005',
      ticker: 'AAPL',
      exchange: 'XNAS',
      currency: 'USD',
    },
    filing: { instrument: 'instrument:aapl', form: '10-K', date: '2024-11-01', url: 'https://www.sec.gov/' },
    metric: {
      instrument: 'instrument:aapl',
      name: 'net income',
      value: { amount: '14736000000', currency: 'USD' },
      period: { start: '2024-06-30', end: '2024-09-28' },
    },
    event: {
      instrument: 'instrument:aapl',
      date: '2024-11-14',
      type: 'dividend',
      amount: { amount: '0.25', currency: 'USD' },
    },
  },
};

describe('records against the shipped packs', () => {
  it.each(NAMES)('%s: every kind has a valid record', (name) => {
    const pack = getPack(name);
    expect(Object.keys(RECORDS[name]).sort()).toEqual(Object.keys(pack.kinds).sort());
    for (const [kind, fields] of Object.entries(RECORDS[name])) {
      const r = validateRecord(pack, kind, fields);
      expect(r, `${name} ${kind}`).toMatchObject({ ok: true });
    }
  });

  it('canonicalises what it accepts', () => {
    const r = validateRecord(getPack('research'), 'publication', RECORDS.research.publication!);
    expect(r.ok && r.value.doi).toBe('10.1000/vd.2019.1');
    expect(r).not.toHaveProperty('normalized');
  });

  it('reports each value stored in another form than written, at its field path', () => {
    const r = validateRecord(getPack('language'), 'translation', {
      ...RECORDS.language.translation,
      language: 'en-UK',
    });
    expect(r).toEqual({
      ok: true,
      value: { ...RECORDS.language.translation, language: 'en-GB' },
      normalized: [
        {
          path: 'language',
          from: 'en-UK',
          to: 'en-GB',
          why: 'UK is not a region code in the IANA registry; CLDR maps it to GB (United Kingdom)',
        },
      ],
    });
    const term = validateRecord(getPack('language'), 'term', { ...RECORDS.language.term, language: 'iw' });
    expect(term.ok && term.normalized).toEqual([
      expect.objectContaining({
        path: 'language',
        from: 'iw',
        to: 'he',
        why: expect.stringMatching(/^iw \(Hebrew\) is deprecated/),
      }),
    ]);
  });

  it.each<[keyof typeof SHIPPED, string, Record<string, unknown>, { path: string; message: RegExp }]>([
    [
      'research',
      'correction',
      { ...RECORDS.research.correction, corrects: 'study:vd-bp' },
      { path: 'corrects', message: /refers to a study; expected a finding or publication/ },
    ],
    [
      'research',
      'correction',
      { ...RECORDS.research.correction, date: '2021-02-30' },
      { path: 'date', message: /February 2021 has 28 days/ },
    ],
    [
      'research',
      'sample',
      { ...RECORDS.research.sample, size: 412.5 },
      { path: 'size', message: /412.5 is not an integer/ },
    ],
    [
      'research',
      'publication',
      { ...RECORDS.research.publication, status: 'withdrawn' },
      { path: 'status', message: /is not one of: preprint, accepted, published, retracted/ },
    ],
    [
      'research',
      'publication',
      {
        ...RECORDS.research.publication,
        versions: [{ status: 'preprint', date: '2018', url: 'ftp://x.org/a' }],
      },
      { path: 'versions.0.url', message: /only http and https/ },
    ],
    [
      'research',
      'finding',
      { ...RECORDS.research.finding, effect: { value: 0.3, unit: '1' } },
      { path: 'effect.value', message: /is a float/ },
    ],
    [
      'language',
      'translation',
      { ...RECORDS.language.translation, language: 'en_GB' },
      { path: 'language', message: /not a well-formed BCP 47/ },
    ],
    [
      'language',
      'translation',
      { ...RECORDS.language.translation, language: 'xx' },
      { path: 'language', message: /^"xx" is not a language subtag in the IANA registry$/ },
    ],
    [
      'research',
      'finding',
      { ...RECORDS.research.finding, effect: { value: '0.3', unit: 'kmin' } },
      { path: 'effect.unit', message: /the prefix "k" cannot stand on "min" \(minute\)/ },
    ],
    [
      'finance',
      'metric',
      { ...RECORDS.finance.metric, value: { amount: '1.00', currency: 'XXY' } },
      { path: 'value.currency', message: /"XXY" is not an ISO 4217 currency code/ },
    ],
    [
      'finance',
      'filing',
      { ...RECORDS.finance.filing, date: '2024-11' },
      { path: 'date', message: /partial date/ },
    ],
    [
      'finance',
      'instrument',
      { ...RECORDS.finance.instrument, isin: 'US037833100' },
      { path: 'isin', message: /does not match the pattern/ },
    ],
  ])('%s %s: refuses a bad value', (name, kind, fields, expected) => {
    const r = validateRecord(getPack(name), kind, fields);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual([{ path: expected.path, message: expect.stringMatching(expected.message) }]);
  });
});
