import type { TRPCRouterRecord } from '@trpc/server';
import { checkpointWal } from '@oh/memory';
import { ownerInputs } from '@sponge/contract';
import { z } from 'zod';
import {
  acceptInvite,
  confirmShare,
  inviteToShare,
  listShareViews,
  listShares,
  publishDocument,
  removeDocument,
  shareByEmail,
  shareDocument,
} from '@sponge/library';
import type { DocumentSummary } from '@sponge/library';
import { getReadableDocument, listReadableDocuments } from '../runs/document-activity.ts';
import { clearQuotesStatement } from '../runs/research.ts';
import { getAccount, getUser } from '../accounts/users.ts';
import { listRuns } from '../runs/runs.ts';
import { requireOwnedDocument } from '../runs/access.ts';
import { invalidInput, notFound } from '../errors.ts';
import { readUploadForm } from '../http/upload-form.ts';
import { ownerOrApiKeyProcedure, ownerProcedure } from '../trpc/procedures.ts';

/**
 * `documents.upload`'s input: the multipart form as tRPC parsed it. Typed as the global FormData
 * (not undici's class, which the declaration files could not name).
 */
const uploadForm: z.ZodType<FormData, FormData> = z.instanceof(FormData, {
  message: 'send the file as multipart/form-data with a "file" part',
});

