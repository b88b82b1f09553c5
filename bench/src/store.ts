/** The store under test, opened exactly as the API opens it (its own connection and pragmas). */
import { createMemoryStore, openPurger } from '@oh/memory';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { Change, MemoryStore, Purger } from '@oh/memory';

const TOKEN_SECRET = 'bench-token-secret-0123456789abcdef0123';
const PURGE_KEY = 'bench-purge-key-0123456789abcdef';

/** The bench's document has no reviewed revisions. */
const NO_REVIEWS = { latestRevision: () => Promise.resolve(0), recordsAt: () => Promise.resolve([]) };

export function openStore(
  path: string,
  now?: () => Date,
  synchronous: 'FULL' | 'NORMAL' = 'FULL',
): Promise<MemoryStore> {
  return createMemoryStore({
    url: `file:${path}`,
    tokenSecret: TOKEN_SECRET,
    reviewed: NO_REVIEWS,
    synchronous,
    ...(now ? { now } : {}),
  });
}

/** The store as the API opens it: with recall, so every remember queues a background embedding. */
export function openStoreWithRecall(path: string): Promise<MemoryStore> {
  return createMemoryStore({
    url: `file:${path}`,
    tokenSecret: TOKEN_SECRET,
    reviewed: NO_REVIEWS,
    recall: { adapter: createLocalEmbeddingAdapter() },
  });
}

export function openBenchPurger(path: string): Promise<Purger> {
  return openPurger({ url: `file:${path}`, purgeKey: PURGE_KEY });
}

/** A note text of a realistic size (about the length of a working note an agent writes). */
export const NOTE_TEXT =
  'Methods section of the 2016 reef survey is missing; check the supplement before citing the 31% figure. '.repeat(
    2,
  );

/** `n` new notes named after call `i`, each of the realistic size. */
export const addChanges = (i: number, n: number): Change[] =>
  Array.from({ length: n }, (_, k) => ({ op: 'add' as const, name: `lead:n${i}-${k}`, text: NOTE_TEXT }));
