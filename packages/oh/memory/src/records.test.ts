import { describe, expect, it } from 'vitest';
import { MemoryError } from './errors.ts';
import { canonicalData, canonicalJson, kindOf, recordDigest, sha256Hex, shortDigest } from './records.ts';

describe('canonicalJson (RFC 8785)', () => {
  it('formats numbers the ECMAScript way (RFC 8785 §3.2.2.3 and Appendix B)', () => {
    const vectors: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1, '1'],
      [-1, '-1'],
      [0.1, '0.1'],
      [1e21, '1e+21'],
      [1e20, '100000000000000000000'],
      [1e-7, '1e-7'],
      [0.000001, '0.000001'],
      [123456789012345680000, '123456789012345680000'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9007199254740992, '9007199254740992'],
      [-9007199254740992, '-9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [4.5, '4.5'],
      [333333333.3333333, '333333333.3333333'],
    ];
    for (const [value, expected] of vectors) expect(canonicalJson(value), String(value)).toBe(expected);
  });

  it('reproduces the RFC 8785 §3.2.2 sample (whitespace, numbers, literals, escapes)', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units, not by locale or code point (RFC 8785 §3.2.3 sample)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Compared as text: Object.keys would move the integer-like key '1' first.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('keeps array order and nests', () => {
    expect(canonicalJson({ b: [3, 1, { z: 1, a: 2 }], a: 'x' })).toBe('{"a":"x","b":[3,1,{"a":2,"z":1}]}');
  });

  it('refuses what has no canonical form as invalid_input', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(MemoryError);
    expect(() => canonicalJson('\ud800')).toThrow(/canonical/);
  });
});

describe('records', () => {
  it('kindOf takes the part before the colon', () => {
    expect(kindOf('lead:reef-survey-2016')).toBe('lead');
    expect(kindOf('finding:a:b')).toBe('finding');
  });

  it('shortDigest shows 4 hex digits and an ellipsis', () => {
    expect(shortDigest('3f9a0c0d')).toBe('3f9a...');
  });

  it('recordDigest is sha256 of canonical {kind,name,text,data,links} with null data and [] links when absent', () => {
    const absent = recordDigest({ kind: 'lead', name: 'lead:x', text: 'hello' });
    const explicit = sha256Hex('{"data":null,"kind":"lead","links":[],"name":"lead:x","text":"hello"}');
    expect(absent).toBe(explicit);
    expect(absent).toMatch(/^[0-9a-f]{64}$/);
    expect(recordDigest({ kind: 'lead', name: 'lead:x', text: 'hello', data: null, links: [] })).toBe(absent);
  });

  it('the digest depends on link order and on data', () => {
    const a = { rel: 'supports' as const, to: 'lead:a' };
    const b = { rel: 'depends_on' as const, to: 'lead:b' };
    const base = { kind: 'lead', name: 'lead:x', text: 't' };
    expect(recordDigest({ ...base, links: [a, b] })).not.toBe(recordDigest({ ...base, links: [b, a] }));
    expect(recordDigest({ ...base, data: { n: 1 } })).not.toBe(recordDigest({ ...base, data: { n: 2 } }));
    // Key order inside data does not matter: canonical JSON sorts it.
    expect(recordDigest({ ...base, data: { x: 1, y: 2 } })).toBe(
      recordDigest({ ...base, data: { y: 2, x: 1 } }),
    );
  });

  it('data is at most 16 KiB as canonical JSON', () => {
    const fits = 'x'.repeat(16 * 1024 - 2); // the quotes make it exactly 16,384 bytes
    expect(canonicalData(fits)).toHaveLength(16 * 1024);
    expect(() => canonicalData(`${fits}x`, 'changes[0].data')).toThrow(
      /changes\[0\]\.data is 16,385 bytes.*16 KiB/,
    );
    // Multi-byte characters count as bytes.
    expect(() => canonicalData('é'.repeat(8200))).toThrow(MemoryError);
    expect(canonicalData(undefined)).toBeNull();
    expect(canonicalData(null)).toBeNull();
  });
});
