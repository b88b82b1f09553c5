/**
 * How a document is cut for search (SPEC §6b): one chunk per paragraph of a page (the abstract
 * first, on page 1), at most `CHUNK_CHARS` each; an overlong paragraph is cut at sentences, then
 * hard. Paragraphs are not packed together: a short on-topic paragraph keeps its meaning instead
 * of being diluted by its neighbours. Every chunk keeps its page, so a hit can say where it is.
 */
import { createHash } from 'node:crypto';

// Not measured: longer chunks are fewer vectors per document and coarser hits (a hit names a
// longer passage), shorter ones more vectors and less context for each.
export const CHUNK_CHARS = 800;

export interface Chunk {
  /** 0-based position in the document. */
  chunk: number;
  /** 1-based page the chunk comes from. */
  page: number;
  /** The passage, whitespace runs collapsed. */
  text: string;
}

export interface ChunkableDocument {
  title: string;
  abstract: string;
  pages: readonly string[];
}

export function chunkDocument(doc: ChunkableDocument): Chunk[] {
  const chunks: Chunk[] = [];
  const push = (page: number, text: string) => chunks.push({ chunk: chunks.length, page, text });
  for (const piece of cutParagraph(flatten(doc.abstract))) push(1, piece);
  doc.pages.forEach((pageText, i) => {
    for (const paragraph of pageText.split(/\n\s*\n/)) {
      for (const piece of cutParagraph(flatten(paragraph))) push(i + 1, piece);
    }
  });
  // A document of only a title is still findable by it.
  if (chunks.length === 0) push(1, '');
  return chunks;
}

/** What the adapter embeds for a chunk: the title gives every passage its context. */
export function embeddingText(title: string, chunk: Chunk): string {
  return chunk.text === '' ? title : `${title}\n${chunk.text}`;
}

/** Identifies the content chunks were made from; a resumed indexing keeps only matching ones. */
export function contentDigest(doc: ChunkableDocument): string {
  return createHash('sha256')
    .update(JSON.stringify([doc.title, doc.abstract, doc.pages]), 'utf8')
    .digest('hex');
}

function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cutParagraph(p: string): string[] {
  if (p === '') return [];
  if (p.length <= CHUNK_CHARS) return [p];
  const pieces: string[] = [];
  let current = '';
  for (const sentence of p.split(/(?<=[.!?])\s+/)) {
    for (let i = 0; i < sentence.length; i += CHUNK_CHARS) {
      const part = sentence.slice(i, i + CHUNK_CHARS);
      if (current !== '' && current.length + 1 + part.length > CHUNK_CHARS) {
        pieces.push(current);
        current = part;
      } else current = current === '' ? part : `${current} ${part}`;
    }
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

/** Splits stored text back into pages by their start offsets (see data/documents.ts joinPages). */
export function splitPages(text: string, pageStarts: readonly number[]): string[] {
  return pageStarts.map((start, i) => {
    const next = pageStarts[i + 1];
    return text.slice(start, next === undefined ? undefined : next - 2);
  });
}
