/**
 * The library tools for one run (SPEC §7b): `library.search` and `library.read` with the run token,
 * and what the run has read through them, so a note that says where it came from (`data.source`)
 * can be checked against a passage the run actually saw before it is written.
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
import { libraryInputs, noteSourceSchema } from '@sponge/contract';
import type { Change, LibraryHit, LibraryPassage } from '@sponge/contract';
import type { z } from 'zod';
import { invalidInput, toMemoryToolError } from './errors.ts';
import { trpcUrl } from './api-url.ts';

export type LibrarySearchInput = z.input<(typeof libraryInputs)['library.search']>;
export type LibraryReadInput = z.input<(typeof libraryInputs)['library.read']>;

/** A stretch of a document this run has seen: a passage read, or the passage of a search hit. */
interface SeenPassage {
  documentId: string;
  page: number;
  text: string;
}

/** A note whose `data.source` was left out of the write, and why (said to the agent). */
export interface DroppedSource {
  name: string;
  reason: string;
}

export interface LibraryTools {
  search(input: LibrarySearchInput): Promise<LibraryHit[]>;
  read(input: LibraryReadInput): Promise<LibraryPassage>;
  /** What this run has seen so far, oldest first. */
  readonly seen: readonly SeenPassage[];
  /** Whether a passage of that document this run saw holds the quote (case- and whitespace-insensitive). */
  wasRead(documentId: string, quote: string): boolean;
  /**
   * The changes with every `data.source` the run cannot vouch for taken out: a source that is not
   * `{ documentId, page, quote }`, or whose quote occurs in no passage of that document this run
   * read (case- and whitespace-insensitive).
   */
  checkSources(changes: readonly Change[]): { changes: Change[]; dropped: DroppedSource[] };
}

/** The two API calls under the tools: the run token's tRPC client. */
interface LibraryCalls {
  search(input: z.output<(typeof libraryInputs)['library.search']>): Promise<LibraryHit[]>;
  read(input: z.output<(typeof libraryInputs)['library.read']>): Promise<LibraryPassage>;
}

export interface LibraryToolsOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` (`/trpc` is added when missing). */
  url: string;
  runToken: string;
  fetch?: typeof globalThis.fetch;
  /** Per call, default 10,000 ms. */
  timeoutMs?: number;
}

/** Lower case, whitespace runs as one space: how a quote is compared with what was read. */
function normalizeQuote(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whether `quote` occurs in a passage of that document among `seen`. */
function quoteWasRead(seen: readonly SeenPassage[], documentId: string, quote: string): boolean {
  const wanted = normalizeQuote(quote);
  return seen.some((p) => p.documentId === documentId && normalizeQuote(p.text).includes(wanted));
}

/**
 * The library tools of a run over the API, with its run token.
 *
 * @example
 * const library = createLibraryTools({ url, runToken });
 * const [hit] = await library.search({ query: 'degree heating weeks' });
 * const passage = await library.read({ documentId: hit.documentId, page: hit.page });
 */
export function createLibraryTools(options: LibraryToolsOptions): LibraryTools {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const library = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: trpcUrl(options.url),
        headers: { authorization: `Bearer ${options.runToken}` },
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  }).library;
  return libraryToolsOver({
    search: (input) => library.search.query(input, { signal: AbortSignal.timeout(timeoutMs) }),
    read: (input) => library.read.query(input, { signal: AbortSignal.timeout(timeoutMs) }),
  });
}

/** The library tools over any two calls: validates inputs, keeps what was seen, checks sources. */
function libraryToolsOver(calls: LibraryCalls): LibraryTools {
  const seen: SeenPassage[] = [];

  async function search(input: LibrarySearchInput): Promise<LibraryHit[]> {
    const parsed = libraryInputs['library.search'].safeParse(input);
    if (!parsed.success) throw invalidInput('search_library', parsed.error.issues);
    let hits: LibraryHit[];
    try {
      hits = await calls.search(parsed.data);
    } catch (e) {
      throw toMemoryToolError(e);
    }
    for (const hit of hits) seen.push({ documentId: hit.documentId, page: hit.page, text: hit.passage });
    return hits;
  }

  async function read(input: LibraryReadInput): Promise<LibraryPassage> {
    const parsed = libraryInputs['library.read'].safeParse(input);
    if (!parsed.success) throw invalidInput('read_passage', parsed.error.issues);
    let passage: LibraryPassage;
    try {
      passage = await calls.read(parsed.data);
    } catch (e) {
      throw toMemoryToolError(e);
    }
    seen.push({ documentId: passage.documentId, page: passage.page, text: passage.text });
    return passage;
  }
  function checkSources(changes: readonly Change[]): { changes: Change[]; dropped: DroppedSource[] } {
    const dropped: DroppedSource[] = [];
    const checked = changes.map((change): Change => {
      if (change.op === 'remove') return change;
      const data = change.data;
      if (typeof data !== 'object' || data === null || Array.isArray(data) || !('source' in data))
        return change;
      const { source, ...rest } = data;
      const parsed = noteSourceSchema.safeParse(source);
      const reason = !parsed.success
        ? 'data.source must be { documentId, page, quote } with a quote of at most 500 characters'
        : quoteWasRead(seen, parsed.data.documentId, parsed.data.quote)
          ? null
          : `the quote does not occur in any passage of ${parsed.data.documentId} read in this run; ` +
            'read the passage (read_passage) and copy the quote from it exactly';
      if (reason === null) return change;
      dropped.push({ name: change.name, reason });
      return { ...change, data: rest };
    });
    return { changes: checked, dropped };
  }

  const wasRead = (documentId: string, quote: string) => quoteWasRead(seen, documentId, quote);
  return { search, read, seen, wasRead, checkSources };
}
