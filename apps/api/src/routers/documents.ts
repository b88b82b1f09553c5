import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { z } from 'zod';
import {
  acceptInvite,
  citeDocuments,
  confirmShare,
  importFromForm,
  inviteToShare,
  listShareViews,
  pastedDocument,
  publishDocument,
  readVisiblePage,
} from '@sponge/library';
import { requireOwnedDocument } from '../runs/access.ts';
import { documentView, libraryView, removeOwnDocument, shareWith, summaryView } from '../runs/documents.ts';
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
  list: ownerOrApiKeyProcedure.query(({ ctx }) => libraryView(ctx.deps, ctx.user.id)),

  /** Adds a pasted text or Markdown document (SPEC §6b), indexed for search in the background. */
  add: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.add'])
    .mutation(({ ctx, input }) => ctx.deps.library.add(ctx.user.id, pastedDocument(input), ctx.deps.now())),

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

  /** The owner's edit of what a document is (SPEC §6d): its view (as in the list) as it now stands. */
  update: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.update'])
    .mutation(async ({ ctx, input: { documentId, ...patch } }) =>
      summaryView(await ctx.deps.library.update(ctx.user.id, documentId, patch)),
    ),

  /** A reference manager's export (`file`: a bibliography or the folder's .zip; `files`: PDFs), by entry. */
  import: ownerOrApiKeyProcedure
    .input(uploadForm)
    .mutation(({ ctx, input, signal }) =>
      importFromForm(ctx.deps.library, ctx.user.id, input, { now: ctx.deps.now, signal }),
    ),

  /** References of documents the caller may read, `{ text }` (SPEC §6d); any other is NOT_FOUND. */
  cite: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.cite'])
    .query(({ ctx, input }) => citeDocuments(ctx.deps.app, ctx.user.id, input)),

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
  get: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.get'])
    .query(({ ctx, input }) => documentView(ctx.deps, ctx.user.id, input.documentId)),

  /**
   * One page of a document the caller may read (`{ documentId, title, page, pages, text, ocr }`):
   * the review dialog's cited page, cut out by the database, so page 1,900 of 2,000 costs what
   * page 1 does. A page past the end is `invalid_input`, in words.
   */
  page: ownerOrApiKeyProcedure
    .input(ownerInputs['documents.page'])
    .query(({ ctx, input }) => readVisiblePage(ctx.deps.app, ctx.user.id, input)),

  /**
   * The caller's own documents ranked by keywords and meaning together (SPEC §6b, hybrid):
   * `[{ id, documentId, title, score, access, passage, page, chunk, start, end, terms }]`, best
   * first. Shared and published documents of others never rank; `documentId` narrows to one of the
   * caller's own documents (hits are then its passages), and another's finds nothing.
   */
  search: ownerOrApiKeyProcedure.input(ownerInputs['documents.search']).query(({ ctx, input }) =>
    ctx.deps.library.search.search(ctx.user.id, input.query, input.limit ?? 10, {
      ...(input.documentId === undefined ? {} : { documentId: input.documentId }),
      ...(input.tag === undefined ? {} : { tag: input.tag }),
    }),
  ),

  /**
   * Lets another person read the document: by account id at once, or by email once the owner
   * confirms the account or someone opens the owner's invitation link (SPEC §6c). Never exposes
   * working memory or runs.
   */
  share: ownerProcedure
    .input(ownerInputs['documents.share'])
    .mutation(({ ctx, input }) => shareWith(ctx.deps, ctx.user.id, input)),

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
  remove: ownerProcedure
    .input(ownerInputs['documents.remove'])
    .mutation(({ ctx, input }) => removeOwnDocument(ctx.deps, ctx.user.id, input.documentId)),
} satisfies TRPCRouterRecord;
