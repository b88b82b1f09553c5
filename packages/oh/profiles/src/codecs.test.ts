import { codes as currencyCodes } from 'currency-codes';
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { SLUG_RE } from '@oh/schema';
import { canonicalJson } from './canonical-json.ts';
import { codec, describeCodec } from './codecs/index.ts';
import type { Codec, CodecSpec, Money, Quantity } from './codecs/index.ts';
import { ProfileError } from './errors.ts';

/**
 * For generated inputs: the input validates; decode(encode(x)) is x; encoding is idempotent
 * (encode(decode(e)) is e); and the encoding is plain JSON that canonicalises to itself.
 */
function roundTrips<T>(c: Codec<T>, inputs: fc.Arbitrary<unknown>, runs = 200): void {
  fc.assert(
    fc.property(inputs, (input) => {
      const r = c.validate(input);
      if (!r.ok) throw new Error(`${JSON.stringify(String(input))} refused: ${JSON.stringify(r.errors)}`);
      const x = r.value;
      const e = c.encode(x);
      expect(c.decode(e)).toEqual(x);
      expect(c.encode(c.decode(e))).toEqual(e);
      expect(JSON.parse(canonicalJson(e))).toEqual(e);
    }),
    { numRuns: runs },
  );
}

/** The issues of a refused value, as `path: message` lines. */
function refusal(c: Codec<unknown>, input: unknown): string {
  const r = c.validate(input);
  if (r.ok)
    throw new Error(
      `${String(input)} was accepted as ${JSON.stringify(r.value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
    );
  return r.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('\n');
}

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Canonical decimals: optional minus, no leading zeros, any scale. */
const canonicalDecimal = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.option(digits(1, 12), { nil: undefined }))
  .map(([neg, int, frac]) => {
    const zero = int === 0n && (frac === undefined || /^0*$/.test(frac));
    return `${neg && !zero ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}`;
  });

/** The same decimal written with a `+` or leading zeros; encoding must canonicalise it. */
const decimalSpelling = (d: string) =>
  fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3 })).map(([plus, zeros]) => {
    const neg = d.startsWith('-');
    const body = neg ? d.slice(1) : d;
    return `${neg ? '-' : plus ? '+' : ''}${'0'.repeat(zeros)}${body}`;
  });

const UNITS = [
  'mg',
  'kg',
  'mmol/L',
  'mg/dL',
  'm/s2',
  'kg.m2.s-2',
  '%',
  '1',
  '{ratio}',
  'mm[Hg]',
  '10*3/uL',
  'Cel',
  '[lb_av]',
  'ug/(kg.d)',
  '/min',
  'kPa',
  'dB',
];

const CURRENCIES = currencyCodes().filter((c) => c !== 'XXX' && c !== 'XTS');

const isoDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const randomCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((flips) => [...s].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));

describe('text', () => {
  const text = codec({ type: 'text', maxLength: 40 });
  it('round-trips any well-formed Unicode text up to its length', () => {
    roundTrips(text, fc.string({ unit: 'binary', maxLength: 40 }));
  });
  it('counts code points, not UTF-16 units', () => {
    expect(codec({ type: 'text', maxLength: 2 }).validate('😀😀').ok).toBe(true);
  });
  it('refuses too long, an unpaired surrogate, non-text, and a pattern mismatch', () => {
    expect(refusal(text, 'x'.repeat(41))).toBe('text is at most 40 characters, got 41');
    expect(refusal(text, 'a\uD800b')).toMatch(/unpaired UTF-16 surrogate/);
    expect(refusal(text, 42)).toBe('expected text, got the number 42');
    const isin = codec({ type: 'text', maxLength: 12, pattern: '[A-Z]{2}[A-Z0-9]{9}[0-9]' });
    expect(isin.validate('US0378331005').ok).toBe(true);
    expect(refusal(isin, 'us0378331005')).toMatch(/does not match the pattern/);
    expect(refusal(codec({ type: 'text', maxLength: 5, minLength: 2 }), 'a')).toBe(
      'text is at least 2 characters, got 1',
    );
  });
});

describe('integer', () => {
  it('round-trips safe integers as JSON numbers', () => {
    roundTrips(codec({ type: 'integer' }), fc.maxSafeInteger());
  });
  it('round-trips big integers: bigint in code, a string in JSON past ±2^53−1', () => {
    const big = codec({ type: 'integer', big: true });
    roundTrips(big, fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }));
    expect(big.encode(12n)).toBe(12);
    expect(big.encode(2n ** 64n)).toBe('18446744073709551616');
    expect(big.decode('18446744073709551616')).toBe(2n ** 64n);
    expect(big.encode('+007' as unknown as bigint)).toBe(7);
  });
  it('refuses floats, unsafe numbers, strings unless big, and values out of range', () => {
    const int = codec({ type: 'integer', min: 0, max: 10 });
    expect(refusal(int, 1.5)).toBe('1.5 is not an integer');
    expect(refusal(int, '3')).toBe('expected an integer, got the string "3"');
    expect(refusal(int, 11)).toBe('11 is greater than the maximum 10');
    expect(refusal(int, -1)).toBe('-1 is less than the minimum 0');
    expect(refusal(codec({ type: 'integer' }), 2 ** 60)).toMatch(/past the safe integer range/);
    expect(refusal(codec({ type: 'integer', big: true }), 2 ** 60)).toMatch(/pass it as a string/);
    expect(refusal(codec({ type: 'integer', big: true }), '12a')).toBe('"12a" is not an integer');
  });
});

describe('decimal', () => {
  const decimal = codec({ type: 'decimal' });
  it('round-trips exact decimals, keeping their scale', () => {
    roundTrips(decimal, canonicalDecimal);
    expect(decimal.encode('1.10')).toBe('1.10');
    expect(decimal.encode('1.100')).toBe('1.100');
  });
  it('encodes any spelling of a decimal to one canonical form', () => {
    fc.assert(
      fc.property(
        canonicalDecimal.chain((d) => fc.tuple(fc.constant(d), decimalSpelling(d))),
        ([d, spelled]) => {
          expect(decimal.encode(spelled)).toBe(d);
        },
      ),
    );
    expect(decimal.encode('-0.00')).toBe('0.00');
    expect(decimal.encode('+000.50')).toBe('0.50');
  });
  it('refuses floats and every JSON number, with a reason', () => {
    expect(refusal(decimal, 1.1)).toBe(
      '1.1 is a float; an exact decimal is a string such as "1.10", which keeps its exact digits',
    );
    expect(refusal(decimal, 3)).toMatch(/as a string such as "3", got the number 3/);
    expect(refusal(decimal, '1e3')).toMatch(/"1e3" is not an exact decimal/);
    expect(refusal(decimal, '.5')).toMatch(/is not an exact decimal/);
    expect(refusal(decimal, '1.')).toMatch(/is not an exact decimal/);
    expect(refusal(decimal, ' 1')).toMatch(/is not an exact decimal/);
  });
  it('applies scale and bounds exactly', () => {
    const p = codec({ type: 'decimal', min: '0', max: '1', maxScale: 3 });
    expect(p.encode('0.999')).toBe('0.999');
    expect(refusal(p, '1.0001')).toBe('1.0001 has 4 decimal places; at most 3 allowed');
    expect(refusal(p, '1.001')).toBe('1.001 is greater than the maximum 1');
    expect(refusal(p, '-0.001')).toBe('-0.001 is less than the minimum 0');
    // 0.1 + 0.2 style drift cannot happen: the bound compares decimals, not floats.
    expect(codec({ type: 'decimal', max: '0.3' }).validate('0.30000000000000000001').ok).toBe(false);
  });
});

describe('quantity', () => {
  const quantity = codec({ type: 'quantity' });
  it('round-trips a decimal with a UCUM unit', () => {
    roundTrips(quantity, fc.record({ value: canonicalDecimal, unit: fc.constantFrom(...UNITS) }));
    expect(quantity.encode({ unit: 'mg', value: '+05.0' })).toEqual({ unit: 'mg', value: '5.0' });
  });
  it('refuses unknown units, floats, missing and extra parts', () => {
    expect(refusal(quantity, { value: '1', unit: 'furlongs' })).toMatch(
      /^unit: "furlongs" is not a UCUM unit/,
    );
    expect(refusal(quantity, { value: '1', unit: 'kmin' })).toMatch(
      /^unit: unit "kmin": the prefix "k" cannot/,
    );
    expect(refusal(quantity, { value: 1.5, unit: 'mg' })).toMatch(/^value: 1.5 is a float/);
    expect(refusal(quantity, { value: '1' })).toBe('unit: required');
    expect(refusal(quantity, { value: '1', unit: 'mg', note: 'x' })).toMatch(/^note: unknown field "note"/);
    expect(refusal(quantity, '5 mg')).toMatch(/expected an object such as/);
    const mass = codec({ type: 'quantity', units: ['mg', 'g'] });
    expect(refusal(mass, { value: '1', unit: 'kg' })).toBe('unit: unit "kg" is not one of: mg, g');
  });
});

describe('date', () => {
  const date = codec({ type: 'date' });
  it('round-trips calendar dates and partial dates', () => {
    roundTrips(date, isoDate);
    roundTrips(
      date,
      isoDate.map((d) => d.slice(0, 7)),
    );
    roundTrips(
      date,
      isoDate.map((d) => d.slice(0, 4)),
    );
    expect(date.encode('2014')).toBe('2014');
    expect(date.encode('2014-06')).toBe('2014-06');
    expect(date.encode('2024-02-29')).toBe('2024-02-29');
  });
  it('refuses days that are not on the calendar', () => {
    expect(refusal(date, '2014-02-30')).toBe('2014-02-30 is not a calendar date: February 2014 has 28 days');
    expect(refusal(date, '1900-02-29')).toBe('1900-02-29 is not a calendar date: February 1900 has 28 days');
    expect(date.validate('2000-02-29').ok).toBe(true);
    expect(refusal(date, '2014-04-31')).toMatch(/April 2014 has 30 days/);
    expect(refusal(date, '2014-13')).toBe('2014-13 is not a calendar date: there is no month 13');
    expect(refusal(date, '2014-00-10')).toMatch(/there is no month 00/);
    expect(refusal(date, '2014-6-1')).toMatch(/is not an ISO 8601 date/);
    expect(refusal(date, '2014-06-01T00:00:00Z')).toMatch(/is not an ISO 8601 date/);
  });
  it('refuses partial dates where a full date is required', () => {
    expect(refusal(codec({ type: 'date', partial: false }), '2014-06')).toBe(
      '2014-06 is a partial date; a full date YYYY-MM-DD is required',
    );
  });
});

describe('money and currency', () => {
  const money = codec({ type: 'money' });
  it('round-trips exact amounts in every current ISO 4217 currency', () => {
    roundTrips(money, fc.record({ amount: canonicalDecimal, currency: fc.constantFrom(...CURRENCIES) }));
    roundTrips(codec({ type: 'currency' }), fc.constantFrom(...CURRENCIES));
    expect(money.encode({ amount: '12.50', currency: 'eur' })).toEqual({ amount: '12.50', currency: 'EUR' });
  });
  it('refuses unknown codes, non-currencies and float amounts', () => {
    expect(refusal(money, { amount: '1.00', currency: 'XXY' })).toBe(
      'currency: "XXY" is not an ISO 4217 currency code',
    );
    expect(refusal(money, { amount: '1.00', currency: 'XTS' })).toMatch(/code for testing, not a currency/);
    expect(refusal(money, { amount: '1.00', currency: 'EURO' })).toMatch(/three letters/);
    expect(refusal(money, { amount: 9.99, currency: 'USD' })).toMatch(/^amount: 9.99 is a float/);
    expect(refusal(codec({ type: 'currency', currencies: ['EUR'] }), 'USD')).toBe('USD is not one of: EUR');
  });
});

describe('doi', () => {
  const doi = codec({ type: 'doi' });
  const dois = fc
    .tuple(fc.integer({ min: 1000, max: 999_999_999 }), fc.stringMatching(/^[a-z0-9._;()/:-]{1,40}$/))
    .map(([registrant, suffix]) => `10.${registrant}/${suffix}`);
  it('round-trips DOIs, lowercased', () => {
    roundTrips(doi, dois);
    fc.assert(
      fc.property(
        dois.chain((d) => fc.tuple(fc.constant(d), randomCase(d))),
        ([d, cased]) => {
          expect(doi.encode(cased)).toBe(d);
        },
      ),
    );
  });
  it('accepts doi: and doi.org forms and stores the bare DOI', () => {
    expect(doi.encode('doi:10.1000/XYZ123')).toBe('10.1000/xyz123');
    expect(doi.encode('https://doi.org/10.1000/ABC%2F1')).toBe('10.1000/abc/1');
    expect(doi.encode('http://dx.doi.org/10.1038/nphys1170')).toBe('10.1038/nphys1170');
  });
  it('refuses what is not a DOI', () => {
    expect(refusal(doi, '11.1000/xyz')).toBe(
      '"11.1000/xyz" is not a DOI: expected 10.NNNN/suffix, such as "10.1000/xyz123"',
    );
    expect(refusal(doi, '10.12/xyz')).toMatch(/is not a DOI/);
    expect(refusal(doi, '10.1000/')).toMatch(/is not a DOI/);
    expect(refusal(doi, '10.1000/a b')).toMatch(/is not a DOI/);
  });
});

describe('url', () => {
  const url = codec({ type: 'url' });
  it('round-trips http(s) URLs in WHATWG form', () => {
    roundTrips(
      url,
      fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true }),
    );
    expect(url.encode('HTTPS://Example.COM')).toBe('https://example.com/');
  });
  it('refuses other schemes, relative URLs and credentials', () => {
    expect(refusal(url, 'ftp://example.com/file')).toBe(
      'only http and https URLs are allowed, got a ftp URL',
    );
    expect(refusal(url, 'javascript:alert(1)')).toMatch(/only http and https/);
    expect(refusal(url, '/relative/path')).toBe('"/relative/path" is not an absolute URL');
    expect(refusal(url, 'https://user:pw@example.com/')).toBe(
      'URLs with a user name or password are refused',
    );
    expect(refusal(codec({ type: 'url', maxLength: 20 }), 'https://example.com/long')).toMatch(
      /at most 20 characters/,
    );
  });
});

describe('enum', () => {
  const status = codec({ type: 'enum', values: ['preprint', 'accepted', 'published', 'retracted'] });
  it('round-trips its values and refuses others', () => {
    roundTrips(status, fc.constantFrom('preprint', 'accepted', 'published', 'retracted'));
    expect(refusal(status, 'Published')).toBe(
      '"Published" is not one of: preprint, accepted, published, retracted',
    );
  });
});

describe('ref', () => {
  const corrects = codec({ type: 'ref', kinds: ['finding', 'publication'] });
  it('round-trips record names of the referenced kinds', () => {
    roundTrips(
      corrects,
      fc
        .tuple(fc.constantFrom('finding', 'publication'), fc.stringMatching(SLUG_RE))
        .map(([k, s]) => `${k}:${s}`),
    );
  });
  it('refuses a reference to another kind and a malformed name', () => {
    expect(refusal(corrects, 'study:trial-1')).toBe(
      'study:trial-1 refers to a study; expected a finding or publication',
    );
    expect(refusal(corrects, 'Finding:x')).toMatch(/is not a record name: kind:slug/);
    expect(refusal(corrects, 'finding:')).toMatch(/is not a record name/);
    expect(refusal(corrects, 'finding:-x')).toMatch(/is not a record name/);
  });
});

describe('list', () => {
  const tags = codec({ type: 'list', of: { type: 'language' }, minItems: 1, maxItems: 3, unique: true });
  it('round-trips lists of valid items', () => {
    roundTrips(
      codec({ type: 'list', of: { type: 'decimal' }, maxItems: 10 }),
      fc.array(canonicalDecimal, { maxLength: 10 }),
    );
    roundTrips(
      codec({ type: 'list', of: { type: 'integer', big: true }, maxItems: 5 }),
      fc.array(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), { maxLength: 5 }),
    );
    expect(tags.encode(['EN-gb', 'fr'])).toEqual(['en-GB', 'fr']);
  });
  it('refuses too many or too few items, duplicates, and names each bad item by index', () => {
    expect(refusal(tags, ['en', 'fr', 'de', 'it'])).toBe('at most 3 items, got 4');
    expect(refusal(tags, [])).toBe('at least 1 item, got 0');
    expect(refusal(tags, ['en-GB', 'EN-gb'])).toBe('1: item 1 repeats item 0');
    expect(refusal(tags, ['en', 'en--US'])).toMatch(/^1: "en--US" is not a well-formed/);
    expect(refusal(tags, 'en')).toMatch(/expected a list of 1–3 items/);
  });
});

describe('object', () => {
  const version = codec({
    type: 'object',
    fields: {
      status: {
        codec: { type: 'enum', values: ['preprint', 'published'] },
        required: true,
        description: 's',
      },
      date: { codec: { type: 'date' }, required: true, description: 'd' },
      doi: { codec: { type: 'doi' }, required: false, description: 'x' },
    },
  });
  it('round-trips objects, with keys in canonical order', () => {
    roundTrips(
      version,
      fc.record(
        { status: fc.constantFrom('preprint', 'published'), date: isoDate, doi: fc.constant('10.1000/abc') },
        { requiredKeys: ['status', 'date'] },
      ),
    );
    expect(
      Object.keys(version.encode({ status: 'preprint', date: '2020', doi: '10.1000/X' }) as object),
    ).toEqual(['date', 'doi', 'status']);
  });
  it('refuses unknown fields, missing required ones and nulls', () => {
    expect(refusal(version, { status: 'preprint', date: '2020', extra: 1 })).toBe(
      'extra: unknown field "extra" (fields: date, doi, status)',
    );
    expect(refusal(version, { status: 'preprint' })).toBe('date: required');
    expect(refusal(version, { status: 'preprint', date: '2020', doi: null })).toMatch(
      /^doi: null is not a value/,
    );
  });
});

describe('codec()', () => {
  it('refuses a bad spec up front, naming the path', () => {
    const attempt = (spec: unknown) => {
      try {
        codec(spec as CodecSpec);
      } catch (e) {
        expect(e).toBeInstanceOf(ProfileError);
        return (e as ProfileError).message;
      }
      throw new Error('accepted');
    };
    expect(attempt({ type: 'floatt' })).toMatch(/type: unknown codec "floatt"/);
    expect(attempt({ type: 'list', of: { type: 'decimal', maxScale: -1 }, maxItems: 2 })).toMatch(
      /^invalid codec spec:\nof\.maxScale: /m,
    );
    expect(attempt({ type: 'text', maxLength: 3, minLength: 5 })).toMatch(
      /minLength: minLength 5 is greater than maxLength 3/,
    );
    expect(attempt({ type: 'quantity', units: ['mg', 'parsecs'] })).toMatch(
      /units\.1: "parsecs" is not a UCUM unit/,
    );
    expect(attempt({ type: 'money', currencies: ['EUR', 'XXY'] })).toMatch(
      /currencies\.1: "XXY" is not an ISO 4217/,
    );
    expect(attempt({ type: 'enum', values: ['a', 'a'] })).toMatch(/values\.1: "a" is listed twice/);
    expect(attempt({ type: 'text', maxLength: 3, pattern: '(' })).toMatch(
      /pattern: pattern does not compile/,
    );
    expect(attempt({ type: 'decimal', min: '2', max: '1' })).toMatch(/min: min 2 is greater than max 1/);
    expect(attempt({ type: 'decimal', min: 0 })).toMatch(/min: Invalid input/);
    expect(attempt({ type: 'text', maxLength: 3, max: 4 })).toMatch(/Unrecognized key: "max"/);
  });
  it('throws ProfileError from encode and decode on a bad value', () => {
    const d = codec({ type: 'decimal' });
    expect(() => d.decode(1.5)).toThrow(ProfileError);
    expect(() => d.encode('x')).toThrow(/invalid exact decimal/);
  });
  it('describes each codec for people', () => {
    expect(describeCodec({ type: 'list', of: { type: 'language' }, maxItems: 5 })).toBe(
      'list of up to 5 × BCP 47 language tag',
    );
    expect(describeCodec({ type: 'ref', kinds: ['finding', 'publication'] })).toBe(
      'reference to a finding or publication (kind:slug)',
    );
    expect(describeCodec({ type: 'decimal', maxScale: 2, min: '0' })).toBe(
      'exact decimal as a string (scale kept, e.g. "1.10"), at most 2 decimal places, at least 0',
    );
  });
});

describe('types', () => {
  it('gives each codec the value type of its spec', () => {
    expectTypeOf(codec({ type: 'integer' }).decode).returns.toEqualTypeOf<number>();
    expectTypeOf(codec({ type: 'integer', big: true }).decode).returns.toEqualTypeOf<bigint>();
    expectTypeOf(codec({ type: 'enum', values: ['a', 'b'] }).decode).returns.toEqualTypeOf<'a' | 'b'>();
    expectTypeOf(codec({ type: 'money' }).decode).returns.toEqualTypeOf<Money>();
    expectTypeOf(codec({ type: 'list', of: { type: 'quantity' }, maxItems: 3 }).decode).returns.toEqualTypeOf<
      Quantity[]
    >();
    const version = codec({
      type: 'object',
      fields: {
        date: { codec: { type: 'date' }, required: true, description: 'd' },
        doi: { codec: { type: 'doi' }, required: false, description: 'x' },
      },
    });
    expectTypeOf(version.decode).returns.toEqualTypeOf<{ date: string; doi?: string }>();
  });

  it('refuses a spec nested past the depth limit before parsing it', () => {
    let spec: unknown = { type: 'text', maxLength: 1 };
    for (let i = 0; i < 10_000; i++) spec = { type: 'list', of: spec, maxItems: 1 };
    expect(() => codec(spec as CodecSpec)).toThrow(/nests at most 48 levels deep/);
  });
});
