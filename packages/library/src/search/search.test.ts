/**
 * Hybrid search (SPEC §6b, issue 27) against a real libSQL file: the keyword index finds exact
 * terms (a DOI, "8 DHW", a command-line flag) that the hashing adapter's vectors rank anywhere,
 * reciprocal rank fusion merges both lists, `documentId` narrows to one of the owner's documents,
 * hits carry their span and matched terms, removal takes keywords with it, and a keyword index
 * that went missing is rebuilt without embedding anything again. No user text errs in FTS5.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibraryDatabase } from '../alone.ts';
import { insertDocument, joinPages, removeDocument } from '../documents/documents.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { createIndexer } from './indexer.ts';
import { prepareDocumentIndex } from './index-store.ts';
import {
  COMMON_TERMS_FROM,
  RANKED_ROWS,
  UNSCOPED_SHARE,
  contentTerms,
  countTerms,
  matchQuery,
  matchedWords,
  queryTerms,
  rankingTerms,
  scopeToken,
  searchKeywords,
  termsHeld,
} from './keyword-index.ts';
import { LOCAL_CALIBRATION, hitScore } from './calibration.ts';
import { RRF_K, VECTOR_WEIGHT, chooseHits, createLibrarySearch, fuse } from './search.ts';
import type { LibrarySearch } from './search.ts';

const log = pino({ level: 'silent' });
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

const embedded = { texts: 0 };
const local = createLocalEmbeddingAdapter();
const adapter: EmbeddingAdapter = {
  id: local.id,
  dimensions: local.dimensions,
  embed(texts) {
    embedded.texts += texts.length;
    return local.embed(texts);
  },
};

/** Filler on the documents' common topic, so only the exact terms tell them apart. */
const filler = (n: number) =>
  `Coral reefs bleach when the water stays warm for weeks; surveys record the bleached colonies at site ${n}.`;

const DOCS = {
  doi: [
    'Heat stress and reefs',
    `${filler(1)}\n\nSee Hughes et al., doi 10.1038/nature21707, for the 2016 event.`,
  ],
  dhw: ['Thresholds', `${filler(2)}\n\nMass bleaching begins near 8 DHW of accumulated heat.`],
  flag: ['The import tool', `${filler(3)}\n\nRun it with --max-pages 40 to stop after forty pages.`],
  plain: ['Reef surveys', `${filler(4)}\n\n${filler(5)}`],
  nature: ['Other numbers', `${filler(6)}\n\nThe nature of 21707 reefs and 10 more, 1038 in all.`],
  // A dataset named once in a long passage about something else: its meaning is far from the name.
  dataset: [
    'Sampling log',
    `${filler(7)}\n\nDivers logged the transects of the northern sites over three seasons, counting ` +
      'colonies along fixed tapes, photographing each quadrat at the same height and noting the ' +
      'water temperature, the visibility and the state of the tide; the counts were checked twice ' +
      'by a second diver before they were entered, with the series deposited as GSE10123.',
  ],
} as const;

let db: Client;
let search: LibrarySearch;

async function index(): Promise<void> {
  const indexer = createIndexer({ db, adapter, log });
  indexer.kick();
  await indexer.idle();
  await indexer.stop();
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-search-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  db = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
  cleanups.push(() => db.close());
  for (const u of ['u1', 'u2'])
    await db.execute({
      sql: "INSERT INTO users (id, name, created_at) VALUES (?, ?, '2026-01-01T00:00:00.000Z')",
      args: [u, u],
    });
  for (const [id, [title, text]] of Object.entries(DOCS))
    await insertDocument(
      db,
      { id, ownerId: 'u1', title, authors: [], abstract: '', pages: [text] },
      new Date(),
    );
  await insertDocument(
    db,
    { id: 'other', ownerId: 'u2', title: 'Not yours', authors: [], abstract: '', pages: [DOCS.doi[1]] },
    new Date(),
  );
  await index();
  search = createLibrarySearch({ db, adapter });
  cleanups.push(() => search.close());
});

