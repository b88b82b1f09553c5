/**
 * Vocabulary profiles installed on documents (SPEC §7). One row per (document, pack): the pack's
 * version and digest as installed, so a later release of a pack can be told apart from the one
 * the owner chose. The pack itself is kept too, once per digest, because review validates with
 * the release installed on the document, and a later release ships only the newest one.
 */
import type { Client, Row } from '@libsql/client';
import { ProfileError, getPack, listPacks, loadPack, packJson } from '@oh/profiles';
import type { Pack } from '@oh/profiles';

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
export async function listInstalledProfiles(db: Client, documentId: string): Promise<InstalledProfile[]> {
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
 * copy that does not match its install row fails with `ProfileError` (`integrity`).
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
    throw new ProfileError(
      'integrity',
      `the pack kept for ${installed.profile} ${installed.version} (${installed.digest}) is ${pack.name} ${pack.version} (${pack.digest})`,
    );
  }
  return pack;
}
