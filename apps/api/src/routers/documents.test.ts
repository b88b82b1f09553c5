/**
 * Your own library over HTTP (issue 17, SPEC §6b): adding and uploading, the limits and their
 * errors (a refusal leaves nothing behind), indexing state, search that ranks only the caller's
 * own documents, the library's order and memory state, and removal that deletes the text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { DOCUMENT_REASONS, SPONGE_LIMITS } from '@sponge/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEncryptedPdf, makePdf, makeZeroPagePdf } from '@sponge/testing/pdf-fixtures';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import type { TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';

let s: TestServer;
let ada: string;
let grace: string;

beforeAll(async () => ([s, ada, grace] = await startSignedIn('user-ada', 'user-grace')));
afterAll(() => s?.close());

function form(file: Blob, name: string, fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  f.append('file', file, name);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

/** Every row and chunk count, to show that a refused call left the database as it was. */
async function counts(): Promise<{ documents: number; chunks: number }> {
  // Documents added by earlier tests may still be indexing: let them finish first.
  await s.app.library.indexer.idle();
  const rs = await s.app.app.execute(
    'SELECT (SELECT COUNT(*) FROM documents) AS documents, (SELECT COUNT(*) FROM document_chunks) AS chunks',
  );
  return { documents: Number(rs.rows[0]!.documents), chunks: Number(rs.rows[0]!.chunks) };
}

async function indexed(): Promise<void> {
  await s.app.library.indexer.idle();
}