const ids = async (query: string, mode?: 'keyword' | 'vector' | 'hybrid') =>
  (await search.search('u1', query, 5, mode ? { mode } : {})).map((h) => h.id);

describe('hybrid search', () => {
  it('finds exact terms first, by keyword and hybrid alike', async () => {
    for (const mode of ['keyword', 'hybrid'] as const) {
      expect((await ids('10.1038/nature21707', mode))[0]).toBe('doi');
      expect((await ids('8 DHW', mode))[0]).toBe('dhw');
      expect((await ids('--max-pages', mode))[0]).toBe('flag');
    }
    // The DOI is a phrase: the same parts apart do not match it.
    expect(await ids('10.1038/nature21707', 'keyword')).toEqual(['doi']);
  });

  it('answers with the passage, its page and span, the matched terms and a score of 0..1', async () => {
    const [hit] = await search.search('u1', '8 DHW', 1);
    const { text } = joinPages([DOCS.dhw[1]]);
    expect(hit).toMatchObject({
      id: 'dhw',
      documentId: 'dhw',
      title: 'Thresholds',
      access: 'owner',
      page: 1,
      passage: 'Mass bleaching begins near 8 DHW of accumulated heat.',
      terms: ['8', 'DHW'],
    });
    expect(text.slice(hit!.start, hit!.end)).toBe(hit!.passage);
    expect(hit!.score).toBeGreaterThan(0);
    expect(hit!.score).toBeLessThanOrEqual(1);
  });

  it('ranks only the owner’s documents, and documentId narrows to one of them (another’s finds nothing)', async () => {
    for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
      expect(await ids('10.1038/nature21707', mode)).not.toContain('other');
      const inOne = await search.search('u1', 'bleaching reefs', 5, { documentId: 'dhw', mode });
      expect(inOne.length).toBeGreaterThan(0);
      expect(new Set(inOne.map((h) => h.id))).toEqual(new Set(['dhw']));
      expect(await search.search('u1', 'bleaching', 5, { documentId: 'other', mode })).toEqual([]);
      expect(await search.search('u1', 'bleaching', 5, { documentId: 'nope', mode })).toEqual([]);
    }
    // Within one document, hits are its passages, the best first.
    const passages = await search.search('u1', 'bleaching at 8 DHW', 5, { documentId: 'dhw' });
    expect(passages.map((h) => h.chunk)).toEqual([1, 0]);
  });

  it('says no: a word in no document finds nothing, while a keyword hit under the floor is kept', async () => {
    for (const mode of ['keyword', 'vector', 'hybrid'] as const)
      expect(await search.search('u1', 'ETXTBSY', 5, { mode })).toEqual([]);
    // The dataset's passage is found by its name alone: its meaning is under the floor.
    const { vector } = await search.lists('u1', 'GSE10123');
    const similarity = vector.find((h) => h.documentId === 'dataset')?.score ?? 0;
    expect(similarity).toBeLessThan(LOCAL_CALIBRATION.floor);
    expect(await ids('GSE10123', 'vector')).toEqual([]);
    const [hit] = await search.search('u1', 'GSE10123', 5);
    expect(hit).toMatchObject({ id: 'dataset', terms: ['GSE10123'] });
    // A question about nothing here that shares one common word with every document finds nothing.
    expect(await search.search('u1', 'how do I bake sourdough bread at the site', 5)).toEqual([]);
  });

  it('scores a hit by its chance of relevance, so a hit holding one common word of the query reads weak', async () => {
    const hits = await search.search('u1', 'DHW reefs', 10);
    expect(hits[0]).toMatchObject({ id: 'dhw', terms: ['DHW'] });
    expect(hits[0]!.score).toBeGreaterThanOrEqual(0.5);
    // The others hold "reefs" only, which every document holds: they come back, and say so.
    expect(hits.length).toBeGreaterThan(1);
    for (const h of hits.slice(1)) {
      expect(h.terms.map((t) => t.toLowerCase())).toEqual(['reefs']);
      expect(h.score).toBeLessThan(0.2);
    }
  });

  it('marks the passage’s own words that matched the query’s content words, stemmed as FTS5 matched them', async () => {
    expect(contentTerms(queryTerms('What is the bleaching of the reefs?'))).toEqual(['bleaching', 'reefs']);
    expect(contentTerms(queryTerms('The Who'))).toEqual(['The', 'Who']);
    const [hit] = await search.search('u1', 'What is the bleaching threshold in DHW?', 1);
    expect(hit).toMatchObject({ id: 'dhw', terms: ['bleaching', 'DHW'] });
    const words = await matchedWords(db, [{ documentId: 'plain', chunk: 0 }], ['bleaching', 'colony']);
    // "bleach" and "bleached" match "bleaching", "colonies" matches "colony"; "the" is never marked.
    expect(words.get('plain#0')).toEqual(['bleach', 'bleached', 'colonies']);
  });

  it('finds which content terms each chunk holds the same way, walking a rare term or looking a common one up', async () => {
    const spans = await db.execute(
      "SELECT id, document_id FROM document_chunk_spans WHERE document_id IN ('dhw', 'plain')",
    );
    const rows = spans.rows.map((r) => Number(r.id));
    const terms = ['bleaching', 'DHW', 'absent'];
    const counted = await countTerms(db, terms);
    const rare = { ...counted, counts: new Map(terms.map((t) => [t, 0])) };
    const common = { ...counted, counts: new Map(terms.map((t) => [t, counted.bound])) };
    const walked = await termsHeld(db, rows, terms, rare);
    expect(await termsHeld(db, rows, terms, common)).toEqual(walked);
    const dhw = spans.rows.filter((r) => r.document_id === 'dhw').map((r) => Number(r.id));
    // The DHW paragraph holds "bleaching" and "DHW"; every chunk holds "bleach…"; none "absent".
    expect(dhw.some((row) => walked.get(row)?.size === 2)).toBe(true);
    expect(rows.every((row) => walked.get(row)?.has(0))).toBe(true);
    expect([...walked.values()].some((held) => held.has(2))).toBe(false);
  });

  it('chooses hits: keyword matches and passages at the floor, in fused order, or none without a substantial one', () => {
    const c = { perChunk: false, mode: 'hybrid' as const, calibration: LOCAL_CALIBRATION };
    const kw = (documentId: string, held: number, share: number) => ({
      documentId,
      chunk: 0,
      score: 1,
      held,
      share,
    });
    const vec = (documentId: string, score: number) => ({ documentId, chunk: 0, score });
    // One common word in each passage and nothing near by meaning: nothing.
    expect(chooseHits([kw('a', 1, 0.2), kw('b', 1, 0.2)], [vec('c', 0.2)], c)).toEqual([]);
    // Function words only are no keyword match at all.
    expect(chooseHits([kw('a', 0, 0)], [], c)).toEqual([]);
    // One passage holds two content words: it and the one-word matches come back; the vector-only
    // passage under the floor does not, though its rank still counts for a document it shares.
    const hits = chooseHits([kw('a', 1, 0.2), kw('b', 2, 0.4)], [vec('a', 0.24), vec('c', 0.24)], c);
    expect(hits.map((h) => h.documentId)).toEqual(['a', 'b']);
    expect(hits[0]!.score).toBe(hitScore(LOCAL_CALIBRATION, 0.2, 0.24));
    // A passage at the floor is substantial alone, and comes back without a keyword match.
    expect(chooseHits([], [vec('c', LOCAL_CALIBRATION.floor)], c).map((h) => h.documentId)).toEqual(['c']);
    // One rare term that carries half the query's weight is substantial alone.
    expect(chooseHits([kw('a', 1, 0.5)], [], c).map((h) => h.documentId)).toEqual(['a']);
  });

  it('fuses by reciprocal rank (k = 60): both lists count, and the better-ranked chunk is shown', () => {
    const keyword = [
      { documentId: 'a', chunk: 3, score: 9 },
      { documentId: 'b', chunk: 0, score: 5 },
    ];
    const vector = [
      { documentId: 'b', chunk: 1, score: 0.9 },
      { documentId: 'c', chunk: 0, score: 0.8 },
      { documentId: 'a', chunk: 2, score: 0.7 },
    ];
    const fused = fuse([keyword, vector], false);
    expect(fused.map((h) => [h.documentId, h.chunk])).toEqual([
      ['b', 1], // 1/62 + 1/61, shown with its vector chunk (rank 1 there, 2 by keyword)
      ['a', 3], // 1/61 + 1/63
      ['c', 0], // 1/62
    ]);
    expect(fused[1]!.score).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 3), 12);
    expect(fused[2]!.score).toBeCloseTo(1 / (RRF_K + 2), 12);
    // Per chunk, each chunk is its own entry.
    expect(fuse([keyword, vector], true)).toHaveLength(5);
    // Weighted: a keyword first stays first over a keyword second that is the vector first.
    const weighted = fuse([keyword, vector], false, [1, VECTOR_WEIGHT]);
    expect(weighted.map((h) => h.documentId)).toEqual(['a', 'b', 'c']);
  });
});

