/**
 * OCR's rows in the application database (migration 012): a job per document with scanned pages
 * (`ocr_jobs`: the PDF, the pages to read, how many are done), and on the document the pages whose
 * text OCR recognised (`ocr_pages`) and what stopped OCR short (`ocr_note`). While a job exists the
 * document is `recognizing` and the indexer leaves it alone; the job's row goes when OCR ends, so
 * the PDF is kept no longer than needed. A restart resumes at the first page not done.
 *
 * One API process at a time reads a job, whichever of those on the database took it first: it
 * holds the job's lease (work-lease.ts) and each of its writes is made only while it still does.
 */
import type { Client, InStatement } from '@libsql/client';
import { joinPages } from '../documents/documents.ts';
import { LIVE_DOCUMENT, live } from '../documents/rules.ts';
import { cleanPdfText, hasText } from '../extract/text.ts';
import { splitPages } from '../search/chunks.ts';
import {
  WORK_LEASE_MS,
  freeSql,
  heldArgs,
  heldSql,
  releaseStatement,
  renewStatement,
} from '../work-lease.ts';
import type { Lease } from '../work-lease.ts';
import { OCR_MESSAGES } from './messages.ts';

const held = heldSql('ocr');

/**
 * Stores the PDF and its pages to read, if the document was stored (same batch as its insert) and
 * its extraction is over (an upload's job row is deleted earlier in the same batch when it is).
 */
export function insertOcrJobStatement(
  job: {
    documentId: string;
    ownerId: string;
    pdf: Uint8Array;
    pages: readonly number[];
    note: string | null;
  },
  now: Date,
): InStatement[] {
  return [
    {
      sql: `INSERT INTO ocr_jobs (document_id, owner_id, pdf, pages, done, missed, created_at)
            SELECT ?, ?, ?, ?, 0, '[]', ? WHERE ${LIVE_DOCUMENT}
              AND NOT EXISTS (SELECT 1 FROM extraction_jobs WHERE document_id = ?)`,
      args: [
        job.documentId,
        job.ownerId,
        job.pdf,
        JSON.stringify(job.pages),
        now.toISOString(),
        job.documentId,
        job.documentId,
      ],
    },
    {
      sql: 'UPDATE documents SET ocr_note = ? WHERE id = ?',
      args: [job.note, job.documentId],
    },
  ];
}

export interface OcrJobRow {
  documentId: string;
  ownerId: string;
  pdf: Uint8Array;
  pages: number[];
  done: number;
}

/**
 * Takes the oldest job this worker may read, with its lease: a job of a live document, not in
 * `skip`, that no other worker holds, of an owner none of whose other jobs another worker holds
 * (SPEC §6b: one OCR job per owner at a time, over every API process; the owner's next job waits
 * its turn, another owner's goes ahead). One statement: two workers looking at once cannot both
 * take a job. A job whose worker's lease lapsed is taken over, and read on from `done`.
 */
export async function claimOcrJob(
  db: Client,
  holder: string,
  now: Date,
  skip: ReadonlySet<string>,
): Promise<OcrJobRow | null> {
  const claimed = await db.execute({
    sql: `INSERT INTO work_leases (work, document_id, holder, until_ms)
          SELECT 'ocr', j.document_id, :holder, :until FROM ocr_jobs j
          JOIN documents d ON d.id = j.document_id
          WHERE ${live('d')} AND j.document_id NOT IN (SELECT value FROM json_each(:skip))
            AND ${freeSql('ocr', 'j.document_id')}
            AND NOT EXISTS (SELECT 1 FROM work_leases l JOIN ocr_jobs o ON o.document_id = l.document_id
                  WHERE l.work = 'ocr' AND o.owner_id = j.owner_id AND o.document_id <> j.document_id
                    AND l.until_ms > :now AND l.holder <> :holder)
          ORDER BY j.created_at, j.document_id LIMIT 1
          ON CONFLICT (work, document_id) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
          RETURNING document_id`,
    args: {
      holder,
      now: now.getTime(),
      until: now.getTime() + WORK_LEASE_MS,
      skip: JSON.stringify([...skip]),
    },
  });
  const id = claimed.rows[0]?.document_id;
  if (id === undefined || id === null) return null;
  const rs = await db.execute({
    sql: 'SELECT document_id, owner_id, pdf, pages, done FROM ocr_jobs WHERE document_id = ?',
    args: [String(id)],
  });
  const r = rs.rows[0];
  // Removed in between: the removal took the lease with the job.
  if (!r) return null;
  const pdf = r.pdf as ArrayBuffer | Uint8Array;
  return {
    documentId: String(r.document_id),
    ownerId: String(r.owner_id),
    pdf: pdf instanceof Uint8Array ? pdf : new Uint8Array(pdf),
    pages: (JSON.parse(String(r.pages)) as unknown[]).map(Number),
    done: Number(r.done),
  };
}

export type PageOutcome = 'read' | 'timeout' | 'unrenderable' | 'page_size' | 'out_of_memory';

/**
 * One page's answer: its text goes into the document (replacing the page's empty text), the page
 * is marked as recognised, the job moves on one page and its lease is renewed; all at once, and
 * only while the lease is the worker's. False when it no longer is (another process took the job
 * over, or the document was removed): nothing was written, and the worker stops.
 */
