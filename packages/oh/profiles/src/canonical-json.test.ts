import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

/** The RFC 8785 reference vectors (fixtures/jcs, Apache 2.0): each input and its canonical form. */
const dir = new URL('fixtures/jcs/', import.meta.url);
const names = readdirSync(new URL('input/', dir)).filter((n) => n.endsWith('.json'));

describe('canonicalJson against the RFC 8785 reference vectors', () => {
  it('has all six pairs', () => {
    expect(names.sort()).toEqual([
      'arrays.json',
      'french.json',
      'structures.json',
      'unicode.json',
      'values.json',
      'weird.json',
    ]);
  });

  it.each(names)('%s: the UTF-8 bytes equal the reference output', (name) => {
    const input = JSON.parse(readFileSync(new URL(`input/${name}`, dir), 'utf8')) as unknown;
    const expected = readFileSync(new URL(`output/${name}`, dir));
    const actual = canonicalJson(input);
    expect(actual).toBe(expected.toString('utf8'));
    expect(Buffer.from(actual, 'utf8').equals(expected)).toBe(true);
    // Canonical JSON is a fixed point: canonicalising the output again changes nothing.
    expect(canonicalJson(JSON.parse(expected.toString('utf8')))).toBe(expected.toString('utf8'));
  });
});
