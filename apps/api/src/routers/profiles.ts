/**
 * Vocabulary profiles (SPEC §7): the shipped packs (Research, Language, Finance), a preview of
 * one (kinds, fields with their value codecs, an example record), and installing a pack on a
 * document, after which reviewed records of that document may use its kinds and are validated
 * by it. Reading the catalogue needs a signed-in person; what is installed on a document, and
 * installing, are its owner's alone (anyone else: NOT_FOUND).
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { getPack, listPacks, previewPack } from '@oh/profiles';
import type { PackPreview } from '@oh/profiles';
import { requireOwnedDocument } from '../access.ts';
import { installProfile, installedPack, listInstalledProfiles } from '../data/profiles.ts';
import type { InstalledProfile } from '../data/profiles.ts';
import { notFound } from '../errors.ts';
import { ownerProcedure } from '../trpc.ts';

/** How a pack stands on a document: null when it is not installed. */
export interface InstalledState {
  version: string;
  digest: string;
  installedAt: string;
  /** Whether the installed digest is the shipped pack's (false after a pack release). */
  current: boolean;
}

export interface ProfileSummary {
  name: string;
  version: string;
  digest: string;
  title: string;
  description: string;
  kinds: string[];
  installed: InstalledState | null;
}

/** A shipped pack by name, or NOT_FOUND naming the packs there are. */
export function shippedPack(name: string) {
  if (!listPacks().some((p) => p.name === name)) {
    throw notFound(
      `The profile "${name.slice(0, 64)}" (profiles: ${listPacks()
        .map((p) => p.name)
        .join(', ')})`,
    );
  }
  return getPack(name);
}

function installedState(row: InstalledProfile | undefined, shippedDigest: string): InstalledState | null {
  if (!row) return null;
  return {
    version: row.version,
    digest: row.digest,
    installedAt: row.installedAt,
    current: row.digest === shippedDigest,
  };
}

export const profilesRouter = {
  /**
   * The shipped packs, each with its kinds; with `documentId` (the caller's own document), whether
   * and which version of each is installed there.
   */
  list: ownerProcedure
    .input(ownerInputs['profiles.list'])
    .query(async ({ ctx, input }): Promise<ProfileSummary[]> => {
      let installed = new Map<string, InstalledProfile>();
      if (input?.documentId !== undefined) {
        await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
        installed = new Map(
          (await listInstalledProfiles(ctx.deps.app, input.documentId)).map((p) => [p.profile, p]),
        );
      }
      return listPacks().map((p) => ({
        name: p.name,
        version: p.version,
        digest: p.digest,
        title: p.title,
        description: p.description,
        kinds: Object.keys(getPack(p.name).kinds).sort(),
        installed: installedState(installed.get(p.name), p.digest),
      }));
    }),

  /** One pack in full: kinds, fields with codec summaries and specs, relations, a valid example record. */
  preview: ownerProcedure
    .input(ownerInputs['profiles.preview'])
    .query(({ input }): PackPreview => previewPack(shippedPack(input.name))),

  /** Installs a pack on the caller's document (idempotent; a newer release replaces the version on record). */
  install: ownerProcedure.input(ownerInputs['profiles.install']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const pack = shippedPack(input.name);
    const row = await installProfile(
      ctx.deps.app,
      {
        documentId: input.documentId,
        profile: pack.name,
        version: pack.version,
        digest: pack.digest,
        installedBy: ctx.user.id,
      },
      ctx.deps.now(),
    );
    return {
      documentId: row.documentId,
      name: row.profile,
      version: row.version,
      digest: row.digest,
      installedAt: row.installedAt,
    };
  }),

  /**
   * The packs installed on the caller's document, with the kinds of the installed release (the
   * review workbench's choices, which review validates with).
   */
  installed: ownerProcedure.input(ownerInputs['profiles.installed']).query(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const rows = await listInstalledProfiles(ctx.deps.app, input.documentId);
    const offered = await Promise.all(
      rows.map(async (row) => {
        // A pack no longer shipped has no preview to fill in, and an installed release that is no
        // longer available cannot validate anything: either is left out rather than offered.
        if (!listPacks().some((p) => p.name === row.profile)) return [];
        const pack = await installedPack(ctx.deps.app, row);
        if (!pack) return [];
        return [
          {
            name: row.profile,
            title: pack.title,
            version: row.version,
            digest: row.digest,
            installedAt: row.installedAt,
            current: row.digest === getPack(row.profile).digest,
            kinds: Object.keys(pack.kinds).sort(),
          },
        ];
      }),
    );
    return offered.flat();
  }),
} satisfies TRPCRouterRecord;
