/**
 * Sharing a document (SPEC §6c). By account id (the demo's picker), the `shares` row that the
 * access rule reads is written at once. By email, nothing proves who holds an address: there is
 * no mail step, and sign-up is open on the embedded setup. So a share by email only records the
 * address and waits; it is granted to an account when the owner confirms the account that holds
 * the address (seeing its name), or when someone opens the invitation link the owner sent
 * through a channel of their own (one use, expiring). Only then does its `shares` row exist.
 *
 * The accounts are the app's: these statements read its `users` table (id, name, email,
 * disabled_at) and never write it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Client } from '@libsql/client';
import { LibraryError } from '../errors.ts';
import { live } from './rules.ts';

/** Lowercase hex SHA-256 of an invitation's token: all that is kept of it. */
const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Shares by account id, at once. Idempotent: sharing twice keeps the first share. */
export async function shareDocument(
  db: Client,
  documentId: string,
  userId: string,
  now: Date,
): Promise<void> {
  await db.execute({
    sql: `INSERT INTO shares (document_id, user_id, created_at) VALUES (?, ?, ?)
          ON CONFLICT (document_id, user_id) DO NOTHING`,
    args: [documentId, userId, now.toISOString()],
  });
}

/**
 * Who the owner shared with, in short: by id (the demo's picker) by name, by email by the address
 * (waiting or granted: `listShareViews` says which).
 */
export type ShareEntry = { id: string; name: string } | { email: string };

export async function listShares(db: Client, documentId: string): Promise<ShareEntry[]> {
  const rs = await db.execute({
    sql: `SELECT u.id, u.name, NULL AS email FROM shares s JOIN users u ON u.id = s.user_id
          WHERE s.document_id = :doc AND NOT EXISTS (
            SELECT 1 FROM email_shares e WHERE e.document_id = s.document_id AND e.granted_to = u.id)
          UNION ALL
          SELECT NULL, NULL, email FROM email_shares WHERE document_id = :doc
          ORDER BY 2, 3, 1`,
    args: { doc: documentId },
  });
  return rs.rows.map((r) =>
    r.email === null ? { id: String(r.id), name: String(r.name) } : { email: String(r.email) },
  );
}

/** How long an invitation link works (SPEC §6c: expiring). */
const INVITE_TTL_MS = 7 * 86_400_000;

export type ShareState = 'waiting' | 'granted';

/** One share as the owner sees it. */
export interface ShareView {
  /** The address shared with; null for a share made by account id (the demo's picker). */
  email: string | null;
  state: ShareState;
  /**
   * Granted: the account that may read. Waiting: the active account that holds the address now,
   * if any (what the owner confirms), never the owner's own.
   */
  account: { name: string } | null;
  /** Waiting: the link that works now, if the owner made one. */
  invite: { expiresAt: string } | null;
}

export async function listShareViews(db: Client, documentId: string, now: Date): Promise<ShareView[]> {
  const rs = await db.execute({
    sql: `SELECT e.email, e.granted_to IS NOT NULL AS granted,
                 CASE WHEN e.granted_to IS NOT NULL THEN g.name ELSE a.name END AS name,
                 (SELECT max(i.expires_at) FROM share_invites i
                   WHERE i.document_id = e.document_id AND i.email = e.email
                     AND i.used_at IS NULL AND i.expires_at > :now) AS invite_expires_at
            FROM email_shares e
            JOIN documents d ON d.id = e.document_id
            LEFT JOIN users g ON g.id = e.granted_to
            LEFT JOIN users a ON a.email = e.email AND a.disabled_at IS NULL AND a.id <> d.owner_id
           WHERE e.document_id = :doc
          UNION ALL
          SELECT NULL, 1, u.name, NULL
            FROM shares s JOIN users u ON u.id = s.user_id
           WHERE s.document_id = :doc
             AND NOT EXISTS (SELECT 1 FROM email_shares e
                              WHERE e.document_id = s.document_id AND e.granted_to = s.user_id)
           ORDER BY 1, 3`,
    args: { doc: documentId, now: now.toISOString() },
  });
  return rs.rows.map((r) => ({
    email: r.email === null ? null : String(r.email),
    state: Number(r.granted) === 1 ? 'granted' : 'waiting',
    account: r.name === null ? null : { name: String(r.name) },
    invite:
      Number(r.granted) === 1 || r.invite_expires_at === null
        ? null
        : { expiresAt: String(r.invite_expires_at) },
  }));
}

/** Records a share by email, waiting. Idempotent: sharing again keeps the first (granted or not). */
export async function shareByEmail(db: Client, documentId: string, email: string, now: Date): Promise<void> {
  await db.execute({
    sql: `INSERT INTO email_shares (document_id, email, created_at) VALUES (?, ?, ?)
          ON CONFLICT (document_id, email) DO NOTHING`,
    args: [documentId, email, now.toISOString()],
  });
}

/** A share by email with the account that holds its address now (active, not the owner). */
interface EmailShare {
  grantedTo: string | null;
  holder: { id: string; name: string } | null;
}

