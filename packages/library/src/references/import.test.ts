import { readFileSync } from 'node:fs';
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { makePdf } from '@sponge/testing/pdf-fixtures';
import { zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { getVisibleDocument, listVisibleDocuments } from '../documents/documents.ts';
import { isLibraryError } from '../errors.ts';
import { createLibrary } from '../library.ts';
import type { Library } from '../library.ts';
import { openTestDatabase } from '../testing/database.ts';
import { importReferences, readImportForm } from './import.ts';

const adapter = createLocalEmbeddingAdapter();
const log = { warn: () => {}, error: () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(): Promise<{ db: Client; library: Library }> {
  const test = await openTestDatabase(adapter, {
    owners: [
      { id: 'ada', name: 'Ada' },
      { id: 'bob', name: 'Bob' },
    ],
  });
  cleanups.push(() => test.close());
  const library = createLibrary({ db: test.db, adapter, log });
  cleanups.push(() => library.close());
  return { db: test.db, library };
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const utf8 = (s: string) => new TextEncoder().encode(s);
const now = () => new Date();
const HUGHES_PDF = 'Hughes et al. - 2017 - Global warming and recurrent mass bleaching of cor.pdf';
const HUGHES_TEXT = 'Coral bleaching on the Great Barrier Reef in 2016, reef by reef.';

/** Zotero's export of zotero.bib with its files, as a folder zipped by the operating system. */
async function zoteroExportZip(): Promise<Uint8Array> {
  return zipSync({
    'Exported Items/Exported Items.bib': fixture('zotero.bib'),
    [`Exported Items/files/12/${HUGHES_PDF}`]: await makePdf([HUGHES_TEXT]),
    'Exported Items/files/13/nature21707.html': utf8('<html><body>Snapshot</body></html>'),
  });
}

function form(file: File, files: File[] = []): FormData {
  const f = new FormData();
  f.append('file', file);
  for (const part of files) f.append('files', part);
  return f;
}

async function documents(db: Client, owner: string) {
  return (await listVisibleDocuments(db, owner)).filter((d) => d.access === 'owner');
}

describe('importReferences', () => {
  it("imports Zotero's export folder (.zip): the entry with a PDF gets its text, the other its abstract, both their metadata", async () => {
    const { db, library } = await open();
    const input = await readImportForm(form(new File([await zoteroExportZip()], 'Exported Items.zip')));
    const result = await importReferences(library, 'ada', input, { now });
    expect(result).toMatchObject({
      added: [
        { title: 'Global warming and recurrent mass bleaching of corals' },
        { title: 'The Elements of Statistical Learning: Data Mining, Inference, and Prediction' },
      ],
      duplicates: [],
      failed: [],
    });
    const hughes = await getVisibleDocument(db, 'ada', result.added[0]!.id);
    expect(hughes).toMatchObject({
      source: 'pdf',
      title: 'Global warming and recurrent mass bleaching of corals',
      authors: [
        'Terry P. Hughes',
        'James T. Kerry',
        'Mariana Álvarez-Noriega',
        'Jorge G. Álvarez-Romero',
        'Kristen D. Anderson',
      ],
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      tags: ['Climate-change ecology', 'Coral reefs'],
      citationKey: 'hughes2017',
    });
    expect(hughes?.text).toContain(HUGHES_TEXT);
    const hastie = await getVisibleDocument(db, 'ada', result.added[1]!.id);
    expect(hastie).toMatchObject({
      source: 'text',
      year: 2009,
      venue: 'Springer',
      citationKey: 'hastie2009',
    });
    expect(hastie?.text).toMatch(/^A textbook of statistical learning/);
    expect(hastie?.abstract).toMatch(/^A textbook of statistical learning/);
  });

  it('matches PDFs sent beside a .bib by file name, LaTeX-written names included (Mendeley)', async () => {
    const { db, library } = await open();
    const krumhansl =
      'Krumhansl et al. - 2016 - Global patterns of kelp forest change over the past half-century.pdf';
    const input = await readImportForm(
      form(new File([fixture('mendeley.bib')], 'library.bib'), [
        new File([await makePdf(['Kelp forests changed little on average.'])], krumhansl),
        new File(
          [await makePdf(['Seegraswiesen im Wandel der Zeit.'])],
          'Müller, Schäfer - 2019 - Seegraswiesen im Wandel.pdf',
        ),
      ]),
    );
    const result = await importReferences(library, 'ada', input, { now });
    expect(result.failed).toEqual([]);
    const docs = await documents(db, 'ada');
    expect(docs.map((d) => [d.title, d.source, d.tags]).sort()).toEqual([
      [
        'Global patterns of kelp forest change over the past half-century',
        'pdf',
        ['climate change', 'kelp', 'to read'],
      ],
      ['Seegraswiesen im Wandel', 'pdf', []],
    ]);
  });

  it('counts duplicates with the document they repeat, and reports refused entries in words: nothing half added', async () => {
    const { db, library } = await open();
    const zip = await zoteroExportZip();
    const first = await importReferences(
      library,
      'ada',
      await readImportForm(form(new File([zip], 'e.zip'))),
      { now },
    );
    const again = await importReferences(
      library,
      'ada',
      await readImportForm(form(new File([zip], 'e.zip'))),
      { now },
    );
    expect(again.added).toEqual([]);
    expect(again.duplicates).toEqual([
      { entry: 'Global warming and recurrent mass bleaching of corals', existingId: first.added[0]!.id },
      {
        entry: 'The Elements of Statistical Learning: Data Mining, Inference, and Prediction',
        existingId: first.added[1]!.id,
      },
    ]);
    // Another owner has neither: both are added for them.
    const bob = await importReferences(library, 'bob', await readImportForm(form(new File([zip], 'e.zip'))), {
      now,
    });
    expect(bob.added).toHaveLength(2);

    const bib = [
      '@article{broken2020, title = {A broken file}, file = {:broken.pdf:PDF}}',
      '@misc{untitled2021, author = {Nobody, A.}}',
      '@article{damaged2022, title = {A damaged PDF}, file = {:damaged.pdf:PDF}}',
    ].join('\n');
    const before = (await documents(db, 'ada')).length;
    const result = await importReferences(
      library,
      'ada',
      await readImportForm(
        form(new File([bib], 'x.bib'), [
          new File(['not a pdf at all'], 'broken.pdf'),
          new File(['%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%%EOF'], 'damaged.pdf'),
        ]),
      ),
      { now },
    );
    expect(result.added).toEqual([]);
    expect(result.failed).toEqual([
      { entry: 'A broken file', reason: 'broken.pdf is not a PDF.' },
      { entry: 'untitled2021', reason: 'It has no title.' },
      { entry: 'A damaged PDF', reason: expect.stringContaining('PDF') },
    ]);
    expect((await documents(db, 'ada')).length).toBe(before);
    const rows = await db.execute({ sql: "SELECT count(*) AS n FROM documents WHERE owner_id = 'ada'" });
    expect(Number(rows.rows[0]!.n)).toBe(before);
  });

  it('says of an entry added without the PDF it names which file did not come', async () => {
    const { db, library } = await open();
    const bib =
      '@article{kelp2020, title = {Kelp canopies}, abstract = {Canopies thinned.}, file = {:files/7/kelp.pdf:PDF}}';
    const result = await importReferences(
      library,
      'ada',
      await readImportForm(form(new File([bib], 'x.bib'))),
      { now },
    );
    expect(result.added).toEqual([
      { id: expect.any(String), title: 'Kelp canopies', missingFile: 'kelp.pdf' },
    ]);
    expect((await getVisibleDocument(db, 'ada', result.added[0]!.id))?.text).toBe('Canopies thinned.');
  });

  it('reports the entries not reached in time, and stops when the request ends', async () => {
    const { library } = await open();
    const bib = utf8(fixture('zotero.bib').toString());
    let t = 0;
    const clock = () => new Date(Date.UTC(2026, 0, 1) + (t += 60_000));
    const late = await importReferences(
      library,
      'ada',
      { bibliography: { name: 'x.bib', bytes: bib }, files: [] },
      {
        now: clock,
        seconds: 90,
      },
    );
    expect(late.added).toHaveLength(1);
    expect(late.failed).toEqual([
      {
        entry: 'The Elements of Statistical Learning: Data Mining, Inference, and Prediction',
        reason: 'Not imported: the import stopped after 2 minutes. Import this entry again.',
      },
    ]);
    const gone = AbortSignal.abort();
    const aborted = await importReferences(
      library,
      'bob',
      { bibliography: { name: 'x.bib', bytes: bib }, files: [] },
      {
        now,
        signal: gone,
      },
    ).catch((err: unknown) => err);
    expect(isLibraryError(aborted) && aborted.reason).toBe('aborted');
  });
});

describe('readImportForm', () => {
  const refusal = async (f: FormData) => {
    try {
      await readImportForm(f);
    } catch (err) {
      if (isLibraryError(err)) return `${err.reason}: ${err.message}`;
      throw err;
    }
    return 'accepted';
  };

  it('refuses in words a form without its bibliography, other parts, and files over their limits', async () => {
    expect(await refusal(new FormData())).toMatch(/^invalid_input: file: attach the bibliography/);
    const withTitle = form(new File(['@misc{a, title={A}}'], 'a.bib'));
    withTitle.append('title', 'x');
    expect(await refusal(withTitle)).toBe('invalid_input: title: not a part of an import (file, files).');
    const twoFiles = form(new File(['@misc{a, title={A}}'], 'a.bib'));
    twoFiles.append('file', new File(['x'], 'b.bib'));
    expect(await refusal(twoFiles)).toBe('invalid_input: file: attach exactly one bibliography or .zip.');
    const bigPdf = new File([new Uint8Array(20 * 1024 * 1024 + 1)], 'big.pdf');
    expect(await refusal(form(new File(['@misc{a, title={A}}'], 'a.bib'), [bigPdf]))).toBe(
      'too_large: big.pdf is larger than the 20 MiB limit of a file.',
    );
    // Names are said as a typed title is: without control or bidi characters.
    const spoof = new File([new Uint8Array(20 * 1024 * 1024 + 1)], 'report\u202Efdp.pdf');
    expect(await refusal(form(new File(['@misc{a, title={A}}'], 'a.bib'), [spoof]))).toBe(
      'too_large: reportfdp.pdf is larger than the 20 MiB limit of a file.',
    );
    const bigBib = new File([new Uint8Array(5 * 1024 * 1024 + 1).fill(32)], 'huge.bib');
    expect(await refusal(form(bigBib))).toBe(
      'too_large: huge.bib is larger than the 5 MiB limit of a bibliography.',
    );
  });
});
