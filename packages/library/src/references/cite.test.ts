import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { afterEach, describe, expect, it } from 'vitest';
import { listVisibleDocuments, publishDocument, removeDocument } from '../documents/documents.ts';
import { shareDocument } from '../documents/sharing.ts';
import { isLibraryError } from '../errors.ts';
import { createLibrary } from '../library.ts';
import type { Library } from '../library.ts';
import { openTestDatabase } from '../testing/database.ts';
import { citeDocuments } from './cite.ts';
import { importReferences } from './import.ts';

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
      { id: 'cy', name: 'Cy' },
      { id: 'dee', name: 'Dee' },
    ],
  });
  cleanups.push(() => test.close());
  const library = createLibrary({ db: test.db, adapter, log });
  cleanups.push(() => library.close());
  return { db: test.db, library };
}

const now = () => new Date();

async function add(library: Library, owner: string, metadata: Record<string, unknown> & { title: string }) {
  const { id } = await library.add(
    owner,
    { title: metadata.title, authors: [], source: 'text', pages: [`Text of ${metadata.title}.`], metadata },
    now(),
  );
  return id;
}

const HUGHES = {
  title: 'Global warming and recurrent mass bleaching of corals',
  authors: ['Terry P. Hughes', 'James T. Kerry'],
  year: 2017,
  doi: '10.1038/nature21707',
  venue: 'Nature',
  abstract: 'Record temperatures bleached corals across the tropics.',
  tags: ['Coral reefs', 'to read'],
};

const WERNBERG = {
  title: 'Climate-driven regime shift of a temperate marine ecosystem',
  authors: ['Thomas Wernberg', 'Thibaut de Bettignies'],
  year: 2016,
  doi: '10.1126/science.aad8745',
  venue: 'Science',
  abstract: 'A marine heatwave moved the kelp forests of Western Australia south.',
  tags: ['kelp'],
};

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isLibraryError(err)) return `${err.reason}: ${err.message}`;
    throw err;
  }
  return 'accepted';
}

describe('citeDocuments', () => {
  it('cites what the caller may read — their own, shared with them, published — in the order asked', async () => {
    const { db, library } = await open();
    const own = await add(library, 'ada', HUGHES);
    const shared = await add(library, 'bob', WERNBERG);
    await shareDocument(db, shared, 'ada', now());
    const published = await add(library, 'cy', { title: 'Field notes from the reef', authors: ['Cy Young'] });
    await publishDocument(db, published, now());

    const { text } = await citeDocuments(db, 'ada', {
      documentIds: [shared, own, published, own],
      format: 'text',
    });
    expect(text).toBe(
      [
        'Hughes, T. P., & Kerry, J. T. (2017). Global warming and recurrent mass bleaching of corals. Nature. https://doi.org/10.1038/nature21707',
        'Wernberg, T., & de Bettignies, T. (2016). Climate-driven regime shift of a temperate marine ecosystem. Science. https://doi.org/10.1126/science.aad8745',
        'Young, C. (n.d.). Field notes from the reef.',
        '',
      ].join('\n'),
    );
    const { text: bib } = await citeDocuments(db, 'ada', { documentIds: [own, shared], format: 'bibtex' });
    expect(bib.indexOf('@article{hughes2017,')).toBe(0);
    expect(bib.indexOf('@article{wernberg2016,')).toBeGreaterThan(0);
    const { text: vancouver } = await citeDocuments(db, 'ada', {
      documentIds: [own],
      format: 'text',
      style: 'vancouver',
    });
    expect(vancouver).toMatch(/^1\. Hughes TP, Kerry JT\. Global warming/);
  });

  it("answers not_found for any document the caller may not read — another's, a removed one, none — and cites nothing", async () => {
    const { db, library } = await open();
    const own = await add(library, 'ada', HUGHES);
    const bobs = await add(library, 'bob', WERNBERG);
    const gone = await add(library, 'ada', { title: 'Removed', authors: [] });
    await removeDocument(db, gone, now());
    for (const ids of [[own, bobs], [gone], ['doc_none']])
      expect(await refusal(citeDocuments(db, 'ada', { documentIds: ids, format: 'ris' }))).toBe(
        'not_found: A document to cite was not found.',
      );
  });

  it('round trip: what one account exports, another imports with the same metadata, in every format', async () => {
    const { db, library } = await open();
    const ids = [
      await add(library, 'ada', HUGHES),
      await add(library, 'ada', WERNBERG),
      // Tags given with the separators reference managers write between tags; an abstract of two
      // paragraphs.
      await add(library, 'ada', {
        title: 'Heat and kelp',
        authors: ['Ada Lovelace'],
        tags: ['Pacific, heat; kelp'],
        abstract: 'Kelp forests retreat in heatwaves.\n\nThey return in cool years.',
      }),
    ];
    const view = (d: Awaited<ReturnType<typeof listVisibleDocuments>>[number]) => ({
      title: d.title,
      authors: d.authors,
      year: d.year,
      doi: d.doi,
      venue: d.venue,
      abstract: d.abstract,
      tags: d.tags,
      citationKey: d.citationKey,
    });
    const exported = (await listVisibleDocuments(db, 'ada'))
      .map(view)
      .sort((a, b) => a.title.localeCompare(b.title));
    for (const [format, name, owner] of [
      ['bibtex', 'refs.bib', 'bob'],
      ['ris', 'refs.ris', 'cy'],
      ['csl-json', 'refs.json', 'dee'],
    ] as const) {
      const { text } = await citeDocuments(db, 'ada', { documentIds: ids, format });
      const result = await importReferences(
        library,
        owner,
        { bibliography: { name, bytes: new TextEncoder().encode(text) }, files: [] },
        { now },
      );
      expect(result.failed).toEqual([]);
      const imported = (await listVisibleDocuments(db, owner))
        .filter((d) => d.access === 'owner')
        .map(view)
        .sort((a, b) => a.title.localeCompare(b.title));
      // RIS writes a field on one line: its paragraphs come back as one.
      const sent =
        format === 'ris'
          ? exported.map((d) => ({ ...d, abstract: d.abstract.replace(/\s*\n\s*\n\s*/g, ' ') }))
          : exported;
      expect(imported, format).toEqual(sent);
    }
  });
});