describe('the statements of a search', () => {
  it('read the owner’s searchable documents from their own index, never through each document’s row', async () => {
    // documents_usage (migration 028) lacks index_state: a statement the planner answers from it
    // reads every document's row to check it (15 ms against 0.6 at 10,000 documents, measured).
    const statements: Array<{ sql: string; args: unknown[] }> = [];
    const spied = new Proxy(db, {
      get(target, key, receiver) {
        if (key !== 'execute') return Reflect.get(target, key, receiver);
        return (statement: string | { sql: string; args?: unknown[] }) => {
          statements.push(
            typeof statement === 'string'
              ? { sql: statement, args: [] }
              : { sql: statement.sql, args: statement.args ?? [] },
          );
          return target.execute(statement as never);
        };
      },
    });
    await db.execute(
      "INSERT INTO document_tags (document_id, tag, folded, position) VALUES ('dhw', 'Heat', 'heat', 0)",
    );
    cleanups.push(() => void db.execute("DELETE FROM document_tags WHERE document_id = 'dhw'"));
    const fresh = createLibrarySearch({ db: spied, adapter });
    try {
      for (const options of [{}, { tag: 'heat' }, { mode: 'keyword' as const }])
        expect(await fresh.search('u1', 'bleaching at 8 DHW', 5, options)).not.toEqual([]);
    } finally {
      fresh.close();
    }
    expect(statements.length).toBeGreaterThan(5);
    for (const { sql, args } of statements) {
      const plan = await db.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: args as never });
      const details = plan.rows.map((r) => String(r.detail));
      expect({ sql, details }).not.toMatchObject({
        details: expect.arrayContaining([expect.stringMatching(/documents_usage|SCAN (documents|d)\b/)]),
      });
    }
  });
});

