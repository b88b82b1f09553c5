/**
 * The extraction queue's ledger on its own (queue-ledger.ts): two ledgers on one database are two
 * API processes. shared-queue.test.ts shows the same over HTTP with real PDFs.
 */
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIBRARY_QUOTAS } from '../limits.ts';
import { openTestDatabase } from '../testing/database.ts';
import type { TestDatabase } from '../testing/database.ts';
import { beginExtractionStatements } from './extraction-store.ts';
import { createQueueLedger } from './queue-ledger.ts';

let test: TestDatabase;
let db: Client;
let other: Client;
const now = () => new Date();
beforeEach(async () => {
  test = await openTestDatabase(createLocalEmbeddingAdapter(), {
    owners: ['ada', 'grace'].map((id) => ({ id, name: id })),
  });
  db = test.db;
  other = await test.connect();
});
afterEach(() => test.close());

/** An upload's document and job row, as an upload stores them before its PDF is scheduled. */
async function job(id: string, ownerId: string): Promise<string> {
  await db.batch(
    beginExtractionStatements(
      { id, ownerId, title: id, source: 'pdf', sha256: id },
      now(),
      DEFAULT_LIBRARY_QUOTAS,
    ),
    'write',
  );
  return id;
}

const ledgers = (opts: { maxWaiting?: number; maxWaitMs?: number } = {}) => {
  const rules = {
    now,
    maxWaiting: opts.maxWaiting ?? 8,
    maxWaitMs: opts.maxWaitMs ?? 60_000,
    jobTimeoutMs: 30_000,
  };
  return [
    createQueueLedger({ db, ...rules, pollMs: 5 }),
    createQueueLedger({ db: other, ...rules, pollMs: 5 }),
  ];
};

const live = new AbortController().signal;

describe('the extraction queue ledger', () => {
  it('reads one file of an owner at a time across processes: the second is read once the first is released', async () => {
    const [a, b] = ledgers();
    const first = await job('doc-1', 'ada');
    const second = await job('doc-2', 'ada');
    await a!.admit(first, 'ada', true);
    await a!.claim(first, 'ada', live);
    await b!.admit(second, 'ada', true);
    let claimed = false;
    const waiting = b!.claim(second, 'ada', live).then(() => (claimed = true));
    // Several looks later, still waiting for the first.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(claimed).toBe(false);
    // A third is refused on either: one being read and one waiting.
    const third = await job('doc-3', 'ada');
    await expect(a!.admit(third, 'ada', true)).rejects.toMatchObject({
      reason: 'busy',
      message: expect.stringMatching(/already have a file being read and another one waiting/),
    });
    await a!.release(first);
    await waiting;
    expect(claimed).toBe(true);
  });

  it('counts the files waiting over every process, unless one starts at once', async () => {
    const [a, b] = ledgers({ maxWaiting: 1 });
    await a!.admit(await job('w-1', 'ada'), 'ada', false);
    await expect(b!.admit(await job('w-2', 'grace'), 'grace', false)).rejects.toMatchObject({
      reason: 'busy',
      message: expect.stringMatching(/queue of files waiting to be read is full/),
    });
    // A free thread reads it at once: it never waits, so the full queue does not stop it.
    await b!.admit('w-2', 'grace', true);
  });

  it('gives up waiting past the queue’s wait, and when the request ends', async () => {
    const [a, b] = ledgers({ maxWaitMs: 30 });
    const first = await job('g-1', 'ada');
    await a!.admit(first, 'ada', true);
    await a!.claim(first, 'ada', live);
    const second = await job('g-2', 'ada');
    await b!.admit(second, 'ada', true);
    await expect(b!.claim(second, 'ada', live)).rejects.toMatchObject({ reason: 'busy' });
    const stop = new AbortController();
    const gone = b!.claim(second, 'ada', stop.signal);
    stop.abort(new Error('the request ended'));
    await expect(gone).rejects.toThrow('the request ended');
  });

  it('stops counting a job whose process stopped beating it', async () => {
    const [a] = ledgers({ maxWaiting: 1 });
    await a!.admit(await job('s-1', 'ada'), 'ada', false);
    await db.execute({
      sql: "UPDATE extraction_jobs SET alive_at = '2000-01-01T00:00:00.000Z' WHERE document_id = 's-1'",
    });
    await a!.admit(await job('s-2', 'grace'), 'grace', false);
  });
});