export async function savePage(
  db: Client,
  lease: Lease,
  page: { page: number; text: string; outcome: PageOutcome },
  now: Date,
): Promise<boolean> {
  const { documentId } = lease;
  const rs = await db.execute({
    sql: `SELECT t.text, t.page_starts, d.ocr_pages FROM documents d JOIN document_texts t ON t.document_id = d.id
          WHERE d.id = ? AND ${live('d')}`,
    args: [documentId],
  });
  const r = rs.rows[0];
  if (!r) return false;
  const text = cleanPdfText(page.text).trim();
  const statements: InStatement[] = [
    {
      sql: `UPDATE ocr_jobs SET done = done + 1,
              missed = CASE WHEN ? = 'read' THEN missed ELSE json_insert(missed, '$[#]', json_array(?, ?)) END
            WHERE document_id = ? AND ${held}`,
      args: [page.outcome, page.page, page.outcome, documentId, ...heldArgs(lease)],
    },
  ];
  if (page.outcome === 'read' && hasText(text)) {
    const pages = splitPages(String(r.text), (JSON.parse(String(r.page_starts)) as unknown[]).map(Number));
    if (page.page >= 1 && page.page <= pages.length) {
      pages[page.page - 1] = text;
      const joined = joinPages(pages);
      const ocrPages = [...new Set([...(JSON.parse(String(r.ocr_pages)) as number[]), page.page])].sort(
        (a, b) => a - b,
      );
      // Only if the text is still the one read above (another write to it may have come in
      // between): both statements ask, in one transaction, and the first changes nothing they ask
      // about, so the document and its text change together or not at all.
      const unchanged = 'EXISTS (SELECT 1 FROM document_texts WHERE document_id = ? AND text = ?)';
      statements.push(
        {
          sql: `UPDATE documents SET pages = ?, characters = ?, ocr_pages = ?
                WHERE id = ? AND ${live('documents')} AND ${unchanged} AND ${held}`,
          args: [
            joined.pageStarts.length,
            joined.text.length,
            JSON.stringify(ocrPages),
            documentId,
            documentId,
            String(r.text),
            ...heldArgs(lease),
          ],
        },
        {
          sql: `UPDATE document_texts SET text = ?, page_starts = ?, page_starts_cp = ?
                WHERE document_id = ? AND ${LIVE_DOCUMENT} AND text = ? AND ${held}`,
          args: [
            joined.text,
            JSON.stringify(joined.pageStarts),
            JSON.stringify(joined.pageStartsCp),
            documentId,
            documentId,
            String(r.text),
            ...heldArgs(lease),
          ],
        },
      );
    }
  }
  statements.push(renewStatement(lease, now));
  const [moved] = await db.batch(statements, 'write');
  return (moved?.rowsAffected ?? 0) > 0;
}

/**
 * OCR is over: the job and its lease go, the note says what stopped it short, and the document
 * goes on to indexing, or fails with `no_text` when neither its text layer nor OCR gave it any
 * text; only while the lease is the worker's. Returns true when the document has text to index
 * (false too when another process took the job over: that process finishes it).
 */
export async function finishOcr(db: Client, lease: Lease, limits: { pageSeconds: number }): Promise<boolean> {
  const { documentId } = lease;
  const rs = await db.execute({
    sql: `SELECT t.text, d.ocr_note, j.missed FROM documents d JOIN document_texts t ON t.document_id = d.id
            LEFT JOIN ocr_jobs j ON j.document_id = d.id
          WHERE d.id = ? AND ${live('d')}`,
    args: [documentId],
  });
  const r = rs.rows[0];
  if (!r) {
    await db.batch(
      [{ sql: 'DELETE FROM ocr_jobs WHERE document_id = ?', args: [documentId] }, releaseStatement(lease)],
      'write',
    );
    return false;
  }
  const missed = JSON.parse(r.missed === null ? '[]' : String(r.missed)) as Array<[number, PageOutcome]>;
  const pagesWith = (o: PageOutcome) => missed.filter(([, x]) => x === o).map(([p]) => p);
  const notes = [
    r.ocr_note === null ? null : String(r.ocr_note),
    pagesWith('timeout').length > 0
      ? OCR_MESSAGES.pageTimeout(pagesWith('timeout'), limits.pageSeconds)
      : null,
    pagesWith('unrenderable').length > 0 ? OCR_MESSAGES.pageFailed(pagesWith('unrenderable')) : null,
    pagesWith('page_size').length > 0 ? OCR_MESSAGES.pageSize(pagesWith('page_size')) : null,
    pagesWith('out_of_memory').length > 0 ? OCR_MESSAGES.pageMemory(pagesWith('out_of_memory')) : null,
  ].filter((n) => n !== null);
  const found = hasText(String(r.text));
  // A failed document's reason is all its owner sees of it (the note shows on a ready one): when
  // pages went unread, it says which and why rather than blaming a blank scan.
  const reason = notes.length > 0 ? [OCR_MESSAGES.noTextUnread, ...notes].join(' ') : OCR_MESSAGES.noText;
  const [, ended] = await db.batch(
    [
      {
        sql: `UPDATE documents SET ocr_note = ?,
                index_state = CASE WHEN ? THEN index_state ELSE 'failed' END,
                index_error = CASE WHEN ? THEN index_error ELSE ? END
              WHERE id = ? AND ${live('documents')} AND ${held}`,
        args: [
          notes.length > 0 ? notes.join(' ') : null,
          found ? 1 : 0,
          found ? 1 : 0,
          reason,
          documentId,
          ...heldArgs(lease),
        ],
      },
      {
        sql: `DELETE FROM ocr_jobs WHERE document_id = ? AND ${held}`,
        args: [documentId, ...heldArgs(lease)],
      },
      releaseStatement(lease),
    ],
    'write',
  );
  return found && (ended?.rowsAffected ?? 0) > 0;
}
