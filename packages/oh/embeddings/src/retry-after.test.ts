import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.ts';

describe('parseRetryAfter', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  const now = Date.parse('2026-12-04T12:00:00Z');

  it('reads seconds', () => {
    expect(parseRetryAfter(h({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after': ' 0 ' }), now)).toBe(0);
    expect(parseRetryAfter(h({ 'retry-after': '1.5' }), now)).toBe(1500);
  });

  it('reads an HTTP date, as the time left until then (none for a date past)', () => {
    expect(parseRetryAfter(h({ 'retry-after': 'Fri, 04 Dec 2026 12:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(h({ 'retry-after': 'Fri, 04 Dec 2026 11:00:00 GMT' }), now)).toBe(0);
  });

  it("prefers OpenAI's retry-after-ms", () => {
    expect(parseRetryAfter(h({ 'retry-after-ms': '150', 'retry-after': '2' }), now)).toBe(150);
    // An unreadable retry-after-ms falls back to Retry-After.
    expect(parseRetryAfter(h({ 'retry-after-ms': 'soon', 'retry-after': '2' }), now)).toBe(2000);
  });

  it('takes garbage as no hint', () => {
    for (const value of ['soon', '-1', '1e3', '0x10', '', '   ', 'Fri, 99 Foo 2026'])
      expect(parseRetryAfter(h({ 'retry-after': value }), now), value).toBeUndefined();
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
    // A plain record works too (the agent runtime's SDK gives headers that way).
    const record: Record<string, string> = { 'retry-after': '3' };
    expect(parseRetryAfter({ get: (name) => record[name] }, now)).toBe(3000);
  });
});

describe('the @oh/embeddings/retry-after entry', () => {
  it('loads this file alone: it imports nothing (the hosted runtime takes it without an adapter)', () => {
    const source = readFileSync(new URL('./retry-after.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*(import|export)\b[^;]*\bfrom\s*['"]/m);
    expect(source).not.toMatch(/\bimport\s*\(/);
  });
});
