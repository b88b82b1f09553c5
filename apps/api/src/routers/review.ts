/**
 * The review workbench (SPEC §7): a proposal decided on record, the history of decisions and an
 * export of what is in view (@sponge/reviewed, which checks and keeps them), for the document's
 * owner only. New runs pin the newest revision (runs.accept); a session already running keeps the
 * revision it pinned, so an accept here never changes what a running agent sees.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { decideReview, reviewExport, reviewHistory } from '@sponge/reviewed';
import { ownerProcedure } from '../trpc/procedures.ts';

export const reviewRouter = {
  /** Propose and decide in one step (the workbench's "Record decision"). Owner only. */
  decide: ownerProcedure
    .input(ownerInputs['review.decide'])
    .mutation(({ ctx: { deps, user }, input }) =>
      decideReview({ db: deps.app, reviewed: deps.reviewed, notebook: deps.store }, user.id, input),
    ),

  /**
   * Every decision on the document, newest first: the record as decided (text, profile fields,
   * links), the profile release, the reviewer, the comment and the cited passage. Owner only.
   */
  history: ownerProcedure
    .input(ownerInputs['review.history'])
    .query(({ ctx: { deps, user }, input }) =>
      reviewHistory({ db: deps.app, reviewed: deps.reviewed }, user.id, input.documentId),
    ),

  /** The records in view at a revision (the newest by default) with their provenance, as canonical JSON. Owner only. */
  export: ownerProcedure
    .input(ownerInputs['review.export'])
    .query(({ ctx: { deps, user }, input }) =>
      reviewExport({ db: deps.app, reviewed: deps.reviewed }, user.id, input, deps.now()),
    ),
} satisfies TRPCRouterRecord;
