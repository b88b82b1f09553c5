/**
 * What a document is (SPEC §6d, migration 027): year, DOI, venue, abstract, tags and a citation
 * key, beside its title and authors. What a file says (a PDF's Info, XMP, a DOI on its first
 * pages) and what a caller says (an import's entry) are cleaned here alike before they are kept;
 * the caller's word wins. The citation key is chosen once, when the document is added, unique
 * in the owner's library, and never changed by an edit: a bibliography keyed by it stays valid.
 * The owner's documents are unique by the SHA-256 of what they came from and by DOI.
 */
import { createHash } from 'node:crypto';
import type { Client, InStatement } from '@libsql/client';
import { METADATA_LIMITS, SPONGE_LIMITS, cleanLine, normaliseDoi, normaliseTags } from '@sponge/contract';
import { LibraryError } from '../errors.ts';
import { live } from './rules.ts';

/** What a file or a caller says a document is: every field optional, anything may be wrong. */
export interface MetadataInput {
  title?: string | null | undefined;
  authors?: readonly string[] | null | undefined;
  year?: number | null | undefined;
  doi?: string | null | undefined;
  venue?: string | null | undefined;
  abstract?: string | null | undefined;
  tags?: readonly string[] | null | undefined;
}

/** Metadata as kept: cleaned and bounded; an absent field is one nobody said anything about. */
export interface CleanMetadata {
  title?: string;
  authors?: string[];
  year?: number | null;
  doi?: string | null;
  venue?: string;
  abstract?: string;
  tags?: string[];
}

const line = (v: unknown, max: number): string | undefined =>
  typeof v === 'string' ? cleanLine(v).replace(/\s+/g, ' ').trim().slice(0, max) : undefined;

/**
 * `input` as the library keeps it, whatever it holds: strings lose control and bidi characters
 * and are cut to their bounds, a year outside 1000..2100 or a DOI that is none is dropped,
 * authors and tags lose empty and repeated entries. Never throws.
 */
export function cleanMetadata(input: unknown): CleanMetadata {
  if (typeof input !== 'object' || input === null) return {};
  const m = input as Record<string, unknown>;
  const out: CleanMetadata = {};
  const title = line(m.title, SPONGE_LIMITS.titleChars);
  if (title) out.title = title;
  if (Array.isArray(m.authors)) {
    const authors = m.authors.flatMap((a) => line(a, SPONGE_LIMITS.authorChars) || []);
    out.authors = [...new Set(authors)].slice(0, SPONGE_LIMITS.authors);
  }
  if (m.year === null) out.year = null;
  else if (typeof m.year === 'number' || (typeof m.year === 'string' && /^\d{4}$/.test(m.year.trim()))) {
    const year = Number(m.year);
    if (Number.isInteger(year) && year >= METADATA_LIMITS.yearMin && year <= METADATA_LIMITS.yearMax)
      out.year = year;
  }
  if (m.doi === null) out.doi = null;
  else if (typeof m.doi === 'string') {
    const doi = normaliseDoi(cleanLine(m.doi));
    if (doi !== null) out.doi = doi;
  }
  const venue = line(m.venue, METADATA_LIMITS.venueChars);
  if (venue !== undefined) out.venue = venue;
  if (typeof m.abstract === 'string')
    out.abstract = m.abstract
      .split(/\r\n?|\n/)
      .map((l) => cleanLine(l).trimEnd())
      .join('\n')
      .trim()
      .slice(0, METADATA_LIMITS.abstractChars);
  if (Array.isArray(m.tags))
    out.tags = normaliseTags(m.tags.flatMap((t) => line(t, METADATA_LIMITS.tagChars) ?? [])).slice(
      0,
      METADATA_LIMITS.tags,
    );
  return out;
}

/** What the file says, then what the caller says over it, field by field. */
export function mergeMetadata(fromFile: unknown, fromCaller: unknown): CleanMetadata {
  return { ...cleanMetadata(fromFile), ...cleanMetadata(fromCaller) };
}

