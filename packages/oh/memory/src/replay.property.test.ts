/**
 * Property: for random sequences of remember calls (valid and invalid mixed), the store agrees
 * with a plain in-memory model after every call, an invalid call changes nothing, and replaying
 * the log (verify) reproduces the notes table exactly. 50 runs × 20 calls = 1,000 calls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kindOf, recordDigest } from './records.ts';
import { withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';
import type { Change, JsonValue, Link } from './types.ts';

const NAMES = ['lead:a', 'lead:b', 'lead:c', 'todo:d', 'todo:e', 'figure:f'] as const;
const RUNS = 50;
const CALLS_PER_RUN = 20;

const linkArb: fc.Arbitrary<Link> = fc.record({
  rel: fc.constantFrom('depends_on' as const, 'supports' as const, 'contradicts' as const),
  to: fc.constantFrom(...NAMES),
});
const dataArb: fc.Arbitrary<JsonValue | undefined> = fc.option(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  { nil: undefined },
);
const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    op: fc.constant('add' as const),
    name: fc.constantFrom(...NAMES),
    text: fc.string({ maxLength: 12 }),
    data: dataArb,
    links: fc.option(fc.array(linkArb, { maxLength: 2 }), { nil: undefined }),
  }),
  fc.record({
    op: fc.constant('replace' as const),
    name: fc.constantFrom(...NAMES),
    text: fc.string({ maxLength: 12 }),
    data: dataArb,
    links: fc.option(fc.array(linkArb, { maxLength: 2 }), { nil: undefined }),
  }),
  fc.record({ op: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
);
// Distinct names within a call (the schema refuses duplicates; that path is tested elsewhere).
const callArb = fc.uniqueArray(changeArb, { minLength: 1, maxLength: 4, selector: (c) => c.name });

/** Drops `undefined` optional fields, as JSON over the wire would. */
function clean(change: Change): Change {
  return JSON.parse(JSON.stringify(change)) as Change;
}

/** The model: applies a call if every rule holds, else reports which rule failed. */
function applyModel(
  model: Map<string, string>,
  changes: Change[],
): { next: Map<string, string> } | { refused: string[] } {
  const next = new Map(model);
  // A call breaking several rules may be refused for any one of them.
  const broken = new Set<string>();
  for (const c of changes) {
    if (c.op === 'add' && model.has(c.name)) broken.add('name_exists');
    if (c.op !== 'add' && !model.has(c.name)) broken.add('no_such_note');
  }
  if (broken.size > 0) return { refused: [...broken] };
  for (const c of changes) {
    if (c.op === 'remove') next.delete(c.name);
    else
      next.set(
        c.name,
        recordDigest({ kind: kindOf(c.name), name: c.name, text: c.text, data: c.data, links: c.links }),
      );
  }
  for (const c of changes)
    if (c.op !== 'remove')
      for (const l of c.links ?? []) if (!next.has(l.to)) return { refused: ['no_such_note'] };
  return { next };
}

describe('replay equals projection (property)', () => {
  it(
    `holds for ${RUNS * CALLS_PER_RUN} random remember calls`,
    () =>
      withHarness(async (h) => {
        let calls = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(callArb, { minLength: CALLS_PER_RUN, maxLength: CALLS_PER_RUN }),
            async (sequence) => {
              const { ctx } = await h.session();
              let model = new Map<string, string>();
              let version = 0;
              for (const [i, raw] of sequence.entries()) {
                calls++;
                const changes = raw.map(clean);
                const expected = applyModel(model, changes);
                const result = await outcome(
                  h.store.remember(ctx, { basedOn: version, requestId: `p-${i}`, changes }),
                );
                if ('next' in expected) {
                  expect(result).toBe('ok');
                  model = expected.next;
                  version++;
                } else {
                  expect(expected.refused).toContain(result);
                }
                const stored = new Map((await h.store.notes(ctx.sessionId)).map((n) => [n.name, n.digest]));
                expect(stored).toEqual(model);
                expect((await h.store.getSession(ctx.sessionId))?.version).toBe(version);
              }
              const report = await h.store.verify(ctx.sessionId);
              expect(report).toMatchObject({
                ok: true,
                version,
                logEntries: version,
                notes: model.size,
                mismatches: [],
                problems: [],
              });
              // The question engine, computed from the history, agrees with the projection too.
              const current = await h.store.query(ctx, { question: 'current_notes', limit: 100 });
              expect(new Map(current.rows.map((r) => [r.name, r.digest]))).toEqual(model);
            },
          ),
          { numRuns: RUNS },
        );
        expect(calls).toBe(RUNS * CALLS_PER_RUN);
      }),
    120_000,
  );
});
