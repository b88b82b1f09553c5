import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { withReviewed } from './testing/harness.ts';
import { verifyReviewed } from './verify.ts';

describe('verifyReviewed', () => {
  it('recomputes every reviewed digest and names a record whose content changed', () =>
    withReviewed(async (h) => {
      const decide = (name: string, text: string) =>
        h.reviewed.decide({
          documentId: 'doc:d',
          reviewerId: 'user:o',
          decision: 'accept',
          comment: 'ok',
          record: { name, text, data: { n: 1 } },
          sourceDocumentId: 'doc:s',
          passage: 'p',
        });
      await decide('finding:a', 'A');
      await decide('finding:b', 'B');
      const app = createClient({ url: h.appUrl });
      try {
        expect(await verifyReviewed(app)).toEqual({ records: 2, decisions: 2, findings: [] });
        await app.execute('DROP TRIGGER reviewed_records_end_once');
        await app.execute(
          `UPDATE reviewed_records SET text = 'not what was reviewed' WHERE name = 'finding:b'`,
        );
        const report = await verifyReviewed(app);
        expect(report.findings.map((f) => [f.table, f.name])).toEqual([['reviewed_records', 'finding:b']]);
        expect(report.findings[0]?.message).toMatch(/finding:b of document doc:d does not match its digest/);
      } finally {
        app.close();
      }
    }));

  it('is empty on a database without reviewed knowledge', async () => {
    const app = createClient({ url: ':memory:' });
    try {
      expect(await verifyReviewed(app)).toEqual({ records: 0, decisions: 0, findings: [] });
    } finally {
      app.close();
    }
  });
});
