/**
 * Vocabulary profiles (SPEC §7): the shipped packs (Research, Language, Finance), a preview of
 * one (kinds, fields with their value codecs, an example record), and installing a pack on a
 * document, after which reviewed records of that document may use its kinds and are validated
 * by it (@sponge/reviewed). Reading the catalogue needs a signed-in person; what is installed on a
 * document, and installing, are its owner's alone (anyone else: NOT_FOUND).
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { installShippedProfile, offeredProfiles, previewProfile, profileCatalogue } from '@sponge/reviewed';
import { ownerProcedure } from '../trpc/procedures.ts';

export const profilesRouter = {
  /**
   * The shipped packs, each with its kinds; with `documentId` (the caller's own document), whether
   * and which version of each is installed there.
   */
  list: ownerProcedure
    .input(ownerInputs['profiles.list'])
    .query(({ ctx, input }) => profileCatalogue(ctx.deps.app, ctx.user.id, input?.documentId)),

  /** One pack in full: kinds, fields with codec summaries and specs, relations, a valid example record. */
  preview: ownerProcedure
    .input(ownerInputs['profiles.preview'])
    .query(({ input }) => previewProfile(input.name)),

  /** Installs a pack on the caller's document (idempotent; a newer release replaces the version on record). */
  install: ownerProcedure
    .input(ownerInputs['profiles.install'])
    .mutation(({ ctx, input }) => installShippedProfile(ctx.deps.app, ctx.user.id, input, ctx.deps.now())),

  /**
   * The packs installed on the caller's document, with the kinds of the installed release (the
   * review workbench's choices, which review validates with).
   */
  installed: ownerProcedure
    .input(ownerInputs['profiles.installed'])
    .query(({ ctx, input }) => offeredProfiles(ctx.deps.app, ctx.user.id, input.documentId)),
} satisfies TRPCRouterRecord;