export const documentsRouter = {
  /**
   * Every document the caller may read (their own, shared with them, or published), most
   * recently active first. Owner-only facts (the newest session's memory, the indexing state)
   * are null for everyone else.
   */
  list: ownerOrApiKeyProcedure.query(async ({ ctx }) => {
    const docs = await listReadableDocuments(ctx.deps.app, ctx.user.id);
    const sessionIds = docs.flatMap((d) =>
      d.access === 'owner' && d.newestSessionId ? [d.newestSessionId] : [],
    );
    const sessions = await ctx.deps.store.getSessions(sessionIds);
    return docs.map((d) => {
      const s = d.access === 'owner' && d.newestSessionId ? sessions.get(d.newestSessionId) : undefined;
      return {
        ...summaryView(d),
        memory: s ? { sessionId: s.id, state: s.state, forgetsAt: s.expiresAt } : null,
      };
    });
  }),

  /** Adds a pasted text or Markdown document (SPEC §6b), indexed for search in the background. */
  add: ownerOrApiKeyProcedure.input(ownerInputs['documents.add']).mutation(async ({ ctx, input }) => {
    const text = input.text
      .replace(/\r\n?/g, '\n')
      .replace(/^\uFEFF/, '')
      .trim();
    return ctx.deps.library.add(
      ctx.user.id,
      { title: input.title, authors: input.authors ?? [], source: input.format ?? 'text', pages: [text] },
      ctx.deps.now(),
    );
  }),

  /**
   * Adds an uploaded PDF, text or Markdown file (multipart/form-data: `file`, optional `title`).
   * The body was size-checked while it streamed in (server.ts); a full library is refused before
   * the file is read. Then the document is in the library at once, `extracting`, while a PDF's
   * text is extracted in a worker with a time limit, when the upload queue gives the owner a turn
   * (429 `busy` when it cannot wait). A refused file, or a request closed meanwhile, leaves
   * nothing behind.
   */
  upload: ownerOrApiKeyProcedure.input(uploadForm).mutation(async ({ ctx, input, signal }) => {
    const { library } = ctx.deps;
    await library.checkRoom(ctx.user.id);
    const file = await readUploadForm(input);
    return library.upload(ctx.user.id, file, signal ? { signal } : {});
  }),

  /** Indexes a document again after its indexing failed. */
  reindex: ownerProcedure.input(ownerInputs['documents.reindex']).mutation(async ({ ctx, input }) => ({
    documentId: input.documentId,
    index: await ctx.deps.library.reindex(ctx.user.id, input.documentId),
  })),

  /**
   * The full text for anyone who may read the document. Owner-only facts (who it is shared
   * with, the staged-run memory setting, since when new runs are closed) are null for everyone
   * else.
   */
  get: ownerOrApiKeyProcedure.input(ownerInputs['documents.get']).query(async ({ ctx, input }) => {
    const d = await getReadableDocument(ctx.deps.app, ctx.user.id, input.documentId);
    if (!d) throw notFound('The document');
    const isOwner = d.access === 'owner';
    return {
      ...summaryView(d),
      text: d.text,
      pageStarts: d.pageStarts,
      // Pages whose text OCR recognised: everyone who reads the text sees which ones to check.
      ocrPages: d.ocrPages,
      publishedAt: d.publishedAt,
      createdAt: d.createdAt,
      sharedWith: isOwner ? await listShares(ctx.deps.app, d.id) : null,
      memoryInStagedRuns: isOwner ? d.memoryInStagedRuns : null,
      // So the web app can say "closed since …" instead of offering a question chat.ask would refuse.
      runsClosedSince: isOwner ? runsClosedSince(ctx.deps.config.acceptRunsUntil, ctx.deps.now()) : null,
    };
  }),

  /**
   * The caller's own documents ranked by keywords and meaning together (SPEC §6b, hybrid):
   * `[{ id, documentId, title, score, access, passage, page, chunk, start, end, terms }]`, best
   * first. Shared and published documents of others never rank; `documentId` narrows to one of the
   * caller's own documents (hits are then its passages), and another's finds nothing.
   */
  search: ownerOrApiKeyProcedure.input(ownerInputs['documents.search']).query(({ ctx, input }) =>
    ctx.deps.library.search.search(ctx.user.id, input.query, input.limit ?? 10, {
      ...(input.documentId === undefined ? {} : { documentId: input.documentId }),
    }),
  ),

  /**
   * Lets another person read the document: by account id at once, or by email once the owner
   * confirms the account or someone opens the owner's invitation link (SPEC §6c). Never exposes
   * working memory or runs.
   */
  share: ownerProcedure.input(ownerInputs['documents.share']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    if (input.email !== undefined) {
      if ((await getAccount(ctx.deps.app, ctx.user.id))?.email === input.email)
        throw invalidInput('email: that is your own address; you already own this document.');
      // It waits, also when an account has the address now: whoever signed up first with an
      // address holds it, so the owner confirms the account by its name, or sends a link.
      await shareByEmail(ctx.deps.app, input.documentId, input.email, ctx.deps.now());
      return { documentId: input.documentId, sharedWith: await listShares(ctx.deps.app, input.documentId) };
    }
    const userId = input.userId!;
    if (userId === ctx.user.id) throw invalidInput('userId: you already own this document.');
    // By id: ids are random (the demo's are listed by auth.demoUsers anyway), so this answer
    // tells nothing an id's holder does not know.
    const user = await getUser(ctx.deps.app, userId);
    if (!user) throw notFound('The user');
    await shareDocument(ctx.deps.app, input.documentId, userId, ctx.deps.now());
    return { documentId: input.documentId, sharedWith: await listShares(ctx.deps.app, input.documentId) };
  }),

  /**
   * The owner's shares of the document (SPEC §6c): `[{ email, state: 'waiting' | 'granted',
   * account, invite }]`. A waiting share names the account that holds its address now (what the
   * owner confirms) and the link that works now; a granted one, the account that reads it.
   */
  shares: ownerProcedure.input(ownerInputs['documents.shares']).query(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    return listShareViews(ctx.deps.app, input.documentId, ctx.deps.now());
  }),

  /**
   * Grants a waiting share by email to the account that now holds the address: the owner saw its
   * name in `documents.shares`. Refused while no account holds it; confirming again changes nothing.
   */
  confirmShare: ownerProcedure
    .input(ownerInputs['documents.confirmShare'])
    .mutation(async ({ ctx, input }) => {
      await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
      await confirmShare(ctx.deps.app, input.documentId, input.email, ctx.deps.now());
      return { documentId: input.documentId, email: input.email, state: 'granted' as const };
    }),

  /**
   * A one-use invitation link for a waiting share by email, for the owner to send as they trust:
   * `{ path: '/invite/<token>', expiresAt }` (7 days). The web app puts its own origin in front:
   * the API would have to trust the request's Host header to name it. A new link replaces the
   * share's unused one.
   */
  inviteLink: ownerProcedure.input(ownerInputs['documents.inviteLink']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const invite = await inviteToShare(ctx.deps.app, input.documentId, input.email, ctx.deps.now());
    return { path: `/invite/${invite.token}`, expiresAt: invite.expiresAt };
  }),

  /**
   * Accepts an invitation link as the signed-in person (a session, not an API key): the share is
   * theirs, and the link is used up. `{ documentId }` to open. A used, expired or unknown link is
   * NOT_FOUND, with words that say which.
   */
  acceptInvite: ownerProcedure
    .input(ownerInputs['documents.acceptInvite'])
    .mutation(({ ctx, input }) => acceptInvite(ctx.deps.app, input.token, ctx.user.id, ctx.deps.now())),

  /** Makes the document readable by every signed-in user. Working memory stays private. */
  publish: ownerProcedure.input(ownerInputs['documents.publish']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const publishedAt = await publishDocument(ctx.deps.app, input.documentId, ctx.deps.now());
    return { documentId: input.documentId, publishedAt };
  }),

  /**
   * Removes the document: its text, chunks and vectors are deleted (and checkpointed out of the
   * WAL, as forgotten notes are). Its runs lose their tools at once (the agent router checks the
   * document on every call), and its open sessions are forgotten: nobody can open the panel of a
   * removed document any more, so notes left behind could not be forgotten by hand.
   */
  remove: ownerProcedure.input(ownerInputs['documents.remove']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    // Quotes of its text in the citations of agent replies go with it (migration 015).
    const removedAt = await removeDocument(ctx.deps.app, input.documentId, ctx.deps.now(), [
      clearQuotesStatement(input.documentId),
    ]);
    ctx.deps.library.search.forget(ctx.user.id);
    await checkpointWal(ctx.deps.app, ctx.deps.config.appDb.url);
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

/** The fields of a document everyone who may read it sees, and the owner's indexing state. */
function summaryView(d: DocumentSummary) {
  return {
    id: d.id,
    title: d.title,
    ownerId: d.ownerId,
    ownerName: d.ownerName,
    authors: d.authors,
    abstract: d.abstract,
    access: d.access,
    published: d.publishedAt !== null,
    source: d.source,
    pages: d.pages,
    characters: d.characters,
    addedAt: d.createdAt,
    lastActivityAt: d.lastActivityAt,
    index: d.access === 'owner' ? d.index : null,
  };
}

/** ACCEPT_RUNS_UNTIL as an ISO time once it has passed (new runs are refused from then on), else null. */
function runsClosedSince(until: Date | null, now: Date): string | null {
  return until !== null && now.getTime() >= until.getTime() ? until.toISOString() : null;
}
