/**
 * The `verify` command's check of reviewed knowledge in the application database: every reviewed
 * record's and decision's digest is recomputed, and every record must carry its accept decision's
 * digest. Reviewed records are facts: they are reported, never rewritten.
 */
import type { Client } from '@libsql/client';
import { kindOf, num, parseStoredData, parseStoredLinks, recordDigest, str } from '@oh/memory';
import type { VerifyFinding } from '@oh/memory';

export interface ReviewedVerification {
  records: number;
  decisions: number;
  findings: VerifyFinding[];
}

async function hasTable(client: Client, table: string): Promise<boolean> {
  const rs = await client.execute({
    sql: `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`,
    args: [table],
  });
  return rs.rows.length > 0;
}

/**
 * Recomputes the digest of every reviewed record and decision in the application database and
 * checks that each record carries its decision's digest. Read only.
 */
export async function verifyReviewed(client: Client): Promise<ReviewedVerification> {
  const out: ReviewedVerification = { records: 0, decisions: 0, findings: [] };
  for (const table of ['reviewed_records', 'reviewed_decisions'] as const) {
    if (!(await hasTable(client, table))) continue;
    for (let after = 0; ;) {
      const rs = await client.execute({
        sql: `SELECT rowid AS r, document_id, name, kind, text, data, links, digest FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT 500`,
        args: [after],
      });
      for (const row of rs.rows) {
        if (table === 'reviewed_records') out.records++;
        else out.decisions++;
        const name = str(row.name);
        let digest: string | null = null;
        try {
          digest = recordDigest({
            kind: kindOf(name),
            name,
            text: str(row.text),
            data: parseStoredData(row.data),
            links: parseStoredLinks(row.links),
          });
        } catch {
          // unreadable data or links: reported below
        }
        if (digest !== str(row.digest) || str(row.kind) !== kindOf(name)) {
          out.findings.push({
            table,
            name,
            message: `${table}: ${name} of document ${str(row.document_id)} does not match its digest`,
            repairable: false,
          });
        }
        after = num(row.r);
      }
      if (rs.rows.length < 500) break;
    }
  }
  if (out.records > 0) {
    const rs = await client.execute(
      `SELECT r.document_id, r.name FROM reviewed_records AS r LEFT JOIN reviewed_decisions AS d ON d.id = r.decision_id
          WHERE d.id IS NULL OR d.digest IS NOT r.digest OR d.name IS NOT r.name OR d.decision <> 'accept'`,
    );
    for (const row of rs.rows) {
      const name = str(row.name);
      out.findings.push({
        table: 'reviewed_records',
        name,
        message: `reviewed_records: ${name} of document ${str(row.document_id)} is not the record its accept decision reviewed`,
        repairable: false,
      });
    }
  }
  return out;
}