async function getEmailShare(db: Client, documentId: string, email: string): Promise<EmailShare | null> {
  const rs = await db.execute({
    sql: `SELECT e.granted_to, a.id AS holder_id, a.name AS holder_name
            FROM email_shares e
            JOIN documents d ON d.id = e.document_id
            LEFT JOIN users a ON a.email = e.email AND a.disabled_at IS NULL AND a.id <> d.owner_id
           WHERE e.document_id = ? AND e.email = ?`,
    args: [documentId, email],
  });
  const r = rs.rows[0];
  if (!r) return null;
  return {
    grantedTo: r.granted_to === null ? null : String(r.granted_to),
    holder: r.holder_id === null ? null : { id: String(r.holder_id), name: String(r.holder_name) },
  };
}

/**
 * The owner grants a waiting share by email to the account that now holds the address (the owner
 * saw its name in `listShareViews`). `not_found` for no such share; `invalid_input`, in words,
 * while no account holds the address. Confirming a granted share again changes nothing.
 */
export async function confirmShare(db: Client, documentId: string, email: string, now: Date): Promise<void> {
  const share = await getEmailShare(db, documentId, email);
  if (!share) throw new LibraryError('not_found', 'The share was not found.');
  if (share.grantedTo !== null) return;
  if (!share.holder)
    throw new LibraryError(
      'invalid_input',
      `No account has ${email} yet: confirm once the person signs up with it, or send them an invitation link.`,
    );
  await confirmEmailShare(db, documentId, email, share.holder.id, now);
}

/**
 * Grants the waiting share to `userId`, only while that account still holds the address and is
 * active (the owner saw its name). The share's unused links stop working: nobody else can take
 * it any more. True when it is granted now (also if it already was).
 */
async function confirmEmailShare(
  db: Client,
  documentId: string,
  email: string,
  userId: string,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const [granted] = await db.batch(
    [
      {
        sql: `UPDATE email_shares SET granted_to = ?, granted_at = ?
               WHERE document_id = ? AND email = ? AND granted_to IS NULL
                 AND EXISTS (SELECT 1 FROM users WHERE id = ? AND email = ? AND disabled_at IS NULL)`,
        args: [userId, at, documentId, email, userId, email],
      },
      {
        sql: `INSERT INTO shares (document_id, user_id, created_at)
              SELECT document_id, granted_to, ? FROM email_shares
               WHERE document_id = ? AND email = ? AND granted_to = ?
              ON CONFLICT (document_id, user_id) DO NOTHING`,
        args: [at, documentId, email, userId],
      },
      unusedInvitesOf(documentId, email),
    ],
    'write',
  );
  if (granted!.rowsAffected === 1) return true;
  return (await getEmailShare(db, documentId, email))?.grantedTo === userId;
}

function unusedInvitesOf(documentId: string, email: string) {
  return {
    sql: 'DELETE FROM share_invites WHERE document_id = ? AND email = ? AND used_at IS NULL',
    args: [documentId, email],
  };
}

/** What the owner sends (the app puts it in a link), and when it stops working. */
export interface NewInvite {
  token: string;
  expiresAt: string;
}

/**
 * A one-use invitation for a waiting share by email, which the owner sends as they trust (SPEC
 * §6c). `not_found` for no such share; `invalid_input` when it is granted already (no link is
 * needed). It replaces the share's unused links.
 */
export async function inviteToShare(
  db: Client,
  documentId: string,
  email: string,
  now: Date,
): Promise<NewInvite> {
  const share = await getEmailShare(db, documentId, email);
  if (!share) throw new LibraryError('not_found', 'The share was not found.');
  const invite = share.grantedTo === null ? await createInvite(db, documentId, email, now) : null;
  if (!invite)
    throw new LibraryError('invalid_input', `${email} can read this document already: no link is needed.`);
  return invite;
}

/**
 * A new invitation for a waiting share: 32 random bytes, kept only as their SHA-256 hash (a
 * token of 256 bits needs no slow hash). It replaces the share's unused links, so a link copied
 * earlier and lost stops working. Null when the share is not waiting (any more).
 */
async function createInvite(
  db: Client,
  documentId: string,
  email: string,
  now: Date,
): Promise<NewInvite | null> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS).toISOString();
  const [, inserted] = await db.batch(
    [
      unusedInvitesOf(documentId, email),
      {
        sql: `INSERT INTO share_invites (token_hash, document_id, email, created_at, expires_at)
              SELECT ?, document_id, email, ?, ? FROM email_shares
               WHERE document_id = ? AND email = ? AND granted_to IS NULL`,
        args: [hashToken(token), now.toISOString(), expiresAt, documentId, email],
      },
    ],
    'write',
  );
  return inserted!.rowsAffected === 1 ? { token, expiresAt } : null;
}

/** Why an invitation cannot be accepted. */
type InviteRefusal = 'unknown' | 'used' | 'expired' | 'own' | 'withdrawn';

