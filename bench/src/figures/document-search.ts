/**
 * `library`: the owner's document search (issues 17 and 27). One owner's library grows through
 * the real indexer (chunk, embed with the local adapter, write vectors and keywords) to 10k and
 * then 100k chunks; at each size `documents.search`'s hybrid path (embed the question, sync the
 * in-memory index, search it, rank the FTS5 keyword index, fuse, read the passages back) is timed
 * beside the vector-only path in the same process (`mode: 'vector'`, what search was before
 * issue 27), and the keyword list alone is reported. The indexing rate is the chunks written per
 * second with both indexes, beside the vector-only write (the same chunks embedded and written to
 * document_chunks alone, batch by batch, in another database of the same process).
 */
import { join } from 'node:path';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { addOwner, createLibrary, openLibraryDatabase } from '@sponge/library';
import { elapsedSeconds, lat, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { compare, summarize, time } from '../stats.ts';

const WORDS =
  'kelp canopy urchin otter reef coral bleaching heatwave recovery survey transect sediment carbon seagrass meadow nutrient runoff turbidity larvae recruitment biomass herbivore predator density cover decline growth temperature anomaly satellite station sample estimate interval model trend figure table method site inshore offshore annual monitoring'.split(
    ' ',
  );

/** Paragraphs of ~40 words; each becomes one chunk. */
function paragraph(doc: number, i: number): string {
  return Array.from(
    { length: 40 },
    (_, k) => WORDS[(doc * 131 + i * 31 + k * 17 + ((i * k) % 11)) % WORDS.length],
  ).join(' ');
}

const CHUNKS_PER_DOC = 250;
const PAGES_PER_DOC = 10;

/** Each document names its own dataset once (an exact term, as a researcher would search it). */
const datasetId = (doc: number) => `GSE${10_000 + doc}`;

function documentPages(doc: number): string[] {
  const perPage = CHUNKS_PER_DOC / PAGES_PER_DOC;
  return Array.from({ length: PAGES_PER_DOC }, (_, p) =>
    Array.from(
      { length: perPage },
      (_, i) =>
        paragraph(doc, p * perPage + i) +
        (p === 0 && i === 0 ? ` dataset ${datasetId(doc)}` : '') +
        // Words of middling frequency, in 10% and 30% of the chunks: what the keyword index ranks.
        ((doc + i) % 10 === 0 ? ' upwelling' : '') +
        ((doc + p + i) % 10 < 3 ? ' hypoxia' : ''),
    ).join('\n\n'),
  );
}

export async function documentSearch(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, builds, log } = ctx;
  const rows: Row[] = [];
  const adapter = createLocalEmbeddingAdapter();
  const db = await openLibraryDatabase(`file:${join(work, 'library.db')}`, adapter);
  const library = createLibrary({ db, adapter, log: { warn: log, error: log } });
  await addOwner(db, { id: 'owner', name: 'Owner' });
  const queries = Array.from(
    { length: 20 },
    (_, q) =>
      `${WORDS[(q * 7) % WORDS.length]} ${WORDS[(q * 11 + 3) % WORDS.length]} ${WORDS[(q * 13 + 5) % WORDS.length]}`,
  );
  const sizes = quick ? [2_000, 10_000] : [10_000, 100_000];
  let docs = 0;
  let indexedChunks = 0;
  let indexingSeconds = 0;
  const results: Array<{ size: number; p50: number }> = [];
  try {
    for (const size of sizes) {
      const t0 = performance.now();
      while (docs * CHUNKS_PER_DOC < size) {
        await library.add(
          'owner',
          { title: `Field report ${docs}`, authors: [], source: 'pdf', pages: documentPages(docs) },
          new Date(),
        );
        docs++;
      }
      await library.indexer.idle();
      const seconds = (performance.now() - t0) / 1000;
      indexingSeconds += seconds;
      const chunks = Number((await db.execute('SELECT COUNT(*) AS n FROM document_chunks')).rows[0]!.n);
      indexedChunks = chunks;
      builds[`library of ${chunks.toLocaleString('en')} chunks through the indexer (local adapter)`] =
        elapsedSeconds(t0);

      // The first search after the library grew loads the new vectors into the owner's index.
      const c0 = performance.now();
      await library.search.search('owner', queries[0]!, 10);
      const cold = performance.now() - c0;
      // Measured once the new vectors are in the graph: what every later search meets.
      await library.search.settled('owner');

      log(`document search at ${chunks} chunks`);
      const query = (i: number) => queries[i % queries.length]!;
      const r = await compare(
        (i) => library.search.search('owner', query(i), 10),
        (i) => library.search.search('owner', query(i), 10, { mode: 'vector' }),
        { rounds: 4, perRound: quick ? 10 : 30, warmup: 3 },
      );
      const keywordOnly = summarize(
        await time(
          (i) => library.search.search('owner', query(i), 10, { mode: 'keyword' }),
          quick ? 20 : 60,
          3,
        ),
      );
      // An exact term (one document's dataset id) rather than the vocabulary every chunk shares.
      const exact = summarize(
        await time(
          (i) => library.search.search('owner', `dataset ${datasetId((i * 7) % docs)}`, 10),
          quick ? 20 : 60,
          3,
        ),
      );
      const middling = summarize(
        await time(() => library.search.search('owner', 'upwelling hypoxia', 10), quick ? 20 : 60, 3),
      );
      results.push({ size, p50: r.subject.p50 });
      const first = results[0]!;
      const isLargest = size === sizes.at(-1);
      rows.push({
        figure: `document search, hybrid (limit 10), ${chunks.toLocaleString('en')} chunks of one owner`,
        sync: 'n/a',
        project: lat(r.subject),
        baseline: `vector-only ${lat(r.baseline)}`,
        ratio: round(r.subject.p50 / r.baseline.p50),
        target: isLargest ? 'p50 ≤ 30 ms' : '',
        met: isLargest ? r.subject.p50 <= 30 : null,
        note: `keyword list alone ${lat(keywordOnly)}; a dataset id (exact term) ${lat(exact)}; two words in 10% and 30% of the chunks ${lat(middling)}; first search after growing (loads the new vectors): ${cold.toFixed(0)} ms; ${isLargest ? `${(r.subject.p50 / first.p50).toFixed(2)}× the ${first.size.toLocaleString('en')} figure` : ''}`,
        raw: { subject: r.subject, baseline: r.baseline, keywordOnly, exact, middling, coldMs: cold },
      });
    }
    const rate = indexedChunks / indexingSeconds;
    const vectorOnly = await vectorOnlyWriteRate(
      join(work, 'vectors-only.db'),
      adapter,
      quick ? 2_000 : 10_000,
    );
    // The raw side of the rate: the adapter alone on the same passages, no database.
    const sample = documentPages(0).flatMap((p) => p.split('\n\n'));
    const embedOnly = summarize(
      await time(
        async () => {
          await adapter.embed(sample.slice(0, 64));
        },
        30,
        3,
      ),
    );
    rows.push({
      figure: 'document indexing (chunk, embed, write vectors and keywords), local adapter',
      sync: 'n/a',
      project: `${Math.round(rate).toLocaleString('en')} chunks/s`,
      baseline: `vector-only write ${Math.round(vectorOnly).toLocaleString('en')} chunks/s`,
      ratio: round(rate / vectorOnly),
      target: '≥ 200 chunks/s',
      met: rate >= 200,
      note: `embedding alone ${Math.round(64 / (embedOnly.p50 / 1000)).toLocaleString('en')} chunks/s`,
      raw: { chunks: indexedChunks, seconds: indexingSeconds, embedOnly, vectorOnly },
    });
  } finally {
    await library.close();
    db.close();
  }
  return rows;
}

