/**
 * The `search` and `fetch` tools of `/mcp` (SPEC §7d) in the shape ChatGPT's connectors and deep
 * research read (OpenAI, "Building MCP servers for ChatGPT and API integrations"): `search({ query })`
 * answers `{ results: [{ id, title, text, url, metadata }] }` and `fetch({ id })` answers
 * `{ id, title, text, url, metadata }`, each as exactly one text content item holding that JSON.
 *
 * A result is a passage, not a whole document: its id names the document, the page the passage
 * starts on and its span in the document's text, so `fetch` reads it again under the caller's
 * access as it is then (nothing is kept between calls), and its url opens the document page at
 * the passage, highlighted, as a citation chip's link does (`/documents/:id?page=P&quote=…`).
 *
 * @example
 * passageId({ documentId: 'doc-1', span: { page: 2, start: 120, end: 980 } }) // 'doc-1#p2:120-980'
 * parsePassageId('doc-1#abstract') // { documentId: 'doc-1', span: null }
 */
import { z } from 'zod';
import { SPONGE_LIMITS } from './limits.ts';
import { READ_PASSAGE_MAX } from './research.ts';

/** Where a passage lies; `span` null is the document's abstract, which is kept apart from its text. */
export interface PassageAt {
  documentId: string;
  span: { page: number; start: number; end: number } | null;
}

/** The longest id a passage can have: a document id and the longest page and span suffix. */
export const PASSAGE_ID_MAX = SPONGE_LIMITS.idChars + 40;

export function passageId({ documentId, span }: PassageAt): string {
  return span === null ? `${documentId}#abstract` : `${documentId}#p${span.page}:${span.start}-${span.end}`;
}

// The suffix is matched from the end, so a document id holding '#' still parses.
const PASSAGE_ID = /^(.+)#(?:abstract|p([1-9]\d{0,8}):(\d{1,10})-(\d{1,10}))$/s;

/** The passage an id from `search` names, or null for anything that is not one. */
export function parsePassageId(id: string): PassageAt | null {
  const m = PASSAGE_ID.exec(id);
  if (m === null || m[1]!.length > SPONGE_LIMITS.idChars) return null;
  if (m[2] === undefined) return { documentId: m[1]!, span: null };
  const [page, start, end] = [m[2], m[3], m[4]].map(Number) as [number, number, number];
  return end > start ? { documentId: m[1]!, span: { page, start, end } } : null;
}

/** Why `id` is refused, in words (the id shown cut short: it is the caller's own text). */
export function passageIdProblem(id: string): string {
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  return (
    `id: “${shown}” is not an id that search gives; ids name a passage, as doc-1#p2:120-980 ` +
    '(page 2, characters 120 to 980) or doc-1#abstract.'
  );
}

/**
 * What a result says of its document, as the document view has it: the authors always, and the
 * year, DOI, venue, tags and citation key where the view carries them (SPEC §6d).
 */
export interface DocumentFacts {
  id: string;
  title: string;
  authors: readonly string[];
  abstract: string;
  year?: number | null;
  doi?: string | null;
  venue?: string;
  tags?: readonly string[];
  citationKey?: string;
}

const VIEW_METADATA = ['year', 'doi', 'venue', 'tags', 'citationKey'] as const;

const metadataSchema = z.object({
  documentId: z.string(),
  /** The page the passage starts on (absent for a passage of the abstract). */
  page: z.number().int().optional(),
  authors: z.array(z.string()),
  year: z.number().int().nullable().optional(),
  /** Lowercase, without `https://doi.org/`. */
  doi: z.string().nullable().optional(),
  venue: z.string().optional(),
  tags: z.array(z.string()).optional(),
  /** What a BibTeX entry of the document is keyed by (`hughes2017`). */
  citationKey: z.string().optional(),
});

const passageResultSchema = z.object({
  /** The passage, for `fetch`. */
  id: z.string(),
  /** The document's title. */
  title: z.string(),
  /** The passage's text (`search`: the matching passage; `fetch`: at most 4,000 characters of it). */
  text: z.string(),
  /** The document page at the passage, highlighted (the document page for a passage of the abstract). */
  url: z.string(),
  metadata: metadataSchema,
});
export type PassageResult = z.infer<typeof passageResultSchema>;

export const searchOutputSchema = z.object({ results: z.array(passageResultSchema) });
export const fetchOutputSchema = passageResultSchema;

function metadataOf(doc: DocumentFacts, page: number | null): PassageResult['metadata'] {
  const out: PassageResult['metadata'] = {
    documentId: doc.id,
    ...(page === null ? {} : { page }),
    authors: [...doc.authors],
  };
  for (const key of VIEW_METADATA) {
    const value = doc[key];
    if (value !== undefined) Object.assign(out, { [key]: value });
  }
  return out;
}

/** The document page at a quote, as a citation chip links to it (apps/web shared/paths.ts). */
function passageUrl(origin: string, documentId: string, at: { page: number; quote: string } | null): string {
  const page = `${origin}/documents/${encodeURIComponent(documentId)}`;
  return at === null ? page : `${page}?page=${at.page}&quote=${encodeURIComponent(at.quote)}`;
}

/** A search hit: the passage's span in the document's text ([0, 0) for a passage of the abstract). */
export interface PassageHit {
  documentId: string;
  page: number;
  start: number;
  end: number;
  passage: string;
}

/**
 * `search`'s answer from the library's hits and the owner's documents as the view has them; a hit
 * whose document is not among `docs` (removed since) is left out.
 */
export function searchResults(
  origin: string,
  hits: readonly PassageHit[],
  docs: readonly DocumentFacts[],
): z.infer<typeof searchOutputSchema> {
  const byId = new Map(docs.map((d) => [d.id, d]));
  return {
    results: hits.flatMap((hit) => {
      const doc = byId.get(hit.documentId);
      if (doc === undefined) return [];
      const at = hit.end > hit.start ? { page: hit.page, quote: hit.passage } : null;
      const span = at && { page: hit.page, start: hit.start, end: hit.end };
      return [
        {
          id: passageId({ documentId: doc.id, span }),
          title: doc.title,
          text: hit.passage,
          url: passageUrl(origin, doc.id, at),
          metadata: metadataOf(doc, at?.page ?? null),
        },
      ];
    }),
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * `fetch`'s answer: the passage as read_passage read it (`passage`; at most 4,000 characters), or
 * for an id of the abstract (`passage` null) the document's abstract cut as long. Its url is the
 * one `search` gave for the same passage: a hit's passage is its text with whitespace runs made
 * one space, as the quote here is.
 */
export function fetchedPassage(
  origin: string,
  id: string,
  doc: DocumentFacts,
  passage: { page: number; text: string } | null,
): PassageResult {
  let cut = Math.min(doc.abstract.length, READ_PASSAGE_MAX);
  if (cut < doc.abstract.length && isHighSurrogate(doc.abstract.charCodeAt(cut - 1))) cut--;
  const text = passage === null ? doc.abstract.slice(0, cut) : passage.text;
  const at = passage && { page: passage.page, quote: passage.text.replace(/\s+/g, ' ').trim() };
  return {
    id,
    title: doc.title,
    text,
    url: passageUrl(origin, doc.id, at),
    metadata: metadataOf(doc, at?.page ?? null),
  };
}
