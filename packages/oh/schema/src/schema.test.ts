import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NAME_RE, kindOf, nameSchema, rememberInputSchema } from './index.ts';

// Oh's schema entry is loaded by browsers and agent runtimes: it must not need Node or a driver.
const dir = new URL('.', import.meta.url);
const sources = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => [f, readFileSync(new URL(f, dir), 'utf8')]),
);

describe('@oh/schema', () => {
  it('imports nothing but zod and its own files', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(3);
    for (const [file, text] of Object.entries(sources)) {
      const specifiers = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      for (const s of specifiers)
        expect(s === 'zod' || s!.startsWith('./'), `${file} imports ${s}`).toBe(true);
    }
  });

  it('names are kind:slug, and kindOf is the part before the colon', () => {
    expect(NAME_RE.test('lead:reef-survey-2016')).toBe(true);
    expect(nameSchema.safeParse('Lead:x').success).toBe(false);
    expect(kindOf('lead:reef-survey-2016')).toBe('lead');
  });

  it('refuses a field the caller may not set, such as an author', () => {
    const call = { basedOn: 0, requestId: 'r1', changes: [{ op: 'add', name: 'lead:a', text: 'a' }] };
    expect(rememberInputSchema.safeParse(call).success).toBe(true);
    expect(rememberInputSchema.safeParse({ ...call, author: 'me' }).success).toBe(false);
  });
});
