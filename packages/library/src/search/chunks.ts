/**
 * How a document is cut for search (SPEC §6b): one chunk per paragraph of a page (the abstract
 * first, on page 1), at most `CHUNK_CHARS` each; an overlong paragraph is cut at sentences, then
 * hard. Paragraphs are not packed together: a short on-topic paragraph keeps its meaning instead
 * of being diluted by its neighbours. Every chunk keeps its page and its character span in the
 * document's stored text (pages joined by a blank line, as documents/documents.ts joinPages does), so a
 * hit can say where it is and a reader can open it there.
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
  /**
   * Where the passage lies in the document's text: [start, end) offsets of its first and past its
   * last character. A passage of the abstract (kept apart from the text) has the span [0, 0).
   */
  start: number;
  end: number;
}

export interface ChunkableDocument {
  title: string;
  abstract: string;
  pages: readonly string[];
}

export function chunkDocument(doc: ChunkableDocument): Chunk[] {
  const chunks: Chunk[] = [];
  const push = (page: number, text: string, start: number, end: number) =>
    chunks.push({ chunk: chunks.length, page, text, start, end });
  for (const piece of cutParagraph(flatten(doc.abstract))) push(1, piece, 0, 0);
  let pageStart = 0;
  doc.pages.forEach((pageText, i) => {
    for (const { text, at } of paragraphs(pageText)) {
      const flat = flattenWithOffsets(text);
      let cursor = 0;
      for (const piece of cutParagraph(flat.text)) {
        // Pieces are consecutive stretches of the flattened paragraph (cutParagraph only joins
        // what was separated by one space), so each is found after the one before.
        const from = flat.text.indexOf(piece, cursor);
        cursor = from + piece.length;
        const start = pageStart + at + flat.offsets[from]!;
        const end = pageStart + at + flat.offsets[cursor - 1]! + 1;
        push(i + 1, piece, start, end);
      }
    }
    pageStart += pageText.length + 2; // joinPages puts a blank line between pages
  });
  // A document of only a title is still findable by it.
  if (chunks.length === 0) push(1, '', 0, 0);
  return chunks;
}

/** The paragraphs of a page (split at blank lines) with where each starts in it. */
function paragraphs(page: string): Array<{ text: string; at: number }> {
  const out: Array<{ text: string; at: number }> = [];
  const separator = /\n\s*\n/g;
  let at = 0;
  for (const m of page.matchAll(separator)) {
    out.push({ text: page.slice(at, m.index), at });
    at = m.index + m[0].length;
  }
  out.push({ text: page.slice(at), at });
  return out;
}

/** `flatten`, and for each character of the result the offset it came from. */
function flattenWithOffsets(text: string): { text: string; offsets: number[] } {
  let out = '';
  const offsets: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      space = out !== '';
      continue;
    }
    if (space) {
      out += ' ';
      offsets.push(i - 1);
      space = false;
    }
    out += c;
    offsets.push(i);
  }
  return { text: out, offsets };
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

/** Splits stored text back into pages by their start offsets (see documents/documents.ts joinPages). */
export function splitPages(text: string, pageStarts: readonly number[]): string[] {
  return pageStarts.map((start, i) => {
    const next = pageStarts[i + 1];
    return text.slice(start, next === undefined ? undefined : next - 2);
  });
}
