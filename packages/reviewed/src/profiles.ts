/**
 * Vocabulary profiles installed on documents (SPEC §7). One row per (document, pack): the pack's
 * version and digest as installed, so a later release of a pack can be told apart from the one
 * the owner chose. The pack itself is kept too, once per digest, because review validates with
 * the release installed on the document, and a later release ships only the newest one.
 */
import type { Client, Row } from '@libsql/client';
import { getPack, listPacks, loadPack, packJson, previewPack } from '@oh/profiles';
import type { Pack, PackPreview } from '@oh/profiles';
import { ReviewError, notFound } from './errors.ts';
import { requireOwnDocument } from './own-document.ts';

export interface InstalledProfile {
  documentId: string;
  profile: string;
  version: string;
  digest: string;
  installedBy: string;
  installedAt: string;
}

const COLUMNS = 'document_id, profile, version, digest, installed_by, installed_at';

function toInstalled(r: Row): InstalledProfile {
  return {
    documentId: String(r.document_id),
    profile: String(r.profile),
    version: String(r.version),
    digest: String(r.digest),
    installedBy: String(r.installed_by),
    installedAt: String(r.installed_at),
  };
}

/** The profiles installed on a document, by name. */
async function listInstalledProfiles(db: Client, documentId: string): Promise<InstalledProfile[]> {
  const rs = await db.execute({
    sql: `SELECT ${COLUMNS} FROM document_profiles WHERE document_id = ? ORDER BY profile`,
    args: [documentId],
  });
  return rs.rows.map(toInstalled);
}

export async function getInstalledProfile(
  db: Client,
  documentId: string,
  profile: string,
): Promise<InstalledProfile | null> {
  const rs = await db.execute({
    sql: `SELECT ${COLUMNS} FROM document_profiles WHERE document_id = ? AND profile = ?`,
    args: [documentId, profile],
  });
  const r = rs.rows[0];
  return r ? toInstalled(r) : null;
}

/**
 * Installs a shipped pack on a document and keeps the pack by its digest. Installing the same
 * version again changes nothing (the first install time stays); installing another release of the
 * pack records the new version and digest.
 */
export async function installProfile(
  db: Client,
  install: { documentId: string; profile: string; version: string; digest: string; installedBy: string },
  now: Date,
): Promise<InstalledProfile> {
  const pack = shippedRelease(install.profile, install.digest);
  if (!pack)
    throw new Error(`installProfile: ${install.profile} ${install.version} is not the shipped release`);
  const [, , read] = await db.batch(
    [
      {
        sql: 'INSERT INTO profile_packs (digest, name, version, pack) VALUES (?, ?, ?, ?) ON CONFLICT (digest) DO NOTHING',
        args: [pack.digest, pack.name, pack.version, packJson(pack)],
      },
      {
        sql: `INSERT INTO document_profiles (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
              ON CONFLICT (document_id, profile) DO UPDATE
                SET version = excluded.version, digest = excluded.digest,
                    installed_by = excluded.installed_by, installed_at = excluded.installed_at
              WHERE document_profiles.digest <> excluded.digest`,
        args: [
          install.documentId,
          install.profile,
          install.version,
          install.digest,
          install.installedBy,
          now.toISOString(),
        ],
      },
      {
        sql: `SELECT ${COLUMNS} FROM document_profiles WHERE document_id = ? AND profile = ?`,
        args: [install.documentId, install.profile],
      },
    ],
    'write',
  );
  const r = read?.rows[0];
  if (!r) throw new Error('installProfile: the row was not written');
  return toInstalled(r);
}

/** The shipped pack `name` if it is the release with `digest`. */
function shippedRelease(name: string, digest: string): Pack | null {
  return listPacks().some((p) => p.name === name && p.digest === digest) ? getPack(name) : null;
}

// A digest names one content for good, so a kept pack, once loaded and checked, never changes.
const keptPacks = new Map<string, Pack>();

/**
 * The exact pack installed on a document: the shipped one while it is still that release, else
 * the copy kept at install time. Null for an install of an older release made before packs were
 * kept (nothing can validate with it; installing the current release again fixes that). A kept
 * copy that does not match its install row fails with `integrity`.
 */
export async function installedPack(db: Client, installed: InstalledProfile): Promise<Pack | null> {
  const shipped = shippedRelease(installed.profile, installed.digest);
  if (shipped) return shipped;
  let pack = keptPacks.get(installed.digest);
  if (!pack) {
    const rs = await db.execute({
      sql: 'SELECT pack FROM profile_packs WHERE digest = ?',
      args: [installed.digest],
    });
    const text = rs.rows[0]?.pack;
    if (typeof text !== 'string') return null;
    // loadPack checks the structure and that the content hashes to the digest it carries.
    pack = loadPack(JSON.parse(text));
    if (pack.digest === installed.digest) keptPacks.set(pack.digest, pack);
  }
  if (
    pack.digest !== installed.digest ||
    pack.name !== installed.profile ||
    pack.version !== installed.version
  ) {
    throw new ReviewError(
      'integrity',
      `the pack kept for ${installed.profile} ${installed.version} (${installed.digest}) is ${pack.name} ${pack.version} (${pack.digest})`,
    );
  }
  return pack;
}

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

/** A shipped pack by name, or `not_found` naming the packs there are. */
function shippedPack(name: string): Pack {
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

/**
 * The shipped packs, each with its kinds; with `documentId` (the owner's own document, else
 * `not_found`), whether and which release of each is installed there.
 */
export async function profileCatalogue(
  db: Client,
  ownerId: string,
  documentId?: string,
): Promise<ProfileSummary[]> {
  let installed = new Map<string, InstalledProfile>();
  if (documentId !== undefined) {
    await requireOwnDocument(db, ownerId, documentId);
    installed = new Map((await listInstalledProfiles(db, documentId)).map((p) => [p.profile, p]));
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
}

/** One shipped pack in full: kinds, fields with codec summaries and specs, relations, a valid example record. */
export function previewProfile(name: string): PackPreview {
  return previewPack(shippedPack(name));
}

/**
 * Installs the shipped release of pack `name` on the owner's document (idempotent; a newer release
 * replaces the version on record). `not_found` for another's document or an unknown pack.
 */
export async function installShippedProfile(
  db: Client,
  ownerId: string,
  input: { documentId: string; name: string },
  now: Date,
): Promise<{ documentId: string; name: string; version: string; digest: string; installedAt: string }> {
  await requireOwnDocument(db, ownerId, input.documentId);
  const pack = shippedPack(input.name);
  const row = await installProfile(
    db,
    {
      documentId: input.documentId,
      profile: pack.name,
      version: pack.version,
      digest: pack.digest,
      installedBy: ownerId,
    },
    now,
  );
  return {
    documentId: row.documentId,
    name: row.profile,
    version: row.version,
    digest: row.digest,
    installedAt: row.installedAt,
  };
}

/**
 * The packs installed on the owner's document, with the kinds of the installed release: what a
 * review of it may use, and is validated with.
 */
export async function offeredProfiles(db: Client, ownerId: string, documentId: string) {
  await requireOwnDocument(db, ownerId, documentId);
  const rows = await listInstalledProfiles(db, documentId);
  const offered = await Promise.all(
    rows.map(async (row) => {
      // A pack no longer shipped has no preview to fill in, and an installed release that is no
      // longer available cannot validate anything: either is left out rather than offered.
      if (!listPacks().some((p) => p.name === row.profile)) return [];
      const pack = await installedPack(db, row);
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
}