describe('the keyword index', () => {
  it('takes no user syntax: any text searches without an error', async () => {
    const tricky = fc.constantFrom(
      '"',
      '""',
      '*',
      'NEAR(a b)',
      'a OR',
      'AND',
      '^x',
      'text : x',
      'scope : o75310',
      '(',
      '-',
      '--',
      '\u0301',
      '{text}',
      'a"b',
      '10.1038/nature21707',
      // FTS5 takes a NUL for the end of the query: "unterminated string".
      'a\u0000b',
    );
    for (const nul of ['a\u0000b', 'reef \u0000 coral', '\u0000']) {
      await searchKeywords(db, 'u1', nul, 10);
      await searchKeywords(db, 'u1', nul, 10, 'dhw');
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(tricky, fc.string(), fc.string({ unit: 'binary' })), { maxLength: 6 }),
        async (parts) => {
          const query = parts.join(' ');
          await searchKeywords(db, 'u1', query, 10);
          await searchKeywords(db, 'u1', query, 10, 'dhw');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('quotes every term and scopes the match to the tokens given', () => {
    expect(queryTerms(' "8 DHW", --max-pages (10.1038/nature21707) ! dhw ')).toEqual([
      '8',
      'DHW',
      'max-pages',
      '10.1038/nature21707',
    ]);
    const scope = [scopeToken('o', 'u1'), scopeToken('d', 'd')];
    expect(matchQuery('a"b OR', scope)).toBe('scope : ("o75310" AND "d640") AND text : ("a""b" OR "OR")');
    expect(matchQuery('a"b OR')).toBe('text : ("a""b" OR "OR")');
    expect(matchQuery('!! --', scope)).toBeNull();
    // Another owner's scope token is never reachable from the text column.
    expect(matchQuery('o75320', [scopeToken('o', 'u1')])).toBe('scope : ("o75310") AND text : ("o75320")');
  });

  it('removing a document removes its keyword and vector entries', async () => {
    await insertDocument(
      db,
      {
        id: 'gone',
        ownerId: 'u1',
        title: 'Gone',
        authors: [],
        abstract: '',
        pages: ['Zebrafish ZF-7731 fins.'],
      },
      new Date(),
    );
    await index();
    expect(await ids('ZF-7731', 'keyword')).toEqual(['gone']);
    const rows = async () => {
      const rs = await db.execute(`SELECT
        (SELECT COUNT(*) FROM document_chunks WHERE document_id = 'gone') AS vectors,
        (SELECT COUNT(*) FROM document_chunk_spans WHERE document_id = 'gone') AS spans,
        (SELECT COUNT(*) FROM document_keywords WHERE document_keywords MATCH '"zf-7731"') AS keywords`);
      return rs.rows[0]!;
    };
    expect(await rows()).toMatchObject({ vectors: 1, spans: 1, keywords: 1 });
    await removeDocument(db, 'gone', new Date());
    expect(await rows()).toMatchObject({ vectors: 0, spans: 0, keywords: 0 });
    expect(await ids('ZF-7731', 'hybrid')).not.toContain('gone');
  });

  it('is rebuilt when missing, without embedding the stored chunks again', async () => {
    await db.batch(['DELETE FROM document_keywords', 'DELETE FROM document_chunk_spans'], 'write');
    expect(await ids('8 DHW', 'keyword')).toEqual([]);
    await prepareDocumentIndex(db, adapter, LIBRARY_ALONE);
    const before = embedded.texts;
    await index();
    expect(embedded.texts).toBe(before);
    expect((await ids('8 DHW', 'keyword'))[0]).toBe('dhw');
    const rs = await db.execute(
      "SELECT COUNT(*) AS n FROM documents WHERE index_state != 'ready' AND removed_at IS NULL",
    );
    expect(Number(rs.rows[0]!.n)).toBe(0);
  });
});

describe('the keyword index in a large library', () => {
  it('ranks by the rarer terms only: none in half the chunks, and at most RANKED_ROWS rows together', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-search-large-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const big = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
    cleanups.push(() => big.close());
    await big.execute(
      "INSERT INTO users (id, name, created_at) VALUES ('u1', 'u1', '2026-01-01T00:00:00.000Z')",
    );
    await insertDocument(
      big,
      { id: 'big', ownerId: 'u1', title: 'Big', authors: [], abstract: '', pages: ['x'] },
      new Date(),
    );
    await big.execute("UPDATE documents SET index_state = 'ready' WHERE id = 'big'");
    const rows = 30_000;
    expect(rows).toBeGreaterThanOrEqual(COMMON_TERMS_FROM);
    expect(RANKED_ROWS).toBe(12_000); // the counts below are chosen around it
    const numbers = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})`;
    await big.execute(`INSERT INTO document_chunk_spans (id, document_id, chunk, start, end)
      ${numbers} SELECT i, 'big', i, 0, 0 FROM n`);
    // common: every row; middling: 13,000 (under half, over RANKED_ROWS); modest: 5,000;
    // other: 8,000 (modest and other together pass RANKED_ROWS); rare: 3.
    await big.execute({
      sql: `INSERT INTO document_keywords (rowid, text, scope) ${numbers}
        SELECT i, 'common'
          || CASE WHEN i <= 13000 THEN ' middling' ELSE '' END
          || CASE WHEN i > 13000 AND i <= 18000 THEN ' modest' ELSE '' END
          || CASE WHEN i > 18000 AND i <= 26000 THEN ' other' ELSE '' END
          || CASE WHEN i > 29997 THEN ' rare' ELSE '' END, ? FROM n`,
      args: [`${scopeToken('o', 'u1')} ${scopeToken('d', 'big')}`],
    });
    expect(await rankingTerms(big, ['common', 'middling', 'other', 'modest', 'rare'])).toEqual([
      'modest',
      'rare',
    ]);
    const hits = await searchKeywords(big, 'u1', 'common rare middling', 50);
    expect(hits.map((h) => h.chunk).sort()).toEqual([29998, 29999, 30000]);
    expect(await searchKeywords(big, 'u1', 'common middling', 50)).toEqual([]);
  });
});

describe('the keyword index narrowed to some documents (a tag)', () => {
  it('ranks only their chunks, merged exactly across matches of SCOPED_DOCUMENTS each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-search-tagged-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const big = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
    cleanups.push(() => big.close());
    await big.execute(
      "INSERT INTO users (id, name, created_at) VALUES ('u1', 'u1', '2026-01-01T00:00:00.000Z')",
    );
    // 700 documents of one chunk each: the 600 tagged ones say kelp once among other words, the
    // 100 others thrice, so those are the best of the library and never come back (each among a
    // different number of words, so no two score alike).
    const numbers = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)';
    await big.execute(`INSERT INTO documents (id, owner_id, title, pages, index_state, created_at)
      ${numbers} SELECT 'd' || i, 'u1', 't', 1, 'ready', '2026-01-01' FROM n`);
    await big.execute(
      `INSERT INTO document_texts (document_id, text) ${numbers} SELECT 'd' || i, 'x' FROM n`,
    );
    await big.execute(`INSERT INTO document_chunk_spans (id, document_id, chunk, start, end)
      ${numbers} SELECT i, 'd' || i, 0, 0, 0 FROM n`);
    const rows = Array.from({ length: 700 }, (_, k) => {
      const i = k + 1;
      const text = i > 600 ? `kelp kelp kelp ${'sea '.repeat(i - 600)}` : `kelp ${'forest '.repeat(i)}`;
      return {
        sql: 'INSERT INTO document_keywords (rowid, text, scope) VALUES (?, ?, ?)',
        args: [i, text, `${scopeToken('o', 'u1')} ${scopeToken('d', `d${i}`)}`],
      };
    });
    await big.batch(rows, 'write');
    const only = new Set(Array.from({ length: 600 }, (_, k) => `d${k + 1}`));
    const all = await searchKeywords(big, 'u1', 'kelp', 1_000);
    expect(all).toHaveLength(700);
    const truth = all.filter((h) => only.has(h.documentId)).slice(0, 10);
    expect(truth.map((h) => h.documentId)).not.toContain('d601');
    expect(await searchKeywords(big, 'u1', 'kelp', 10, undefined, undefined, only)).toEqual(truth);
    expect(await searchKeywords(big, 'u1', 'kelp', 10, undefined, undefined, new Set())).toEqual([]);
    // 450 of them asked 400 deep: their tokens are cheaper than the wide ranking (wideRanking),
    // two matches (256 and 194 documents) merged by score, the best 400 of their 450 chunks.
    const some = new Set([...only].slice(100, 550));
    expect(await searchKeywords(big, 'u1', 'kelp', 400, undefined, undefined, some)).toEqual(
      all.filter((h) => some.has(h.documentId)).slice(0, 400),
    );
    // A tag on most of the best documents: the owner's own ranking, read a little deeper, holds them.
    const most = new Set(
      [...only].slice(0, 300).concat(Array.from({ length: 100 }, (_, k) => `d${601 + k}`)),
    );
    expect(await searchKeywords(big, 'u1', 'kelp', 10, undefined, undefined, most)).toEqual(
      all.filter((h) => most.has(h.documentId)).slice(0, 10),
    );
  });
});

describe('the keyword index shared by owners', () => {
  it('ranks the owner’s best chunks, never another’s, with or without the owner’s token in the match', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-search-shared-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const shared = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
    cleanups.push(() => shared.close());
    // u1 holds 40 of the 52 rows (over UNSCOPED_SHARE: its token is left out of the match), u2
    // the other 12, each of which outranks all of u1's: "kelp" three times in a short passage.
    // u1's chunk i holds "kelp" once among i + 5 other words, so its best are 0, 1, 2, ...
    const owners = [
      { ownerId: 'u1', id: 'mine', chunks: 40, text: (i: number) => `kelp${' reef'.repeat(i + 5)}` },
      { ownerId: 'u2', id: 'theirs', chunks: 12, text: (i: number) => `kelp kelp kelp ${i}` },
    ];
    expect(40 / 52).toBeGreaterThanOrEqual(UNSCOPED_SHARE);
    expect(12 / 52).toBeLessThan(UNSCOPED_SHARE);
    let id = 0;
    for (const o of owners) {
      await shared.execute({
        sql: "INSERT INTO users (id, name, created_at) VALUES (?, ?, '2026-01-01T00:00:00.000Z')",
        args: [o.ownerId, o.ownerId],
      });
      await insertDocument(
        shared,
        { id: o.id, ownerId: o.ownerId, title: o.id, authors: [], abstract: '', pages: ['x'] },
        new Date(),
      );
      await shared.execute({
        sql: "UPDATE documents SET index_state = 'ready', index_total = ? WHERE id = ?",
        args: [o.chunks, o.id],
      });
      for (let i = 0; i < o.chunks; i++) {
        id++;
        await shared.batch(
          [
            {
              sql: 'INSERT INTO document_chunk_spans (id, document_id, chunk, start, end) VALUES (?, ?, ?, 0, 0)',
              args: [id, o.id, i],
            },
            {
              sql: 'INSERT INTO document_keywords (rowid, text, scope) VALUES (?, ?, ?)',
              args: [id, o.text(i), `${scopeToken('o', o.ownerId)} ${scopeToken('d', o.id)}`],
            },
          ],
          'write',
        );
      }
    }
    const chunks = async (ownerId: string, depth: number, documentId?: string) => {
      const hits = await searchKeywords(shared, ownerId, 'kelp', depth, documentId);
      expect(hits.every((h) => h.documentId === (ownerId === 'u1' ? 'mine' : 'theirs'))).toBe(true);
      return hits.map((h) => h.chunk);
    };
    const first = (n: number) => Array.from({ length: n }, (_, i) => i);
    // 15 deep: the 27 best rows (15 + the 12 others) hold u1's 15 best.
    expect(await chunks('u1', 15)).toEqual(first(15));
    // 10 deep: the 20 best rows hold only 8 of u1's, so its token is needed after all.
    expect(await chunks('u1', 10)).toEqual(first(10));
    // Deeper than u1's matches: every match was ranked, and all 40 of u1's come back.
    expect(await chunks('u1', 50)).toEqual(first(40));
    // u2 holds a small share: matched within its token.
    expect(await chunks('u2', 5)).toHaveLength(5);
    // Within one document: the owner's own only.
    expect(await chunks('u1', 5, 'mine')).toEqual(first(5));
    expect(await chunks('u1', 5, 'theirs')).toEqual([]);
  });
});
