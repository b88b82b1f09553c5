/**
 * A library's references over HTTP (SPEC §6d, issue 41 points 3 and 4): `documents.import` of a
 * reference manager's export (multipart: the bibliography and its PDFs, or a .zip of the folder),
 * with per-entry results and duplicates counted; `documents.cite` of what the caller may read.
 */
import { request } from 'node:http';
import { makePdf } from '@sponge/testing/pdf-fixtures';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BODY_BYTES } from '../http/limits.ts';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';

let s: TestServer;
let ada: string;
let grace: string;

beforeAll(async () => {
  s = await startTestServer();
  ada = await s.login('user-ada');
  grace = await s.login('user-grace');
});
afterAll(async () => {
  await s?.close();
});

/** As Zotero's BibTeX export writes it, with Export Files ticked. */
const BIB = `@article{hughes_global_2017,
\ttitle = {Global warming and recurrent mass bleaching of corals},
\tvolume = {543},
\tdoi = {10.1038/nature21707},
\tjournal = {Nature},
\tauthor = {Hughes, Terry P. and Kerry, James T.},
\tyear = {2017},
\tkeywords = {Coral reefs, Climate change},
\tfile = {Full Text PDF:files/12/Hughes et al. - 2017.pdf:application/pdf},
}

@article{wernberg_climate_2016,
\ttitle = {Climate-driven regime shift of a temperate marine ecosystem},
\tdoi = {10.1126/science.aad8745},
\tjournal = {Science},
\tauthor = {Wernberg, Thomas},
\tyear = {2016},
\tabstract = {A marine heatwave moved the kelp forests of Western Australia south.},
}
`;

function importForm(file: File, files: File[] = []): FormData {
  const form = new FormData();
  form.append('file', file);
  for (const f of files) form.append('files', f);
  return form;
}

const MiB = 1024 * 1024;

/**
 * Posts an import declaring `length` bytes and sends bytes until the server answers: it reads and
 * throws away a refused body up to a bound (http/drain.ts) so that the client reads the answer.
 */
