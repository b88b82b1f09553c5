/**
 * `documents.cite` (SPEC §6d): the documents a caller may read — their own, shared with them,
 * published — as references in one format, keyed by their citation keys. One document the caller
 * may not read (another's, removed, none) refuses the whole call as `not_found`, saying no more.
 */
import type { Client } from '@libsql/client';
import { FROM_VISIBLE } from '../documents/documents.ts';
import { assignMissingCitationKeys, citationKeyBase, parseStringArray } from '../documents/metadata.ts';
import { LibraryError } from '../errors.ts';
import type { CitableDocument } from './entries.ts';
import { formatReferences } from './format.ts';
import { formatTextOnThread } from './thread.ts';
import type { CiteFormat, CiteStyle } from './format.ts';

/**
 * The references of `documentIds` (repeats cited once, in the order first asked; a style may sort
 * them) in `format`, text by `style` (APA by default).
 *
 * @example await citeDocuments(db, 'ada', { documentIds: ['doc_1'], format: 'bibtex' }) // { text: '@article{hughes2017,\n…' }
 */
export async function citeDocuments(
  db: Client,
  userId: string,
  input: { documentIds: readonly string[]; format: CiteFormat; style?: CiteStyle | undefined },
): Promise<{ text: string }> {
  const ids = [...new Set(input.documentIds)];
  let rows = await readCitable(db, userId, ids);
  // Documents written before citation keys existed get theirs now, as a list of them does.
  const keyless = rows.filter((r) => r.key === null).map((r) => r.doc.citationKey);
  if (keyless.length > 0) {
    await assignMissingCitationKeys(db, keyless);
    rows = await readCitable(db, userId, ids);
  }
  if (rows.length !== ids.length) throw new LibraryError('not_found', 'A document to cite was not found.');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const docs = ids.map((id) => {
    const { doc, key } = byId.get(id)!;
    // Only an upload still being read has no key yet: it is cited by the key it would get.
    return { ...doc, citationKey: key ?? citationKeyBase(doc.authors, doc.title, doc.year) };
  });
  const style = input.style ?? 'apa';
  // A style's text is citeproc-js's work, which can take seconds: on its own thread.
  return {
    text:
      input.format === 'text' ? await formatTextOnThread(docs, style) : formatReferences(docs, input.format),
  };
}

async function readCitable(db: Client, userId: string, ids: readonly string[]) {
  const rs = await db.execute({
    sql: `SELECT d.id, d.title, d.authors, d.abstract, d.year, d.doi, d.venue, d.citation_key,
            (SELECT json_group_array(t.tag) FROM
              (SELECT tag FROM document_tags WHERE document_id = d.id ORDER BY position) t) AS tags
          ${FROM_VISIBLE} AND d.id IN (SELECT value FROM json_each(:ids))`,
    args: { user: userId, ids: JSON.stringify(ids) },
  });
  return rs.rows.map((r) => {
    const doc: CitableDocument = {
      // The id stands in for the key until it is read again with one.
      citationKey: String(r.id),
      title: String(r.title),
      authors: parseStringArray(r.authors),
      year: r.year === null ? null : Number(r.year),
      doi: r.doi === null ? null : String(r.doi),
      venue: String(r.venue),
      abstract: String(r.abstract),
      tags: parseStringArray(r.tags),
    };
    return { id: String(r.id), key: r.citation_key === null ? null : String(r.citation_key), doc };
  });
}
