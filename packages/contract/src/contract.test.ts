import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_REASONS } from './errors.ts';
import {
  ERROR_REASONS,
  LIMITS,
  REASON_TO_CODE,
  SPONGE_LIMITS,
  TOOL_NAMES,
  modelToolDescriptors,
  ownerInputs,
  rememberInputSchema,
  toolArgsSchemas,
  toolDescriptors,
} from './index.ts';

// The contract is loaded by the browser and by agent runtimes: it must not need Node or a driver.
const dir = new URL('.', import.meta.url);
const sources = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(new URL(f, dir), 'utf8')]));

describe('the contract package', () => {
  it("imports nothing but zod, Oh's schema entry and its own files", () => {
    const files = Object.entries(sources).filter(([file]) => !file.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const [file, text] of files) {
      const specifiers = [...String(text).matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      for (const s of specifiers)
        expect(s === 'zod' || s === '@oh/schema' || s!.startsWith('./'), `${file} imports ${s}`).toBe(true);
    }
  });

  it("gives each name one meaning: a name it shares with Oh's schema entry is Oh's own", async () => {
    const contract: Record<string, unknown> = await import('./index.ts');
    const oh: Record<string, unknown> = await import('@oh/schema');
    const shared = Object.keys(contract).filter((name) => name in oh);
    expect(shared).toContain('LIMITS');
    for (const name of shared) expect(contract[name], name).toBe(oh[name]);
    // Named exports only: an `export *` would let a local name shadow Oh's without a word.
    expect(sources['index.ts']).not.toMatch(/export \*/);
  });

  it("keeps Sponge's limits beside Oh's, redefining none of them", () => {
    expect(Object.keys(SPONGE_LIMITS).filter((key) => key in LIMITS)).toEqual([]);
    expect(SPONGE_LIMITS.messageChars).toBe(20_000);
  });

  it('describes the five tools once, in both views, with the same names and order', () => {
    expect(toolDescriptors().map((t) => t.name)).toEqual([...TOOL_NAMES]);
    expect(modelToolDescriptors().map((t) => t.name)).toEqual([
      'remember',
      'query',
      'read',
      'explain',
      'recall',
    ]);
    const api = toolDescriptors().find((t) => t.name === 'remember')!;
    expect([api.procedure, api.type]).toEqual(['agent.remember', 'mutation']);
    expect(Object.keys(api.inputSchema.properties as object).sort()).toEqual([
      'basedOn',
      'changes',
      'requestId',
    ]);
    const model = modelToolDescriptors().find((t) => t.name === 'remember')!;
    // The runtime owns basedOn and requestId: a model is never asked for them.
    expect(Object.keys(model.inputSchema.properties as object)).toEqual(['changes']);
    expect(model.inputSchema.additionalProperties).toBe(false);
  });

  it('refuses unknown fields such as an author or a time', () => {
    const change = { op: 'add', name: 'lead:a', text: 'a' };
    expect(rememberInputSchema.safeParse({ basedOn: 0, requestId: 'r', changes: [change] }).success).toBe(
      true,
    );
    expect(
      rememberInputSchema.safeParse({ basedOn: 0, requestId: 'r', changes: [change], author: 'x' }).success,
    ).toBe(false);
    expect(toolArgsSchemas.remember.safeParse({ changes: [{ ...change, time: 'now' }] }).success).toBe(false);
    const tooMany = Array.from({ length: LIMITS.changesPerCall + 1 }, (_, i) => ({
      ...change,
      name: `lead:a${i}`,
    }));
    expect(toolArgsSchemas.remember.safeParse({ changes: tooMany }).success).toBe(false);
  });

  it('has an input schema for the owner actions, strict as well', () => {
    expect(ownerInputs['runs.accept'].safeParse({ documentId: 'd', mode: 'chat' }).success).toBe(true);
    expect(
      ownerInputs['runs.accept'].safeParse({ documentId: 'd', mode: 'chat', ownerId: 'u' }).success,
    ).toBe(false);
    expect(ownerInputs['review.decide'].safeParse({}).success).toBe(false);
  });

  it("takes a review decision's group: at most 8 more records, each named once", () => {
    const main = {
      documentId: 'd',
      profile: 'research',
      kind: 'finding',
      fields: {},
      name: 'finding:x',
      text: 'X.',
      sourceDocumentId: 'd',
      passage: 'p',
      decision: 'accept',
      comment: 'ok',
    };
    const study = (name: string) => ({ kind: 'study', name, text: 'S.', fields: { title: 'S' } });
    const decide = ownerInputs['review.decide'];
    expect(decide.safeParse(main).success).toBe(true);
    expect(decide.safeParse({ ...main, with: [study('study:a'), study('study:b')] }).success).toBe(true);
    const twice = decide.safeParse({
      ...main,
      with: [study('study:a'), study('finding:x'), study('study:a')],
    });
    expect(twice.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['with.1.name', 'finding:x is named twice in this decision'],
      ['with.2.name', 'study:a is named twice in this decision'],
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => study(`study:s${i}`));
    expect(decide.safeParse({ ...main, with: nine }).error?.issues[0]?.message).toBe(
      'with takes at most 8 records',
    );
    expect(decide.safeParse({ ...main, with: [{ ...study('study:a'), extra: 1 }] }).success).toBe(false);
  });

  it('reads one page of a document by its number', () => {
    const page = ownerInputs['documents.page'];
    expect(page.safeParse({ documentId: 'd', page: 1_900 }).success).toBe(true);
    expect(page.safeParse({ documentId: 'd', page: 0 }).error?.issues[0]?.message).toBe('page is at least 1');
    expect(page.safeParse({ documentId: 'd', page: 1.5 }).success).toBe(false);
  });

  it('gives every store reason a code, and tells an unreachable database (503) from a failed integrity check (500)', () => {
    expect(Object.keys(REASON_TO_CODE).sort()).toEqual([...ERROR_REASONS].sort());
    expect(API_REASONS).toEqual(expect.arrayContaining([...ERROR_REASONS]));
    // `unavailable` says "send it again" (a client retries it), `integrity` says "something is wrong".
    expect(REASON_TO_CODE.unavailable).toBe('SERVICE_UNAVAILABLE');
    expect(REASON_TO_CODE.integrity).toBe('INTERNAL_SERVER_ERROR');
  });
});
