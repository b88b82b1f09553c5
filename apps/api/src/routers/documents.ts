import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import {
  getVisibleDocument,
  listShares,
  listVisibleDocuments,
  publishDocument,
  removeDocument,
  shareDocument,
} from '../data/documents.ts';
import { searchReadableDocuments } from '../data/document-search.ts';
import { getUser } from '../data/users.ts';
import { listRuns } from '../data/runs.ts';
import { requireOwnedDocument } from '../access.ts';
import { invalidInput, notFound } from '../errors.ts';
import { ownerOrApiKeyProcedure, ownerProcedure } from '../trpc.ts';

export const documentsRouter = {
  /** Every document the caller may read: their own, shared with them, or published. */
  list: ownerOrApiKeyProcedure.query(async ({ ctx }) => {
    const docs = await listVisibleDocuments(ctx.deps.app, ctx.user.id);
    return docs.map((d) => ({
      id: d.id,
      title: d.title,
      ownerId: d.ownerId,
      ownerName: d.ownerName,
      authors: d.authors,
      abstract: d.abstract,
      access: d.access,
      published: d.publishedAt !== null,
    }));
  }),

  /**
   * The full text for anyone who may read the document. Owner-only facts (who it is shared
   * with, the staged-run memory setting, since when new runs are closed) are null for everyone
   * else.
   */
  get: ownerOrApiKeyProcedure.input(ownerInputs['documents.get']).query(async ({ ctx, input }) => {
    const d = await getVisibleDocument(ctx.deps.app, ctx.user.id, input.documentId);
    if (!d) throw notFound('The document');
    const isOwner = d.access === 'owner';
    return {
      id: d.id,
      title: d.title,
      ownerId: d.ownerId,
      ownerName: d.ownerName,
      authors: d.authors,
      abstract: d.abstract,
      text: d.text,
      access: d.access,
      published: d.publishedAt !== null,
      publishedAt: d.publishedAt,
      createdAt: d.createdAt,
      sharedWith: isOwner ? await listShares(ctx.deps.app, d.id) : null,
      memoryInStagedRuns: isOwner ? d.memoryInStagedRuns : null,
      // So the web app can say "closed since …" instead of offering a question chat.ask would refuse.
      runsClosedSince: isOwner ? runsClosedSince(ctx.deps.config.acceptRunsUntil, ctx.deps.now()) : null,
    };
  }),

  /**
   * The caller's readable documents (owned, shared, public) ranked by meaning against a query:
   * `[{ id, title, score, access, snippet? }]`, best first. Vectors of title + text chunks live in
   * the application database and are rebuilt when a document's content changes.
   */
  search: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.search'])
    .query(({ ctx, input }) =>
      searchReadableDocuments(ctx.deps.app, ctx.deps.embeddings, ctx.user.id, input.query, input.limit ?? 10),
    ),

  /** Lets another user read the document. Never exposes working memory or runs. */
  share: ownerProcedure.input(ownerInputs['documents.share']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    if (input.userId === ctx.user.id) throw invalidInput('userId: you already own this document.');
    const user = await getUser(ctx.deps.app, input.userId);
    if (!user) throw notFound('The user');
    await shareDocument(ctx.deps.app, input.documentId, input.userId, ctx.deps.now());
    return { documentId: input.documentId, sharedWith: await listShares(ctx.deps.app, input.documentId) };
  }),

  /** Makes the document readable by every signed-in user. Working memory stays private. */
  publish: ownerProcedure.input(ownerInputs['documents.publish']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const publishedAt = await publishDocument(ctx.deps.app, input.documentId, ctx.deps.now());
    return { documentId: input.documentId, publishedAt };
  }),

  /**
   * Removes the document. Its runs lose their tools at once (the agent router checks the
   * document on every call), and its open sessions are forgotten: nobody can open the panel of a
   * removed document any more, so notes left behind could not be forgotten by hand.
   */
  remove: ownerProcedure.input(ownerInputs['documents.remove']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const removedAt = await removeDocument(ctx.deps.app, input.documentId, ctx.deps.now());
    const runs = await listRuns(ctx.deps.app, input.documentId);
    const sessionIds = runs.flatMap((r) => (r.sessionId ? [r.sessionId] : []));
    const sessions = await ctx.deps.store.getSessions(sessionIds);
    let forgotten = 0;
    for (const s of sessions.values()) {
      if (s.state === 'open' || s.state === 'expired') {
        try {
          await ctx.deps.store.forget(s.id);
          forgotten++;
        } catch (err) {
          // The document is already removed; a session that cannot be forgotten now is purged
          // at expiry anyway. Log it rather than fail the removal.
          ctx.deps.log.warn({ err, sessionId: s.id }, 'forget on document removal failed');
        }
      }
    }
    return { documentId: input.documentId, removedAt, forgottenSessions: forgotten };
  }),
} satisfies TRPCRouterRecord;

/** ACCEPT_RUNS_UNTIL as an ISO time once it has passed (new runs are refused from then on), else null. */
function runsClosedSince(until: Date | null, now: Date): string | null {
  return until !== null && now.getTime() >= until.getTime() ? until.toISOString() : null;
}
