import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import fixture from './fixtures/recall-quality.json' with { type: 'json' };
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall-index.ts';
import type { RecallNote } from './render.ts';

interface Fixture {
  notes: Array<{ kind: string; name: string; text: string; data?: RecallNote['data'] }>;
  queries: Array<{ text: string; expected: string }>;
}

describe('recall quality (local adapter, shipped labelled set)', () => {
  it('finds the expected note in the top 3 for at least 80% of the queries', async () => {
    const { notes, queries } = fixture as Fixture;
    expect(notes.length).toBeGreaterThanOrEqual(30);
    expect(queries.length).toBeGreaterThanOrEqual(20);
    const names = new Set(notes.map((n) => n.name));
    for (const q of queries) expect(names.has(q.expected), q.expected).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'recall-quality-'));
    const client = createClient({ url: `file:${join(dir, 'memory.db')}` });
    try {
      const recall = createRecallIndex({ client, adapter: createLocalEmbeddingAdapter() });
      const recallNotes: RecallNote[] = notes.map((n) => ({
        ...n,
        data: n.data ?? null,
        links: [],
        digest: createHash('sha256').update(JSON.stringify(n)).digest('hex'),
      }));
      await recall.index('quality', recallNotes);
      const currentDigests = new Map(recallNotes.map((n) => [n.name, n.digest]));

      let top1 = 0;
      let top3 = 0;
      const misses: string[] = [];
      for (const q of queries) {
        const hits = await recall.search('quality', q.text, { currentDigests, limit: 3 });
        const rank = hits.findIndex((h) => h.name === q.expected);
        if (rank === 0) top1++;
        if (rank >= 0) top3++;
        else misses.push(`  "${q.text}" → expected ${q.expected}, got ${hits.map((h) => h.name).join(', ')}`);
      }
      const pct = (n: number) => `${((100 * n) / queries.length).toFixed(1)}%`;
      console.log(
        `recall quality, local adapter (${recall.adapter.id}), ${notes.length} notes, ${queries.length} queries: ` +
          `top-1 ${top1}/${queries.length} (${pct(top1)}), top-3 ${top3}/${queries.length} (${pct(top3)})` +
          (misses.length > 0 ? `\nmisses:\n${misses.join('\n')}` : ''),
      );
      expect(top3 / queries.length).toBeGreaterThanOrEqual(0.8);
    } finally {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
