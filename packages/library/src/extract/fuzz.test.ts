/**
 * Fuzzing extractDocument with broken and random files (fast-check). Every case must resolve to a
 * well-formed ExtractedDocument or reject with DocumentRejected: never another error, never hang,
 * and no PDF thread may outlive its call.
 *
 * The families run side by side (each one's cases in turn), so the two-thread limit is always
 * under load. The tally printed at the end (cases per family, accepted, refused per message) is
 * what the upload work quotes. FUZZ_SEED=<n> replays a run.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENT_REASONS } from '@sponge/contract';
import { makeEncryptedPdf, makeImageOnlyPdf, makePdf, makeZeroPagePdf } from '@sponge/testing/pdf-fixtures';
import { DocumentRejected, extractDocument } from './index.ts';
import type { ExtractedDocument } from './index.ts';
import { MESSAGES } from './messages.ts';
import { livePdfThreads, MAX_PDF_THREADS } from './pdf-thread.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Generous for a file of a few KiB (they take 0.1–0.3 s); a case that needs it is a finding. */
const TIMEOUT_MS = 10_000;

/** Short names for the refusals, so the tally reads at a glance. */
const LABELS = new Map<string, string>([
  [MESSAGES.notADocument, 'not a document'],
  [MESSAGES.emptyText, 'no text (text file)'],
  [MESSAGES.passwordProtected, 'password-protected'],
  [MESSAGES.damaged, 'damaged'],
  [MESSAGES.noPages, 'no pages'],
  [MESSAGES.noTextLayer, 'no text layer'],
  [MESSAGES.outOfMemory, 'out of memory'],
  [MESSAGES.tooSlow(TIMEOUT_MS), 'too slow'],
]);

type Tally = Map<string, number>;
const tallies = new Map<string, Tally>();
let pdfThreadsAtOnce = 0;

/** Extracts, checks the answer's shape, and counts it under `family`. */
async function check(family: string, bytes: Uint8Array, filename: string, mediaType = ''): Promise<void> {
  const sampler = setInterval(() => (pdfThreadsAtOnce = Math.max(pdfThreadsAtOnce, livePdfThreads())), 5);
  let label: string;
  try {
    const doc: ExtractedDocument = await extractDocument(
      { bytes, filename, mediaType },
      { timeoutMs: TIMEOUT_MS },
    );
    expect(['pdf', 'text', 'markdown']).toContain(doc.source);
    expect(doc.pages.length).toBeGreaterThan(0);
    // Every page has text, or is listed for OCR (a scan), and no other.
    expect(doc.scanned).toEqual(doc.pages.flatMap((p, i) => (/\S/.test(p) ? [] : [i + 1])));
    for (const page of doc.pages) expect(page).not.toMatch(/\0|\r/);
    expect(doc.pages.reduce((n, p) => n + p.length, 0)).toBeLessThanOrEqual(2_000_000);
    expect(doc.title === null || (typeof doc.title === 'string' && doc.title.length <= 300)).toBe(true);
    label = `accepted (${doc.source})`;
  } catch (error) {
    // Anything else than a DocumentRejected fails the property, and fast-check shrinks the case.
    if (!(error instanceof DocumentRejected)) throw error;
    expect(DOCUMENT_REASONS).toContain(error.reason);
    label = `${error.reason}: ${LABELS.get(error.message) ?? error.message}`;
  } finally {
    clearInterval(sampler);
  }
  const tally = tallies.get(family) ?? new Map<string, number>();
  tallies.set(family, tally.set(label, (tally.get(label) ?? 0) + 1));
}

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

afterAll(() => {
  const lines = [`extract fuzz, seed ${SEED}; at most ${pdfThreadsAtOnce} PDF threads at once`];
  for (const [family, tally] of tallies) {
    const total = [...tally.values()].reduce((a, b) => a + b, 0);
    const parts = [...tally].sort((a, b) => b[1] - a[1]).map(([label, n]) => `${label} ${n}`);
    lines.push(`  ${family}: ${total} cases — ${parts.join(', ')}`);
  }
  console.log(lines.join('\n'));
});