type InviteOutcome = { documentId: string } | { refused: InviteRefusal; expiresAt?: string };

/**
 * Accepts an invitation as `userId`: the document they may read now. `invalid_input` on the
 * owner's own document; `not_found` for a used, expired, replaced or unknown link, with words
 * that say which.
 */
export async function acceptInvite(
  db: Client,
  token: string,
  userId: string,
  now: Date,
): Promise<{ documentId: string }> {
  const outcome = await useInvite(db, token, userId, now);
  if ('documentId' in outcome) return { documentId: outcome.documentId };
  if (outcome.refused === 'own')
    throw new LibraryError(
      'invalid_input',
      'This is your own document: the invitation is for the person you send it to.',
    );
  throw new LibraryError('not_found', INVITE_REFUSALS[outcome.refused](outcome.expiresAt));
}

const ASK_AGAIN = 'Ask the person who sent it for a new link.';

/** Why an invitation link opens nothing, in words for the person holding it. */
const INVITE_REFUSALS: Record<Exclude<InviteRefusal, 'own'>, (expiresAt?: string) => string> = {
  unknown: () =>
    `This invitation link is not valid: it may have been copied incompletely or replaced. ${ASK_AGAIN}`,
  used: () => `This invitation link has already been used. ${ASK_AGAIN}`,
  expired: (at) => `This invitation link expired${at ? ` on ${dayOf(at)}` : ''}. ${ASK_AGAIN}`,
  withdrawn: () => `This invitation link is no longer valid. ${ASK_AGAIN}`,
};

/** "9 March 2026" (UTC): when a link expired, as a person reads a date. */
const dayOf = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/**
 * Uses an invitation as `userId`: the waiting share is granted to that account (whatever address
 * it signed up with: the link, not the address, is what the owner vouched for), and the link is
 * used up. In one write batch, each step conditional on the first, so two people opening the
 * same link at once cannot both get in. The person who used it may open it again.
 */
async function useInvite(db: Client, token: string, userId: string, now: Date): Promise<InviteOutcome> {
  const tokenHash = hashToken(token);
  const first = await inviteState(db, tokenHash, userId, now);
  if (first !== 'open') return first;
  const at = now.toISOString();
  const usedBy = `SELECT document_id, email FROM share_invites WHERE token_hash = ? AND used_by = ? AND used_at = ?`;
  const [used] = await db.batch(
    [
      {
        sql: `UPDATE share_invites SET used_at = ?, used_by = ?
               WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                 AND EXISTS (SELECT 1 FROM email_shares e JOIN documents d ON d.id = e.document_id
                              WHERE e.document_id = share_invites.document_id
                                AND e.email = share_invites.email AND e.granted_to IS NULL
                                AND ${live('d')} AND d.owner_id <> ?)`,
        args: [at, userId, tokenHash, at, userId],
      },
      {
        sql: `UPDATE email_shares SET granted_to = ?, granted_at = ?
               WHERE granted_to IS NULL AND (document_id, email) IN (${usedBy})`,
        args: [userId, at, tokenHash, userId, at],
      },
      {
        sql: `INSERT INTO shares (document_id, user_id, created_at)
              SELECT document_id, ?, ? FROM (${usedBy}) WHERE true
              ON CONFLICT (document_id, user_id) DO NOTHING`,
        args: [userId, at, tokenHash, userId, at],
      },
    ],
    'write',
  );
  if (used!.rowsAffected === 1) {
    const rs = await db.execute({
      sql: 'SELECT document_id FROM share_invites WHERE token_hash = ?',
      args: [tokenHash],
    });
    return { documentId: String(rs.rows[0]!.document_id) };
  }
  // Someone else got there between the look and the write: say what stands now.
  const after = await inviteState(db, tokenHash, userId, now);
  return after === 'open' ? { refused: 'used' } : after;
}

/** Whether the invitation can be accepted by `userId` now ('open'), or what stands in the way. */
async function inviteState(
  db: Client,
  tokenHash: string,
  userId: string,
  now: Date,
): Promise<'open' | InviteOutcome> {
  const rs = await db.execute({
    sql: `SELECT i.document_id, i.expires_at, i.used_at, i.used_by, d.owner_id, d.removed_at,
                 e.email AS share_email, e.granted_to
            FROM share_invites i JOIN documents d ON d.id = i.document_id
            LEFT JOIN email_shares e ON e.document_id = i.document_id AND e.email = i.email
           WHERE i.token_hash = ?`,
    args: [tokenHash],
  });
  const r = rs.rows[0];
  if (!r || r.removed_at !== null) return { refused: 'unknown' };
  const documentId = String(r.document_id);
  if (r.used_at !== null) return r.used_by === userId ? { documentId } : { refused: 'used' };
  if (r.owner_id === userId) return { refused: 'own' };
  if (String(r.expires_at) <= now.toISOString())
    return { refused: 'expired', expiresAt: String(r.expires_at) };
  if (r.share_email === null || r.granted_to !== null) return { refused: 'withdrawn' };
  return 'open';
}