/**
 * The write path before the keyword index, as the baseline of the indexing rate: the same
 * documents' chunks embedded 64 at a time and written to document_chunks alone, one batch each.
 */
async function vectorOnlyWriteRate(path: string, adapter: EmbeddingAdapter, chunks: number): Promise<number> {
  const db = await openLibraryDatabase(`file:${path}`, adapter);
  try {
    await addOwner(db, { id: 'owner', name: 'Owner' });
    const t0 = performance.now();
    let written = 0;
    for (let doc = 0; written < chunks; doc++) {
      const id = `v${doc}`;
      await db.execute({
        sql: `INSERT INTO documents (id, owner_id, title, authors, abstract, created_at)
              VALUES (?, 'owner', ?, '[]', '', '2026-01-01T00:00:00.000Z')`,
        args: [id, `Field report ${doc}`],
      });
      const passages = documentPages(doc).flatMap((p) => p.split('\n\n'));
      for (let i = 0; i < passages.length; i += 64) {
        const batch = passages.slice(i, i + 64);
        const vectors = await adapter.embed(batch.map((t) => `Field report ${doc}\n${t}`));
        await db.batch(
          batch.map((text, n) => ({
            sql: `INSERT OR REPLACE INTO document_chunks (document_id, chunk, page, text, digest, model, embedding)
                  SELECT ?, ?, 1, ?, 'd', ?, vector32(?)
                  WHERE EXISTS (SELECT 1 FROM documents WHERE id = ? AND removed_at IS NULL)`,
            args: [id, i + n, text, adapter.id, new Uint8Array(vectors[n]!.buffer), id],
          })),
          'write',
        );
      }
      written += passages.length;
    }
    return written / ((performance.now() - t0) / 1000);
  } finally {
    db.close();
  }
}