// Each case's file is read on a PDF thread; families run at once in each test, so the reads
// overlap as uploads do (at most MAX_PDF_THREADS threads, checked last). Three tests, not one:
// the whole run takes 29–43 s here, more beside the other suites on 2 cores, and no test may take
// over 30 s.
const base = (async () => {
  const valid = await makePdf(
    [
      'A page of ordinary text, long enough to wrap onto a second line at the right margin of the page.',
      'Page two.\nWith a second line.',
      'Page three.',
    ],
    { title: 'Fuzz base' },
  );
  return { valid, bases: { valid, encrypted: makeEncryptedPdf(), zeroPage: makeZeroPagePdf() } };
})();
const header = new TextEncoder().encode('%PDF-1.7\n');
const params = (numRuns: number, offset: number) => ({ seed: SEED + offset, numRuns, endOnFailure: true });

describe('never throws anything but DocumentRejected, never hangs, and leaves no thread behind', () => {
  const bitFlips = (numRuns: number, offset: number) =>
    base.then(({ bases }) =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...(Object.keys(bases) as Array<keyof typeof bases>)),
          fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
          (name, bits) => {
            const bytes = bases[name].slice();
            for (const bit of bits) bytes[(bit >> 3) % bytes.length]! ^= 1 << (bit & 7);
            return check(`bit flips (${name})`, bytes, 'flipped.pdf');
          },
        ),
        params(numRuns, offset),
      ),
    );

  it('the fixtures and truncated PDFs', async () => {
    const { valid, bases } = await base;
    await Promise.all([
      // The untouched fixtures, hand-written and made by pdf-lib.
      (async () => {
        await check('fixtures', valid, 'valid.pdf');
        await check('fixtures', bases.encrypted, 'encrypted.pdf');
        await check('fixtures', bases.zeroPage, 'zero-page.pdf');
        await check('fixtures', await makeImageOnlyPdf(), 'image-only.pdf');
      })(),
      fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: valid.length - 1 }), (length) =>
          check('truncated PDF', valid.slice(0, length), 'cut.pdf'),
        ),
        params(100, 1),
      ),
    ]);
    expect(livePdfThreads()).toBe(0);
  }, 120_000);

  // Apart from the truncated PDFs: together they took 21–31 s, over the suite's 30 s a test.
  it('random bytes after a PDF header', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), (tail) =>
        check('random bytes after a PDF header', concat(header, tail), 'random.pdf'),
      ),
      params(40, 3),
    );
    expect(livePdfThreads()).toBe(0);
  }, 120_000);

  // 150 cases of bit flips in all, in two tests beside the random files.
  it('PDFs with bits flipped, and random bytes', async () => {
    await Promise.all([
      bitFlips(75, 2),
      fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 4096 }),
          fc.constantFrom(['a.pdf', 'application/pdf'], ['a.txt', 'text/plain'], ['a.md', '']),
          (bytes, [filename, mediaType]) => check('random bytes', bytes, filename, mediaType),
        ),
        params(300, 4),
      ),
    ]);
    expect(livePdfThreads()).toBe(0);
  }, 120_000);

  it('more PDFs with bits flipped, and random text', async () => {
    await Promise.all([
      bitFlips(75, 6),
      fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 2000 }), fc.boolean(), (text, md) =>
          check('random text', new TextEncoder().encode(text), md ? 'a.md' : 'a.txt'),
        ),
        params(300, 5),
      ),
    ]);
    expect(livePdfThreads()).toBe(0);
  }, 120_000);

  it('read on at most MAX_PDF_THREADS threads at once, and on more than none', () => {
    // No wall-clock budget: a hang is caught per file (TIMEOUT_MS, a "too slow" finding), and the
    // run's length follows the machine's load, which a pass/fail time would only turn into flakes.
    expect(pdfThreadsAtOnce).toBeLessThanOrEqual(MAX_PDF_THREADS);
    expect(pdfThreadsAtOnce).toBeGreaterThan(0);
  });
});
