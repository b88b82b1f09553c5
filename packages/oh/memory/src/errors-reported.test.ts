/**
 * Issue 24, point 14: errors are caught only where carrying on is right (a lock; a vector index
 * that cannot answer), and anything else is reported or thrown, not swallowed.
 */
import { createHash } from 'node:crypto';
import { LibsqlError } from '@libsql/client';
import type { Client } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './db/open.ts';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall/recall-index.ts';
import type { RecallNote } from './recall/render.ts';
import { nearestNotes } from './recall/search.ts';
import { withHarness } from './test-support.ts';

const adapter = createLocalEmbeddingAdapter({ dimensions: 64 });

describe('after a remember', () => {
  it('a failure of the recall work it starts is reported, and the remember still stands', () => {
    const reported: Array<{ sessionId: string; message: string }> = [];
    return withHarness(
      async (h) => {
        const { ctx } = await h.session();
        // The note comes from a store without recall, so no background indexing runs meanwhile.
        const plain = await h.openStore({ recall: undefined });
        await plain.remember(ctx, {
          basedOn: 0,
          requestId: 'r1',
          changes: [{ op: 'add', name: 'lead:a', text: 'a note' }],
        });
        // Behind the store's back, the vectors table goes: deleting a removed note's vector fails.
        await h.raw().execute('DROP TABLE note_vectors');
        const removed = await h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'r2',
          changes: [{ op: 'remove', name: 'lead:a' }],
        });
        expect(removed.version).toBe(2);
        await expect.poll(() => reported.length).toBe(1);
        expect(reported[0]!.sessionId).toBe(ctx.sessionId);
        expect(reported[0]!.message).toMatch(/no such table: note_vectors/);
      },
      {
        recall: {
          adapter,
          onBackgroundError: (error, info) =>
            reported.push({ sessionId: info.sessionId, message: (error as Error).message }),
        },
      },
    );
  });
});

describe('recall search with the DiskANN index', () => {
  const note = (name: string, text: string): RecallNote => ({
    kind: 'lead',
    name,
    text,
    data: null,
    links: [],
    digest: createHash('sha256').update(text).digest('hex'),
  });

  async function indexed(client: Client) {
    const ix = createRecallIndex({ client, adapter });
    const notes = [note('lead:a', 'coral reefs bleach'), note('lead:b', 'seagrass stores carbon')];
    await ix.index('s1', notes);
    ix.close();
    return {
      query: (await adapter.embed(['coral']))[0]!,
      current: new Map(notes.map((n) => [n.name, n.digest])),
    };
  }

  it('falls back to the exact scan when the index is missing', async () =>
    withHarness(async (h) => {
      const client = await openDatabase({ url: `file:${h.dir}/ann.db` });
      try {
        const { query, current } = await indexed(client);
        const hits = await nearestNotes(client, {
          sessionId: 's1',
          model: adapter.id,
          query,
          limit: 2,
          current,
          useAnn: true,
        });
        expect(hits.map((x) => x.name)).toEqual(['lead:a', 'lead:b']);
      } finally {
        client.close();
      }
    }));

  it('does not fall back on an error that is not about the index: the caller sees it', async () =>
    withHarness(async (h) => {
      const client = await openDatabase({ url: `file:${h.dir}/ann.db` });
      try {
        const { query, current } = await indexed(client);
        // The disk fails under the index query (the first call); the scan would have answered.
        let calls = 0;
        const failing = new Proxy(client, {
          get(target, prop, receiver) {
            if (prop === 'execute')
              return (...args: Parameters<Client['execute']>) =>
                calls++ === 0
                  ? Promise.reject(new LibsqlError('disk I/O error', 'SQLITE_IOERR'))
                  : target.execute(...args);
            return Reflect.get(target, prop, receiver) as unknown;
          },
        });
        await expect(
          nearestNotes(failing, {
            sessionId: 's1',
            model: adapter.id,
            query,
            limit: 2,
            current,
            useAnn: true,
          }),
        ).rejects.toMatchObject({ code: 'SQLITE_IOERR' });
      } finally {
        client.close();
      }
    }));
});