describe('adding documents', () => {
  it('documents.add: a pasted Markdown text is stored, indexed, listed first and readable', async () => {
    const text =
      '# Kelp canopy\n\r\nCanopy loss after the 2019 heatwave reached 90 percent along the northern coast.';
    const added = await s
      .client(ada)
      .documents.add.mutate({ title: 'Kelp canopy loss', text, format: 'markdown' });
    expect(added).toMatchObject({ title: 'Kelp canopy loss', pages: 1 });
    expect(added.characters).toBe(text.replace(/\r\n?/g, '\n').length);
    await indexed();
    const list = await s.client(ada).documents.list.query();
    expect(list[0]).toMatchObject({
      id: added.id,
      source: 'markdown',
      access: 'owner',
      index: { state: 'ready', reason: null },
    });
    expect(list[0]!.index!.done).toBe(list[0]!.index!.total);
    const doc = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(doc.text).toContain('Canopy loss after the 2019 heatwave');
    expect(doc.pageStarts).toEqual([0]);
    // Nobody else sees it.
    const other = await s.call('query', 'documents.get', { documentId: added.id }, grace);
    expect(other.status).toBe(404);
  });

  it("documents.add by the owner's API key adds to the owner's library", async () => {
    const key = await s.client(ada).auth.createApiKey.mutate({ label: 'library test' });
    const r = await s.call(
      'mutation',
      'documents.add',
      { title: 'Via key', text: 'Added by a key.' },
      key.apiKey,
    );
    expect(r.status).toBe(200);
    const row = await s.app.app.execute({
      sql: 'SELECT owner_id FROM documents WHERE id = ?',
      args: [r.data.id],
    });
    expect(row.rows[0]!.owner_id).toBe('user-ada');
  });

  it('documents.add refuses empty text, a long title and unknown fields, writing nothing', async () => {
    const before = await counts();
    for (const input of [
      { title: 'Empty', text: '  \n ' },
      { title: 'x'.repeat(SPONGE_LIMITS.titleChars + 1), text: 'ok' },
      { title: 'Extra', text: 'ok', ownerId: 'user-grace' },
    ]) {
      const r = await s.call('mutation', 'documents.add', input, ada);
      expect([r.status, r.error?.data.reason]).toEqual([400, 'invalid_input']);
    }
    expect(await counts()).toEqual(before);
  });

  it('documents.upload: a PDF keeps its pages; search answers with the passage and its page', async () => {
    const pdf = await makePdf([
      'Seagrass meadows on the western shelf were mapped by sonar in 2021.',
      'Blue carbon burial in the meadow sediment was 83 grams per square metre per year.',
    ]);
    const r = await s.call(
      'mutation',
      'documents.upload',
      form(new Blob([pdf], { type: 'application/pdf' }), 'seagrass-carbon.pdf'),
      ada,
    );
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ title: 'seagrass-carbon', pages: 2 });
    await indexed();
    const doc = await s.client(ada).documents.get.query({ documentId: r.data.id });
    expect(doc.source).toBe('pdf');
    expect(doc.pageStarts).toHaveLength(2);
    expect(doc.text.slice(doc.pageStarts[1])).toMatch(/^Blue carbon burial/);

    const hits = await s.client(ada).documents.search.query({ query: 'carbon burial in meadow sediment' });
    expect(hits[0]).toMatchObject({ id: r.data.id, access: 'owner', page: 2 });
    expect(hits[0]!.passage).toContain('83 grams per square metre');
    expect(hits[0]!.score).toBeGreaterThan(0);
  });

  it('documents.upload takes a title field and plain text files', async () => {
    const r = await s.call(
      'mutation',
      'documents.upload',
      form(new Blob(['\uFEFFField notes\r\nfrom the reef flat.'], { type: 'text/plain' }), 'notes.txt', {
        title: 'Reef flat notes',
      }),
      ada,
    );
    expect(r.data).toMatchObject({ title: 'Reef flat notes', pages: 1 });
    const doc = await s.client(ada).documents.get.query({ documentId: r.data.id });
    expect(doc.text).toBe('Field notes\nfrom the reef flat.');
  });

  it('refuses encrypted, non-document and malformed uploads in plain words, leaving nothing behind', async () => {
    const before = await counts();
    const cases: Array<[string, FormData, number, string, RegExp]> = [
      ['encrypted', form(new Blob([makeEncryptedPdf()]), 'locked.pdf'), 400, 'invalid_document', /password/i],
      [
        'binary',
        form(new Blob([new Uint8Array([0, 159, 146, 150, 0, 1, 2, 3])]), 'notes.txt'),
        400,
        'invalid_document',
        /not a PDF/i,
      ],
      [
        'truncated',
        form(new Blob([(await makePdf(['cut short'])).slice(0, 300)]), 'cut.pdf'),
        400,
        'invalid_document',
        /damaged|incomplete/i,
      ],
      ['empty', form(new Blob([]), 'empty.txt'), 400, 'invalid_document', /empty/i],
      [
        'no file',
        (() => {
          const f = new FormData();
          f.append('title', 'x');
          return f;
        })(),
        400,
        'invalid_input',
        /file/,
      ],
      [
        'two files',
        (() => {
          const f = form(new Blob(['a']), 'a.txt');
          f.append('file', new Blob(['b']), 'b.txt');
          return f;
        })(),
        400,
        'invalid_input',
        /exactly one/,
      ],
      [
        'unknown field',
        form(new Blob(['a']), 'a.txt', { ownerId: 'user-grace' }),
        400,
        'invalid_input',
        /ownerId/,
      ],
    ];
    for (const [label, body, status, reason, message] of cases) {
      const r = await s.call('mutation', 'documents.upload', body, ada);
      expect([label, r.status, r.error?.data.reason], r.text).toEqual([label, status, reason]);
      expect(r.error!.message, label).toMatch(message);
    }
    // JSON is not an upload.
    const json = await s.call('mutation', 'documents.upload', { file: 'x' }, ada);
    expect([json.status, json.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(await counts()).toEqual(before);
    expect((await s.call('query', 'health')).data).toEqual({ ok: true });
  });

  it('refuses an upload over 20 MiB while it streams, and before reading when its length says so', async () => {
    const before = await counts();
    const port = new URL(s.url).port;
    // 60 MB sent chunked (no length): cut off at the limit, not buffered whole.
    const streamed = await rawPost(port, ada, 60 * 1024 * 1024, false);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.data.reason).toBe('too_large');
    // A declared 60 MB: refused without parsing a byte of it. The body is read and thrown away
    // (up to a bound) before the answer, so that the client can read the 413 (http/drain.ts).
    const declared = await rawPost(port, ada, 60 * 1024 * 1024, true);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error).toMatchObject({
      message: 'The upload is larger than the 20 MiB limit.',
      data: { reason: 'too_large', code: 'PAYLOAD_TOO_LARGE' },
    });
    // Just over 20 MiB of file inside a body under the body limit: the file limit still holds.
    const over = await s.call(
      'mutation',
      'documents.upload',
      form(new Blob([new Uint8Array(SPONGE_LIMITS.uploadBytes + 1)]), 'big.txt'),
      ada,
    );
    expect([over.status, over.error?.data.reason]).toEqual([413, 'too_large']);
    expect(await counts()).toEqual(before);
    expect((await s.call('query', 'health')).data).toEqual({ ok: true });
  });
});

