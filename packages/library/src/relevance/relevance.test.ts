/**
 * Search measured on the relevance set (issue 27, SPEC §6b): the 18 documents go through the real
 * library (a libSQL file, the indexer, the default local embedding adapter), each of the 48 judged
 * queries is searched keyword-only, vector-only and hybrid, and success@3 and MRR@10 are computed
 * per half (exact-term, descriptive). Hybrid may fall below the better of the other two on either
 * half by at most 0.02. The table is printed; bench/README.md holds it with nDCG@10.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibraryDatabase } from '../index.ts';
import { createLibrary } from '../library.ts';
import type { Library } from '../library.ts';
import type { SearchMode } from '../search/search.ts';
import { documentRanking, formatTable, loadRelevanceSet, score } from '../testing/relevance-set.ts';
import type { JudgedQuery, QueryKind, Scores } from '../testing/relevance-set.ts';

const MODES: SearchMode[] = ['keyword', 'vector', 'hybrid'];
const KINDS: QueryKind[] = ['exact', 'descriptive'];
/** How far hybrid may fall below the better single method on a half (issue 27). */
const TOLERANCE = 0.02;

type Table = Array<{ method: SearchMode; kind: QueryKind; scores: Scores }>;

/** Where hybrid falls below the better of keyword and vector by more than TOLERANCE. */
function shortfalls(table: Table): string[] {
  const out: string[] = [];
  const at = (method: SearchMode, kind: QueryKind) =>
    table.find((r) => r.method === method && r.kind === kind)!.scores;
  for (const kind of KINDS)
    for (const measure of ['success3', 'mrr10'] as const) {
      const best = Math.max(at('keyword', kind)[measure], at('vector', kind)[measure]);
      const hybrid = at('hybrid', kind)[measure];
      if (hybrid < best - TOLERANCE)
        out.push(`${kind} ${measure}: hybrid ${hybrid.toFixed(3)} < ${best.toFixed(3)} - ${TOLERANCE}`);
    }
  return out;
}

const rank = (r: number) => (r === Infinity ? '>10' : String(r));

describe('the relevance set through the library', () => {
  const set = loadRelevanceSet();
  let dir: string;
  let library: Library;
  let close: () => void;
  /** The library's document ids → the judgments' (the corpus file names). */
  const ids = new Map<string, string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sponge-relevance-'));
    const adapter = createLocalEmbeddingAdapter();
    const db = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
    close = () => db.close();
    await db.execute(
      "INSERT INTO users (id, name, created_at) VALUES ('owner', 'Owner', '2026-01-01T00:00:00.000Z')",
    );
    library = createLibrary({ db, adapter, log: pino({ level: 'silent' }) });
    for (const d of set.documents) {
      const added = await library.add(
        'owner',
        { title: d.title, authors: [d.author], source: 'text', pages: [d.text] },
        new Date(),
      );
      ids.set(added.id, d.id);
    }
    await library.indexer.idle();
    // A document that failed to index would only lower every method alike: none may.
    const states = await db.execute(
      "SELECT index_state, COUNT(*) AS n FROM documents WHERE owner_id = 'owner' GROUP BY index_state",
    );
    expect(states.rows.map((r) => [r.index_state, Number(r.n)])).toEqual([['ready', set.documents.length]]);
    // The first search fills the owner's vector index; later ones meet it built.
    await library.search.search('owner', 'warm up', 1);
    await library.search.settled('owner');
  });

  afterAll(async () => {
    await library?.close();
    close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Each method's scores per half on `queries`, and the queries where hybrid is behind. */
  async function measure(queries: readonly JudgedQuery[]): Promise<{ table: Table; behind: string[] }> {
    const table: Table = [];
    const ranks = new Map<string, Partial<Record<SearchMode, number>>>();
    for (const method of MODES) {
      const rankings = new Map<string, string[]>();
      for (const q of queries) {
        const hits = await library.search.search('owner', q.query, 10, { mode: method });
        const ranking = documentRanking(hits).map((id) => ids.get(id)!);
        rankings.set(q.id, ranking);
        const first = ranking.findIndex((id) => q.relevant.some((r) => r.document === id));
        ranks.set(q.id, { ...ranks.get(q.id), [method]: first < 0 ? Infinity : first + 1 });
      }
      for (const kind of KINDS)
        table.push({
          method,
          kind,
          scores: score(
            queries.filter((q) => q.kind === kind),
            rankings,
          ),
        });
    }
    // The queries where hybrid ranks the first relevant document below the better method.
    const behind = queries
      .map((q) => ({ q, r: ranks.get(q.id)! }))
      .filter(({ r }) => r.hybrid! > Math.min(r.keyword!, r.vector!))
      .map(
        ({ q, r }) =>
          `  ${q.id} "${q.query}": keyword ${rank(r.keyword!)}, vector ${rank(r.vector!)}, hybrid ${rank(r.hybrid!)}`,
      );
    return { table, behind };
  }

  function print(title: string, { table, behind }: { table: Table; behind: string[] }): void {
    console.log(
      `${title}, ${set.documents.length} documents:\n${formatTable(table)}\n` +
        `first relevant rank, where hybrid is behind (${behind.length} queries):\n${behind.join('\n')}`,
    );
  }

  it('hybrid is not below the better of keyword and vector on either half', async () => {
    const measured = await measure(set.queries);
    print('relevance set', measured);
    expect(shortfalls(measured.table)).toEqual([]);
  });

  it('holds on the held-out queries too', async () => {
    const measured = await measure(set.heldout);
    print('held-out queries', measured);
    expect(shortfalls(measured.table)).toEqual([]);
  });

  it('the check finds hybrid more than 0.02 below the better method', () => {
    const s = (success3: number, mrr10: number): Scores => ({ queries: 24, success3, mrr10, ndcg10: 0 });
    const table: Table = [
      { method: 'keyword', kind: 'exact', scores: s(1, 0.9) },
      { method: 'vector', kind: 'exact', scores: s(0.5, 0.4) },
      { method: 'hybrid', kind: 'exact', scores: s(0.98, 0.87) },
      { method: 'keyword', kind: 'descriptive', scores: s(0.5, 0.5) },
      { method: 'vector', kind: 'descriptive', scores: s(0.6, 0.55) },
      { method: 'hybrid', kind: 'descriptive', scores: s(0.58, 0.55) },
    ];
    expect(shortfalls(table)).toEqual(['exact mrr10: hybrid 0.870 < 0.900 - 0.02']);
  });
});
