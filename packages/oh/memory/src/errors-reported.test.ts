/**
 * Issue 24, point 14: errors are caught only where carrying on is right (a lock), and anything
 * else is reported or thrown, not swallowed.
 */
import { describe, expect, it } from 'vitest';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { withHarness } from './testing/harness.ts';

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