function postDeclaring(length: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.url}/trpc/documents.import`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ada}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    // The server closes the connection once it has answered.
    req.on('error', () => {});
    const chunk = Buffer.alloc(MiB, 0x61);
    // One byte past what the server drains before it answers (4 upload bodies, server.ts), then
    // nothing: bytes it never reads would reset the connection under its answer (a client past the
    // bound is cut off, http/drain.ts), and the answer could be lost.
    const toSend = Math.min(length, 4 * MAX_UPLOAD_BODY_BYTES + 1);
    let sent = 0;
    const pump = (): void => {
      while (sent < toSend && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(MiB, toSend - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

async function documentRows(): Promise<number> {
  const rs = await s.app.app.execute('SELECT count(*) AS n FROM documents');
  return Number(rs.rows[0]!.n);
}

describe('documents.import', () => {
  it('imports a BibTeX export with the PDF it names: per-entry results, metadata in the list, duplicates counted on a second import', async () => {
    const pdf = await makePdf(['Bleaching of the Great Barrier Reef in 2016, reef by reef.']);
    const form = () =>
      importForm(new File([BIB], 'Exported Items.bib'), [new File([pdf], 'Hughes et al. - 2017.pdf')]);
    const first = await s.call('mutation', 'documents.import', form(), ada);
    expect(first.status).toBe(200);
    const result = first.data as {
      added: Array<{ id: string; title: string }>;
      duplicates: Json[];
      failed: Json[];
    };
    expect(result).toMatchObject({
      added: [
        { title: 'Global warming and recurrent mass bleaching of corals' },
        { title: 'Climate-driven regime shift of a temperate marine ecosystem' },
      ],
      duplicates: [],
      failed: [],
    });
    const list = await s.client(ada).documents.list.query();
    expect(list.find((d) => d.id === result.added[0]!.id)).toMatchObject({
      source: 'pdf',
      authors: ['Terry P. Hughes', 'James T. Kerry'],
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      tags: ['Coral reefs', 'Climate change'],
      citationKey: 'hughes2017',
    });
    expect(list.find((d) => d.id === result.added[1]!.id)).toMatchObject({
      source: 'text',
      venue: 'Science',
    });

    const again = await s.call('mutation', 'documents.import', form(), ada);
    expect(again.data).toEqual({
      added: [],
      duplicates: [
        { entry: 'Global warming and recurrent mass bleaching of corals', existingId: result.added[0]!.id },
        {
          entry: 'Climate-driven regime shift of a temperate marine ecosystem',
          existingId: result.added[1]!.id,
        },
      ],
      failed: [],
    });
  });

  it("imports a .zip of Zotero's export folder", async () => {
    const zip = zipSync({
      'Exported Items/Exported Items.bib': new TextEncoder().encode(BIB),
      'Exported Items/files/12/Hughes et al. - 2017.pdf': await makePdf(['Reef by reef.']),
    });
    const r = await s.call(
      'mutation',
      'documents.import',
      importForm(new File([zip], 'Exported Items.zip')),
      grace,
    );
    expect(r.status).toBe(200);
    expect((r.data as { added: Json[] }).added).toHaveLength(2);
  });

  it('refuses in words a form that is no import, a bibliography it cannot read, and a body over 200 MiB, storing nothing', async () => {
    const before = await documentRows();
    const noFile = await s.call('mutation', 'documents.import', new FormData(), ada);
    expect([noFile.status, noFile.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(noFile.error?.message).toMatch(/^file: attach the bibliography/);
    const notes = await s.call(
      'mutation',
      'documents.import',
      importForm(new File(['just notes'], 'notes.txt')),
      ada,
    );
    expect([notes.status, notes.error?.data.reason, notes.error?.message]).toEqual([
      400,
      'invalid_input',
      'notes.txt is not a bibliography this library reads: export BibTeX (.bib), RIS (.ris) or CSL JSON (.json).',
    ]);
    const json = await s.call('mutation', 'documents.import', { file: 'x' }, ada);
    expect([json.status, json.error?.data.reason]).toEqual([400, 'invalid_input']);
    // A declared length over the import's limit is refused before the body is parsed.
    const big = await postDeclaring(201 * MiB);
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({
      error: { message: 'The import is larger than the 200 MiB limit.', data: { reason: 'too_large' } },
    });
    expect(await documentRows()).toBe(before);
  });
});

describe('documents.cite', () => {
  it('cites the documents the caller may read as text (APA, Vancouver), BibTeX, RIS or CSL JSON; another owner’s is NOT_FOUND', async () => {
    const c = s.client(ada);
    const { id } = await c.documents.add.mutate({
      title: 'Kelp forests in a warming sea',
      authors: ['Anna Müller'],
      text: 'Kelp forests retreat where the water warms.',
    });
    await c.documents.update.mutate({ documentId: id, year: 2019, venue: 'Marine Ecology' });
    expect(await c.documents.cite.query({ documentIds: [id], format: 'text' })).toEqual({
      text: 'Müller, A. (2019). Kelp forests in a warming sea. Marine Ecology.\n',
    });
    expect(
      (await c.documents.cite.query({ documentIds: [id], format: 'text', style: 'vancouver' })).text,
    ).toBe('1. Müller A. Kelp forests in a warming sea. Marine Ecology. 2019.\n');
    expect((await c.documents.cite.query({ documentIds: [id], format: 'bibtex' })).text).toMatch(
      /^@article\{muller,\n\ttitle = \{\{Kelp forests in a warming sea\}\},\n/,
    );
    expect((await c.documents.cite.query({ documentIds: [id], format: 'ris' })).text).toMatch(
      /^TY {2}- JOUR\n/,
    );
    expect(
      JSON.parse((await c.documents.cite.query({ documentIds: [id], format: 'csl-json' })).text),
    ).toMatchObject([{ id: 'muller', title: 'Kelp forests in a warming sea' }]);
    const theirs = await s.call('query', 'documents.cite', { documentIds: [id], format: 'text' }, grace);
    expect([theirs.status, theirs.error?.data.reason]).toEqual([404, 'not_found']);
    const bad = await s.call('query', 'documents.cite', { documentIds: [id], format: 'endnote' }, ada);
    expect([bad.status, bad.error?.message]).toEqual([
      400,
      'Invalid input: format: format is bibtex, ris, csl-json or text',
    ]);
  });

  it('takes as many documents as a GET can carry, and refuses more in words, not with an empty 431', async () => {
    const ada2 = await s.login('user-ada');
    const { id } = await s
      .client(ada2)
      .documents.add.mutate({ title: 'Cited often', text: 'A text cited often.' });
    const most = await s.call(
      'query',
      'documents.cite',
      { documentIds: Array(200).fill(id), format: 'bibtex' },
      ada2,
    );
    expect(most.status).toBe(200);
    const over = await s.call(
      'query',
      'documents.cite',
      { documentIds: Array(201).fill(id), format: 'bibtex' },
      ada2,
    );
    expect([over.status, over.error?.data.reason, over.error?.message]).toEqual([
      400,
      'invalid_input',
      'Invalid input: documentIds: at most 200 documents at once',
    ]);
  });
});
