/**
 * An upload over the limit is answered with a 413 `too_large` that Node's own fetch reads
 * (SPEC §6b): the server drains the body up to a bound before it answers, instead of closing
 * the connection under a client that is still sending (which ended in EPIPE). Against the API
 * as its own process, as users run it: in one process the client happened to read the answer
 * before the reset reached it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginOwner, query, startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess, Owner } from '@sponge/testing/api';
import type { Json } from '../testing/harness.ts';

const data = tempDataDir('upload-limit');
let api: ApiProcess;
let ada: Owner;
beforeAll(async () => {
  api = await startApi({ from: 'source', dataDir: data.dir });
  ada = await loginOwner(api.port, 0);
}, 120_000);
afterAll(async () => {
  await api?.stop();
  data.remove();
});

const MiB = 1024 * 1024;
const SIZE = 60 * MiB;
const BOUNDARY = 'sponge-upload-limit';
const head = new TextEncoder().encode(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
);

/** 60 MiB: a FormData (fetch declares its length) or a stream sent chunked, without one. */
function upload(declared: boolean): {
  body: FormData | ReadableStream<Uint8Array>;
  headers: Record<string, string>;
  duplex?: 'half';
} {
  if (declared) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(SIZE).fill(0x61)]), 'big.txt');
    return { body: form, headers: {} };
  }
  let sent = 0;
  return {
    body: new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(head);
        if (sent >= SIZE / MiB) return c.close();
        sent += 1;
        c.enqueue(new Uint8Array(MiB).fill(0x61));
      },
    }),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    duplex: 'half',
  };
}

async function documentIds(): Promise<string[]> {
  const r = await query(api.port, 'documents.list', undefined, ada.token);
  return (r.data as Json[]).map((d) => d.id as string);
}

describe('an upload over the limit, from Node fetch to the API process', () => {
  it.each([
    ['with its length declared', true],
    ['chunked, without a length', false],
  ])(
    '60 MiB %s: fetch reads a 413 too_large (3 times), nothing is stored, the server stays up',
    async (_label, declared) => {
      const before = await documentIds();
      for (let round = 0; round < 3; round++) {
        const { body, headers, duplex } = upload(declared);
        const res = await fetch(`http://127.0.0.1:${api.port}/trpc/documents.upload`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ada.token}`, ...headers },
          body,
          ...(duplex ? { duplex } : {}),
        });
        expect(res.status).toBe(413);
        expect(((await res.json()) as Json).error).toMatchObject({
          message: 'The upload is larger than the 20 MiB limit.',
          data: { code: 'PAYLOAD_TOO_LARGE', reason: 'too_large', httpStatus: 413 },
        });
      }
      expect(await documentIds()).toEqual(before);
      expect((await query(api.port, 'health')).data).toEqual({ ok: true });
    },
  );
});