describe('fuzzing the upload over HTTP', () => {
  it('answers truncated, bit-flipped, encrypted, zero-page and random files with 200 or a plain refusal that writes nothing', async () => {
    const valid = await makePdf([
      'Kelp forests recover when otters return.',
      'Page two of the fuzz fixture.',
    ]);
    const seeds = [valid, makeEncryptedPdf(), makeZeroPagePdf()];
    const file = fc.oneof(
      fc.tuple(fc.constantFrom(...seeds), fc.nat()).map(([b, n]) => b.slice(0, n % b.length)),
      fc
        .tuple(
          fc.constantFrom(...seeds),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 8 }),
        )
        .map(([b, flips]) => {
          const out = b.slice();
          for (const [at, bit] of flips) out[at % out.length]! ^= 1 << bit;
          return out;
        }),
      fc.uint8Array({ minLength: 1, maxLength: 4096 }),
      fc.constantFrom(...seeds),
    );
    const seen: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(file, fc.constantFrom('f.pdf', 'f.txt', 'f.md', 'f.bin'), async (bytes, name) => {
        const before = await counts();
        const r = await s.call('mutation', 'documents.upload', form(new Blob([bytes]), name), ada);
        const outcome = r.ok ? 'added' : String(r.error?.data.reason);
        seen[outcome] = (seen[outcome] ?? 0) + 1;
        if (r.ok) return;
        // A file added before, sent again, is the owner's duplicate (SPEC §6d), naming the first.
        if (r.status === 409)
          expect(r.error?.data).toMatchObject({ reason: 'duplicate', existingId: expect.any(String) });
        else expect([400, 413]).toContain(r.status);
        expect([...DOCUMENT_REASONS, 'invalid_input', 'duplicate']).toContain(r.error?.data.reason);
        expect(r.error!.message).not.toMatch(/internal|stack|Error:/i);
        expect(await counts()).toEqual(before);
      }),
      { numRuns: 60, seed: 17 },
    );
    console.log(`upload fuzz over HTTP: ${JSON.stringify(seen)}`);
    expect((await s.call('query', 'health')).data).toEqual({ ok: true });
  }, 120_000);
});

/** POSTs `size` bytes of a multipart body to documents.upload, with or without a declared length. */
function rawPost(
  port: string,
  token: string,
  size: number,
  declareLength: boolean,
): Promise<{ status: number; body: string; bytesSent: number }> {
  return new Promise((resolve, reject) => {
    const boundary = 'sponge-test-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/trpc/documents.upload',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...(declareLength ? { 'content-length': String(size) } : {}),
      },
    });
    let sent = 0;
    let done = false;
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        done = true;
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(parts).toString('utf8'),
          bytesSent: sent,
        });
      });
    });
    req.on('error', (err) => {
      // The server may close the socket after answering; the answer already came.
      if (!done) reject(err);
    });
    const pump = () => {
      if (sent === 0) {
        req.write(head);
        sent += head.length;
      }
      while (sent < size && !done && !req.destroyed) {
        // Never past the declared length: bytes beyond it would be read as a second request.
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        const ok = req.write(piece);
        sent += piece.length;
        if (!ok) return void req.once('drain', pump);
      }
      if (!done && !req.destroyed) req.end();
    };
    pump();
  });
}

