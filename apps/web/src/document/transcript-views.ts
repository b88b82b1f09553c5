/**
 * What a run's transcript shows beside the messages and memory cards (UI.md, SPEC §7b): the
 * library cards ("Searched the library for …", "Read p. 4 of …") and, under an agent's reply,
 * the citations as the server judged them. A verified quote links to its passage, highlighted,
 * and says no more than was checked: that the quote is on that page, and whether the passage
 * supports its sentence (checked with a model), which is a separate claim; an unverified one says
 * so, and why, and links nowhere (a link would pretend the passage is there); a working note is
 * never evidence and says so.
 */
import { quoteTooShort } from '@sponge/contract';
import type { Citation, CitationSupport, TranscriptItem } from '@sponge/contract';
import { documentPagePath, documentPath, documentQuotePath } from '../shared/paths.ts';

export type LibraryCard = Extract<TranscriptItem, { type: 'library' }>;

const hits = (n: number): string => `${n.toLocaleString('en')} ${n === 1 ? 'hit' : 'hits'}`;

/** A library card in words, and where it leads: a read card opens what was read. */
export function libraryCardView(card: LibraryCard): { text: string; href: string | null } {
  if (card.action === 'searched') {
    const where = card.title ? `“${card.title}”` : 'the library';
    const found = card.count === undefined ? '' : ` — ${hits(card.count)}`;
    return { text: `Searched ${where} for “${card.query ?? ''}”${found}`, href: null };
  }
  const what = card.title ? `“${card.title}”` : 'a document no longer in your library';
  const text = card.page === undefined ? `Read ${what}` : `Read p. ${card.page} of ${what}`;
  const href =
    card.documentId === undefined || card.title === undefined
      ? null
      : card.page === undefined
        ? documentPath(card.documentId)
        : documentPagePath(card.documentId, card.page);
  return { text, href };
}

/** What the chip says of support, by the server's word: checked (either way) or not. */
const SUPPORT_WORDS: Record<CitationSupport, string> = {
  supported: 'supports this sentence',
  unsupported: 'does not support this sentence',
  unchecked: 'support not checked',
};

type CitationView =
  /** A quote found on its page: a chip that opens the passage, and whether it supports its sentence. */
  | {
      kind: 'verified';
      /** The document's title. */
      label: string;
      /** "quote found on p. 4": all that `verified` means. */
      found: string;
      support: { kind: CitationSupport; words: string };
      quote: string;
      href: string;
    }
  /** A quote the server did not find where it was cited. */
  | { kind: 'unverified'; label: string; quote: string | null; why: string }
  /** One of the run's working notes: shown, never as evidence; a forgotten one has no name. */
  | { kind: 'note'; label: string | null; why: string; href: string | null }
  /** A quote of a document that is no longer the owner's to read (removed since). */
  | { kind: 'gone'; label: string; why: string };

/**
 * How one citation is shown. `memoryHref` is the Memory panel at the run's session, where its
 * notes are (null when the run has no memory).
 */
export function citationView(c: Citation, memoryHref: string | null): CitationView {
  const isNote = c.note !== undefined || (c.documentId === undefined && c.quote === undefined);
  if (isNote) {
    // A note's name is shown only while the session holds it: after Forget now it is gone, and
    // the chip says what it was in the words the reply text uses for it.
    if (c.status === 'note') {
      return c.note === undefined
        ? { kind: 'note', label: null, why: 'a forgotten note — not evidence', href: null }
        : { kind: 'note', label: c.note, why: 'working note — not evidence', href: memoryHref };
    }
    return {
      kind: 'unverified',
      label: c.note ?? 'a working note',
      quote: null,
      why: 'unverified — no such note in this run’s memory',
    };
  }
  const title = c.title ?? 'a document not in your library';
  const label = c.page === undefined ? title : `p. ${c.page} · ${title}`;
  if (c.status === 'verified') {
    // The title and quote are given while the document is the owner's own; once removed, neither.
    if (c.documentId === undefined || c.page === undefined || !c.quote || c.title === undefined) {
      return { kind: 'gone', label, why: 'the cited document is no longer in your library' };
    }
    const support = c.support ?? 'unchecked';
    return {
      kind: 'verified',
      // The page is said once, with what was found on it.
      label: title,
      found: `quote found on p. ${c.page}`,
      support: { kind: support, words: SUPPORT_WORDS[support] },
      quote: c.quote,
      href: documentQuotePath(c.documentId, c.page, c.quote),
    };
  }
  return {
    kind: 'unverified',
    label,
    quote: c.quote ?? null,
    // The server's own rule: such a quote is never looked for, so "not found" would be untrue.
    why:
      c.quote !== undefined && quoteTooShort(c.quote)
        ? 'unverified — quote too short to check'
        : 'unverified — the quote was not found on that page',
  };
}

/**
 * The documents a reply cites, once each in the order first cited, for *Copy bibliography*: only
 * passages of documents the reader may still see (a title came with them) — not notes, nor a
 * removed document, which `documents.cite` would refuse.
 */
export function citedDocumentIds(citations: readonly Citation[]): string[] {
  const ids: string[] = [];
  for (const c of citations)
    if (c.documentId !== undefined && c.title !== undefined && !ids.includes(c.documentId))
      ids.push(c.documentId);
  return ids;
}