/** The hex SHA-256 of a file's bytes or of a pasted document's stored text. */
export function contentSha256(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Letters and digits of `text` in ASCII, lowercase: `Müller-Lüdenscheidt` → `mullerludenscheidt`. */
function fold(text: string): string {
  return text
    .replace(/ß/g, 'ss')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[œŒ]/g, 'oe')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

const NAME_SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv']);
const TITLE_SKIP = new Set(['a', 'an', 'the', 'on', 'of']);

/** An author's family name: before the comma of `Hughes, Terry P.`, else the last word not a suffix. */
function familyName(author: string): string {
  const comma = author.indexOf(',');
  if (comma > 0) return author.slice(0, comma).trim();
  const words = author.trim().split(/\s+/);
  while (words.length > 1 && NAME_SUFFIXES.has(fold(words.at(-1)!))) words.pop();
  return words.at(-1) ?? '';
}

/**
 * The citation key a document would get in an empty library: the first author's family name,
 * else the first word of the title (not an article), in ASCII and lowercase, then the year.
 *
 * @example citationKeyBase(['Hughes, Terry P.'], 'Global warming…', 2017) // 'hughes2017'
 */
export function citationKeyBase(authors: readonly string[], title: string, year: number | null): string {
  const author = authors.length > 0 ? fold(familyName(authors[0]!)) : '';
  // `gnu-standards`, `kelp_scan`: a file name's words are parts of the title's first word.
  const word = title
    .split(/[\s\-\u2010-\u2015_./:]+/)
    .map(fold)
    .find((w) => w !== '' && !TITLE_SKIP.has(w));
  return `${(author || word || 'doc').slice(0, 40)}${year ?? ''}`;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The keys tried in order: the base, then `a`…`z`, `aa`…`zz` after it (as BibTeX tools do), then
 * one made unique by the document's id, so a key is always found.
 */
function keyCandidates(base: string, documentId: string): string[] {
  const out = [base];
  for (const a of LETTERS) out.push(base + a);
  for (const a of LETTERS) for (const b of LETTERS) out.push(base + a + b);
  out.push(`${base}-${documentId.slice(-8)}`);
  return out;
}

/**
 * Gives the document its citation key if it has none: the first candidate no document of the
 * owner holds, chosen in the statement that writes it, so two documents added at once cannot
 * take the same key. `onlyIf`: a further condition on the document (SQL over `documents`).
 */
export function citationKeyStatement(
  doc: { id: string; authors: readonly string[]; title: string; year: number | null },
  onlyIf: { sql: string; args: string[] } = { sql: '1', args: [] },
): InStatement {
  return {
    sql: `UPDATE documents SET citation_key = (
            SELECT c.value FROM json_each(?) c
             WHERE NOT EXISTS (SELECT 1 FROM documents x WHERE x.owner_id = documents.owner_id AND x.citation_key = c.value)
             ORDER BY c.key LIMIT 1)
          WHERE id = ? AND citation_key IS NULL AND ${onlyIf.sql}`,
    args: [
      JSON.stringify(keyCandidates(citationKeyBase(doc.authors, doc.title, doc.year), doc.id)),
      doc.id,
      ...onlyIf.args,
    ],
  };
}

/**
 * Citation keys for documents written before migration 027, given after the first read that finds
 * them without one (documents.ts); an upload still extracting gets its own when it is added.
 */
export async function assignMissingCitationKeys(db: Client, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  const rs = await db.execute({
    sql: `SELECT id, title, authors, year FROM documents
           WHERE id IN (SELECT value FROM json_each(?)) AND citation_key IS NULL
             AND NOT EXISTS (SELECT 1 FROM extraction_jobs e WHERE e.document_id = documents.id)`,
    args: [JSON.stringify(documentIds)],
  });
  if (rs.rows.length === 0) return;
  await db.batch(
    rs.rows.map((r) =>
      citationKeyStatement({
        id: String(r.id),
        title: String(r.title),
        authors: parseStringArray(r.authors),
        year: r.year === null ? null : Number(r.year),
      }),
    ),
    'write',
  );
}

export function parseStringArray(v: unknown): string[] {
  try {
    const a: unknown = JSON.parse(String(v));
    return Array.isArray(a) ? a.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * Replaces the document's tags with `tags` (normalised already), in their order, while the
 * document is live and `onlyIf` holds.
 */
export function tagStatements(
  documentId: string,
  tags: readonly string[],
  onlyIf: { sql: string; args: string[] } = { sql: '1', args: [] },
): InStatement[] {
  const standing = `EXISTS (SELECT 1 FROM documents WHERE id = ? AND ${live('documents')} AND ${onlyIf.sql})`;
  return [
    {
      sql: `DELETE FROM document_tags WHERE document_id = ? AND ${standing}`,
      args: [documentId, documentId, ...onlyIf.args],
    },
    ...tags.map((tag, position) => ({
      sql: `INSERT INTO document_tags (document_id, tag, folded, position) SELECT ?, ?, ?, ? WHERE ${standing}`,
      args: [documentId, tag, tag.toLowerCase(), position, documentId, ...onlyIf.args],
    })),
  ];
}

/** The owner's live document a new one would repeat, for the words of the refusal. */
interface Existing {
  id: string;
  title: string;
  authors: string[];
  year: number | null;
}

/**
 * The owner's live document with these bytes' SHA-256 or this DOI (other than `exceptId`), or
 * null. A document still being extracted counts: it is in the library already.
 */
export async function findDuplicate(
  db: Client,
  ownerId: string,
  by: { sha256?: string | null; doi?: string | null },
  exceptId = '',
): Promise<Existing | null> {
  if (!by.sha256 && !by.doi) return null;
  // Each from its own partial index of migration 027: an OR of the two would read every row of
  // the owner's (and a row's metadata columns lie after its text).
  const rs = await db.execute({
    sql: `SELECT id, title, authors, year, created_at FROM documents
           WHERE owner_id = ?1 AND content_sha256 = ?3 AND ${live('documents')} AND id <> ?2
          UNION ALL
          SELECT id, title, authors, year, created_at FROM documents
           WHERE owner_id = ?1 AND doi = ?4 AND ${live('documents')} AND id <> ?2
          ORDER BY created_at, id LIMIT 1`,
    args: [ownerId, exceptId, by.sha256 ?? null, by.doi ?? null],
  });
  const r = rs.rows[0];
  if (!r) return null;
  return {
    id: String(r.id),
    title: String(r.title),
    authors: parseStringArray(r.authors),
    year: r.year === null ? null : Number(r.year),
  };
}

/**
 * `duplicate`, naming the document the owner has as a person would:
 * `Already in your library: Hughes et al. 2017 — "Global warming and…"`.
 */
export function duplicateError(existing: Existing): LibraryError {
  const [first, second] = existing.authors;
  const who = first
    ? `${familyName(first)}${second === undefined ? '' : existing.authors.length === 2 ? ` and ${familyName(second)}` : ' et al.'}`
    : '';
  const byline = [who, existing.year ?? ''].filter((p) => p !== '').join(' ');
  const title = existing.title.length > 60 ? `${existing.title.slice(0, 60).trimEnd()}…` : existing.title;
  return new LibraryError('duplicate', `Already in your library: ${byline ? `${byline} — ` : ''}"${title}"`, {
    existingId: existing.id,
  });
}

/** Whether a write failed on migration 027's one-document-per-SHA-256-or-DOI indexes. */
function isDuplicateViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (/UNIQUE constraint failed: documents\.owner_id, documents\.(content_sha256|doi)/.test(e.message))
      return true;
  return false;
}

/**
 * Runs `write`; when it fails on the one-document-per-SHA-256-or-DOI indexes (another request
 * stored the same document meanwhile), answers `duplicate` naming the one that won.
 */
export async function refusingDuplicates<T>(
  db: Client,
  ownerId: string,
  by: { sha256?: string | null; doi?: string | null },
  write: () => Promise<T>,
  exceptId = '',
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateViolation(err)) throw err;
    const existing = await findDuplicate(db, ownerId, by, exceptId);
    throw existing ? duplicateError(existing) : err;
  }
}

/**
 * The metadata of a document just written (its row inserted or filled in, in the same batch
 * before these): year, DOI, venue and the SHA-256 it came from, its citation key and its tags,
 * while `onlyIf` holds (SQL over `documents`).
 */
export function describeStatements(
  doc: {
    id: string;
    title: string;
    authors: readonly string[];
    sha256: string | null;
    metadata: CleanMetadata;
  },
  onlyIf: { sql: string; args: string[] } = { sql: '1', args: [] },
): InStatement[] {
  const { metadata: m } = doc;
  return [
    {
      sql: `UPDATE documents SET year = ?, doi = ?, venue = ?, content_sha256 = coalesce(?, content_sha256)
            WHERE id = ? AND ${onlyIf.sql}`,
      args: [m.year ?? null, m.doi ?? null, m.venue ?? '', doc.sha256, doc.id, ...onlyIf.args],
    },
    citationKeyStatement({ ...doc, year: m.year ?? null }, onlyIf),
    ...(m.tags && m.tags.length > 0 ? tagStatements(doc.id, m.tags, onlyIf) : []),
  ];
}