describe('search and the library view', () => {
  it("ranks only the caller's own documents: never shared or public ones of others", async () => {
    // Grace publishes a document about exactly the query and shares another with Ada.
    const g = s.client(grace);
    const pub = await g.documents.add.mutate({
      title: 'Otter predation on urchins',
      text: 'Sea otters keep urchin barrens in check.',
    });
    const shared = await g.documents.add.mutate({
      title: 'Urchin barrens survey',
      text: 'Urchin barrens spread where otters vanished.',
    });
    await g.documents.publish.mutate({ documentId: pub.id });
    await g.documents.share.mutate({ documentId: shared.id, userId: 'user-ada' });
    await indexed();
    const visible = (await s.client(ada).documents.list.query()).map((d) => d.id);
    expect(visible).toEqual(expect.arrayContaining([pub.id, shared.id]));

    const adaHits = await s.client(ada).documents.search.query({ query: 'otters urchin barrens', limit: 50 });
    expect(adaHits.every((h) => h.access === 'owner')).toBe(true);
    expect(adaHits.map((h) => h.id)).not.toContain(pub.id);
    expect(adaHits.map((h) => h.id)).not.toContain(shared.id);
    const own = new Set(
      (await s.client(ada).documents.list.query()).filter((d) => d.access === 'owner').map((d) => d.id),
    );
    expect(adaHits.every((h) => own.has(h.id))).toBe(true);

    const graceHits = await g.documents.search.query({ query: 'otters urchin barrens' });
    expect(
      graceHits
        .slice(0, 2)
        .map((h) => h.id)
        .sort(),
    ).toEqual([pub.id, shared.id].sort());
  });

  it('hybrid over HTTP: an exact term finds its passage with span and terms; documentId narrows to own documents only', async () => {
    const text = 'Kelp forests declined.\n\nThe survey data are archived as GSE70123 for reuse.';
    const mine = await s.client(ada).documents.add.mutate({ title: 'Archived kelp survey', text });
    const theirs = await s.client(grace).documents.add.mutate({ title: 'Grace on GSE70123', text });
    await s.client(grace).documents.share.mutate({ documentId: theirs.id, userId: 'user-ada' });
    await indexed();
    const [hit] = await s.client(ada).documents.search.query({ query: 'GSE70123' });
    expect(hit).toMatchObject({
      id: mine.id,
      documentId: mine.id,
      passage: 'The survey data are archived as GSE70123 for reuse.',
      terms: ['GSE70123'],
    });
    const stored = (await s.client(ada).documents.get.query({ documentId: mine.id })).text;
    expect(stored.slice(hit!.start, hit!.end)).toBe(hit!.passage);
    const narrowed = await s
      .client(ada)
      .documents.search.query({ query: 'kelp survey', documentId: mine.id });
    expect(narrowed.length).toBeGreaterThan(0);
    expect(narrowed.every((h) => h.documentId === mine.id)).toBe(true);
    // Shared with Ada, but not hers: narrowing to it finds nothing, as an unknown id does.
    expect(await s.client(ada).documents.search.query({ query: 'GSE70123', documentId: theirs.id })).toEqual(
      [],
    );
    expect(await s.client(ada).documents.search.query({ query: 'GSE70123', documentId: 'doc_nope' })).toEqual(
      [],
    );
  });

  it('lists the most recently active first, with the newest session’s memory state for the owner only', async () => {
    const oldest = (await s.client(ada).documents.list.query()).at(-1)!;
    await s.client(ada).chat.ask.mutate({ documentId: oldest.id, text: 'what is this about?' });
    const list = await s.client(ada).documents.list.query();
    expect(list[0]!.id).toBe(oldest.id);
    expect(list[0]!.memory).toMatchObject({ state: 'open' });
    expect(Date.parse(list[0]!.memory!.forgetsAt)).toBeGreaterThan(Date.now());
    const times = list.map((d) => d.lastActivityAt);
    expect([...times].sort().reverse()).toEqual(times);
    // The reef document's demo run: its session is the newest one there.
    expect(list.find((d) => d.id === REEF_DOCUMENT_ID)!.memory?.sessionId).toMatch(/./);

    // Rosalind reads the shared reef document: no memory, no indexing state.
    const ros = await s.client(await s.login('user-rosalind')).documents.list.query();
    const reef = ros.find((d) => d.id === REEF_DOCUMENT_ID)!;
    expect(reef).toMatchObject({ access: 'shared', memory: null, index: null });
  });
});

describe('indexing failures and removal', () => {
  it('documents.reindex takes only a failed document back to indexing', async () => {
    const d = await s
      .client(ada)
      .documents.add.mutate({ title: 'Retry me', text: 'Indexing will be retried.' });
    await indexed();
    const notFailed = await s.call('mutation', 'documents.reindex', { documentId: d.id }, ada);
    expect([notFailed.status, notFailed.error?.data.reason]).toEqual([400, 'invalid_input']);
    await s.app.app.execute({
      sql: `UPDATE documents SET index_state = 'failed', index_error = 'x' WHERE id = ?`,
      args: [d.id],
    });
    const again = await s.client(ada).documents.reindex.mutate({ documentId: d.id });
    expect(again.index?.state).toMatch(/indexing|ready/);
    await indexed();
    expect((await s.client(ada).documents.get.query({ documentId: d.id })).index).toMatchObject({
      state: 'ready',
    });
  });

  it('documents.remove deletes the text, chunks and vectors from the database files; search forgets it at once', async () => {
    const marker = 'ZEBRAFISH-MARKER-7731';
    const d = await s.client(ada).documents.add.mutate({
      title: 'To be removed',
      text: `A passage with ${marker} about zebrafish fins.`,
    });
    await indexed();
    expect((await s.client(ada).documents.search.query({ query: 'zebrafish fins' }))[0]?.id).toBe(d.id);
    const files = [join(s.dir, 'sponge.db'), join(s.dir, 'sponge.db-wal')];
    const holding = () => files.filter((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(marker)));
    if (!s.appUrl.startsWith('file:')) return; // a libSQL server's files are its own
    expect(holding().length).toBeGreaterThan(0);

    await s.client(ada).documents.remove.mutate({ documentId: d.id });
    expect(holding()).toEqual([]);
    const chunks = await s.app.app.execute({
      sql: 'SELECT COUNT(*) AS n FROM document_chunks WHERE document_id = ?',
      args: [d.id],
    });
    expect(Number(chunks.rows[0]!.n)).toBe(0);
    expect(
      (await s.client(ada).documents.search.query({ query: 'zebrafish fins' })).map((h) => h.id),
    ).not.toContain(d.id);
    expect((await s.call('query', 'documents.get', { documentId: d.id }, ada)).status).toBe(404);
  });
});
