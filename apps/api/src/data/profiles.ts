/**
 * Vocabulary profiles installed on documents (SPEC §7). One row per (document, pack): the pack's
 * version and digest as installed, so a later release of a pack can be told apart from the one
 * the owner chose.
 */
import type { Client, Row } from '@libsql/client';

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

export async function getInstalledProfile(db: Client, documentId: string, profile: string): Promise<InstalledProfile | null> {
  const rs = await db.execute({
    sql: `SELECT ${COLUMNS} FROM document_profiles WHERE document_id = ? AND profile = ?`,
    args: [documentId, profile],
  });
  const r = rs.rows[0];
  return r ? toInstalled(r) : null;
}

/**
 * Installs a pack on a document. Installing the same version again changes nothing (the first
 * install time stays); installing another release of the pack records the new version and digest.
 */
export async function installProfile(
  db: Client,
  install: { documentId: string; profile: string; version: string; digest: string; installedBy: string },
  now: Date,
): Promise<InstalledProfile> {
  const [, read] = await db.batch(
    [
      {
        sql: `INSERT INTO document_profiles (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
              ON CONFLICT (document_id, profile) DO UPDATE
                SET version = excluded.version, digest = excluded.digest,
                    installed_by = excluded.installed_by, installed_at = excluded.installed_at
              WHERE document_profiles.digest <> excluded.digest`,
        args: [install.documentId, install.profile, install.version, install.digest, install.installedBy, now.toISOString()],
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
