/**
 * The library's relevance set (issue 27, SPEC §6b): excerpts of 18 State of the Union addresses
 * (relevance/corpus, sources and licences in relevance/README.md) and 48 queries judged by
 * reading them (relevance/judgments.json; 20 more held out in heldout.json), half exact-term and
 * half descriptive, and 10 about nothing in them (nothing.json), with the measures the relevance test and the bench report: success@k, MRR@k
 * and nDCG@k over a ranking of document ids.
 *
 * Relevance is binary and per document: a judged document is one a reader asking the query wants
 * to see; every other document counts as not relevant.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type QueryKind = 'exact' | 'descriptive';

interface RelevanceDocument {
  id: string;
  title: string;
  author: string;
  /** The excerpt as stored in the repository (lines wrapped; paragraphs apart by a blank line). */
  text: string;
}

export interface JudgedQuery {
  id: string;
  kind: QueryKind;
  query: string;
  /** The relevant documents, each with the passage that makes it so. */
  relevant: Array<{ document: string; reason: string }>;
}

export interface RelevanceSet {
  documents: RelevanceDocument[];
  queries: JudgedQuery[];
  /**
   * 20 more queries (../heldout.json), written after search's fusion weight was chosen on
   * `queries` and never used to choose anything: how far that choice carries to queries it never saw.
   */
  heldout: JudgedQuery[];
  /**
   * 10 queries about nothing in the documents (../nothing.json, issue 40): names no document holds
   * and questions on subjects none treats. Search must answer each with no hit.
   */
  nothing: Array<{ id: string; kind: QueryKind; query: string }>;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'relevance');

export function loadRelevanceSet(): RelevanceSet {
  const judgments = JSON.parse(readFileSync(join(ROOT, 'judgments.json'), 'utf8')) as {
    documents: Array<{ id: string; title: string; author: string; file: string }>;
    queries: JudgedQuery[];
  };
  return {
    documents: judgments.documents.map((d) => ({
      id: d.id,
      title: d.title,
      author: d.author,
      text: readFileSync(join(ROOT, d.file), 'utf8'),
    })),
    queries: judgments.queries,
    heldout: (JSON.parse(readFileSync(join(ROOT, 'heldout.json'), 'utf8')) as { queries: JudgedQuery[] })
      .queries,
    nothing: (
      JSON.parse(readFileSync(join(ROOT, 'nothing.json'), 'utf8')) as { queries: RelevanceSet['nothing'] }
    ).queries,
  };
}

/** 1 when a relevant document is among the first `k` of the ranking, else 0. */
export function successAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  return ranking.slice(0, k).some((id) => relevant.has(id)) ? 1 : 0;
}

/** 1 / the rank of the first relevant document within the first `k`, else 0. */
export function reciprocalRankAt(
  ranking: readonly string[],
  relevant: ReadonlySet<string>,
  k: number,
): number {
  const i = ranking.slice(0, k).findIndex((id) => relevant.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

/**
 * Normalised discounted cumulative gain of the first `k` with binary gains: the sum of
 * 1 / log2(rank + 1) over relevant documents, over the same sum for an ideal ranking.
 */
export function ndcgAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  const gain = (rank: number) => 1 / Math.log2(rank + 1);
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += gain(i + 1);
  });
  let ideal = 0;
  for (let rank = 1; rank <= Math.min(k, relevant.size); rank++) ideal += gain(rank);
  return ideal === 0 ? 0 : dcg / ideal;
}

export interface Scores {
  queries: number;
  success3: number;
  mrr10: number;
  ndcg10: number;
}

/** Mean success@3, MRR@10 and nDCG@10 of the queries given their rankings (document ids, best first). */
export function score(
  queries: readonly JudgedQuery[],
  rankings: ReadonlyMap<string, readonly string[]>,
): Scores {
  let success3 = 0;
  let mrr10 = 0;
  let ndcg10 = 0;
  for (const q of queries) {
    const ranking = rankings.get(q.id);
    if (!ranking) throw new Error(`no ranking for query ${q.id}`);
    const relevant = new Set(q.relevant.map((r) => r.document));
    success3 += successAt(ranking, relevant, 3);
    mrr10 += reciprocalRankAt(ranking, relevant, 10);
    ndcg10 += ndcgAt(ranking, relevant, 10);
  }
  const n = queries.length;
  return { queries: n, success3: success3 / n, mrr10: mrr10 / n, ndcg10: ndcg10 / n };
}

/** A ranking of document ids from hits in rank order: each document once, at its best hit. */
export function documentRanking(hits: ReadonlyArray<{ id: string }>): string[] {
  return [...new Set(hits.map((h) => h.id))];
}

/** The table the test prints and bench/README.md holds: one row per method and half. */
export function formatTable(
  rows: ReadonlyArray<{ method: string; kind: QueryKind; scores: Scores }>,
): string {
  const lines = [
    '| method | queries | success@3 | MRR@10 | nDCG@10 |',
    '| ------ | ------- | --------- | ------ | ------- |',
  ];
  for (const { method, kind, scores } of rows)
    lines.push(
      `| ${method} | ${kind} (${scores.queries}) | ${scores.success3.toFixed(3)} | ${scores.mrr10.toFixed(3)} | ${scores.ndcg10.toFixed(3)} |`,
    );
  return lines.join('\n');
}

/**
 * Logistic regression by Newton's method: the weights w (the first feature of every row is 1,
 * the intercept) maximising the likelihood of the labels, as search's calibration is fitted
 * (search/calibration.ts). Deterministic: the same rows give the same weights.
 */
export function fitLogistic(rows: ReadonlyArray<{ x: readonly number[]; y: 0 | 1 }>, steps = 50): number[] {
  const d = rows[0]?.x.length ?? 0;
  let w = new Array<number>(d).fill(0);
  for (let step = 0; step < steps; step++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const { x, y } of rows) {
      const p = logistic(x, w);
      for (let a = 0; a < d; a++) {
        g[a]! += (p - y) * x[a]!;
        for (let b = 0; b < d; b++) h[a]![b]! += p * (1 - p) * x[a]! * x[b]!;
      }
    }
    const dw = solve(h, g);
    w = w.map((v, i) => v - dw[i]!);
  }
  return w;
}

/** 1 / (1 + e^-(w·x)). */
function logistic(x: readonly number[], w: readonly number[]): number {
  return 1 / (1 + Math.exp(-x.reduce((z, v, i) => z + v * w[i]!, 0)));
}

/** The mean squared difference of predicted chances and labels (lower is better). */
export function brierScore(rows: ReadonlyArray<{ p: number; y: 0 | 1 }>): number {
  return rows.reduce((s, r) => s + (r.p - r.y) ** 2, 0) / rows.length;
}

/** Solves a x = b by Gaussian elimination with partial pivoting (a small dense system). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = m[r]![c]! / m[c]![c]!;
      for (let j = c; j <= n; j++) m[r]![j]! -= k * m[c]![j]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}
