/**
 * What an owner can see and revoke (SPEC §6c): their *connected agents* — the API keys they made
 * and the MCP clients they let in through the OAuth sign-in (mcp/oauth.ts) — each with when it
 * was connected and last used, and revocation that ends its tokens at once.
 *
 * An OAuth client is listed by the owner's consent to it (`oauth_consents`): the consent is the
 * standing grant (with it, a client gets a new code without asking again), its row stays while
 * the client's tokens come and go (refreshes rotate them, the client may revoke its own), and
 * `/mcp` accepts a client's token only while it stands (mcp/oauth.ts, `verifyMcpAccessToken`).
 * Revoking deletes the consent with every access and refresh token of that owner and client.
 *
 * Last use is written on the hot path (every tRPC call with a key, every `/mcp` call), so it is
 * written at most once a {@link LAST_USED_PRECISION_MS} per credential: the lookup that checks
 * the credential reads the stored time too, and only a stale one is written, by an UPDATE whose
 * WHERE repeats the check so that processes racing on the same credential write it once.
 */
import type { Client } from '@libsql/client';
import { cleanLine } from '@sponge/contract';
import type { Logger } from 'pino';
import { revokeApiKey } from './users.ts';

/** "Last used" is exact to this much; a credential's use is written at most this often. */
export const LAST_USED_PRECISION_MS = 60_000;

export type ConnectedAgentKind = 'api_key' | 'oauth';

export interface ConnectedAgent {
  /** The API key's id, or the id of the owner's consent to the OAuth client. */
  id: string;
  kind: ConnectedAgentKind;
  /** The key's label, or the name the client registered itself with (one line, at most 100). */
  name: string;
  /** When the key was made, or when the owner consented to the client (ISO-8601). */
  createdAt: string;
  lastUsedAt: string | null;
}

/** The longest client name shown; a self-registered client chooses its own. */
const NAME_CHARS = 100;

/**
 * A client's self-chosen name as the owner reads it: one line, without the bidi controls that
 * could make it read as another name, and not empty.
 */
export function clientName(raw: unknown): string {
  const name = typeof raw === 'string' ? cleanLine(raw).trim().slice(0, NAME_CHARS).trim() : '';
  return name === '' ? 'An unnamed agent' : name;
}

/** The library and the API write times in several shapes (ISO text, epoch ms); ISO-8601 out. */
function isoOf(value: unknown): string | null {
  let ms: number;
  if (typeof value === 'number' || typeof value === 'bigint') ms = Number(value);
  else if (typeof value === 'string') ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  else return null;
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

export async function listConnectedAgents(db: Client, userId: string): Promise<ConnectedAgent[]> {
  const [keys, clients] = await db.batch(
    [
      {
        sql: `SELECT id, label, created_at, last_used_at FROM api_keys
               WHERE user_id = ? AND revoked_at IS NULL`,
        args: [userId],
      },
      {
        sql: `SELECT co.id, c.name, co.created_at, co.last_used_at
                FROM oauth_consents co JOIN oauth_clients c ON c.client_id = co.client_id
               WHERE co.user_id = ?`,
        args: [userId],
      },
    ],
    'read',
  );
  const agents: ConnectedAgent[] = [
    ...keys!.rows.map((r) => ({
      id: String(r.id),
      kind: 'api_key' as const,
      name: String(r.label),
      createdAt: isoOf(r.created_at) ?? String(r.created_at),
      lastUsedAt: isoOf(r.last_used_at),
    })),
    ...clients!.rows.map((r) => ({
      id: String(r.id),
      kind: 'oauth' as const,
      name: clientName(r.name),
      createdAt: isoOf(r.created_at) ?? '',
      lastUsedAt: isoOf(r.last_used_at),
    })),
  ];
  return agents.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * Ends one of the owner's agents at once: an API key is revoked; an OAuth client loses the owner's
 * consent and every access and refresh token it holds for this owner, in one write. False when
 * `id` names nothing of this owner's (another owner's agent included), and then nothing changed.
 */
export async function revokeConnectedAgent(
  db: Client,
  userId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  if (await revokeApiKey(db, userId, id, now)) return true;
  // The client of this owner's consent `id`; access tokens go first, as they point at refresh tokens.
  const client = 'SELECT client_id FROM oauth_consents WHERE id = ?2 AND user_id = ?1';
  const results = await db.batch(
    ['oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_consents'].map((table) => ({
      sql: `DELETE FROM ${table} WHERE user_id = ?1 AND client_id = (${client})`,
      args: [userId, id],
    })),
    'write',
  );
  return (results[2]?.rowsAffected ?? 0) > 0;
}

/**
 * Whether a use at `now` of a credential last used at `lastUsedAt` (as stored) is to be written:
 * the cheap check the hot path makes on every call, before any {@link recordUse}.
 */
export function useIsStale(lastUsedAt: unknown, now: Date): boolean {
  // Written by recordUse as ISO text; anything else (none yet, unreadable) is stale.
  if (typeof lastUsedAt !== 'string') return true;
  return !(Date.parse(lastUsedAt) > now.getTime() - LAST_USED_PRECISION_MS);
}

const UPDATE_OF: Record<ConnectedAgentKind, string> = {
  api_key: 'UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2',
  oauth: 'UPDATE oauth_consents SET last_used_at = ?1 WHERE id = ?2',
};

/** Writes in flight in this process: concurrent calls with one credential write once. */
const writing = new Set<string>();

/**
 * Writes a use of a credential whose stored last use {@link useIsStale} found stale: one UPDATE
 * whose WHERE repeats the check, so processes racing on one credential write it once. A failed
 * write is logged, never the caller's failure: the call it records is authenticated already.
 */
export async function recordUse(
  deps: { app: Client; log: Logger; now: () => Date },
  kind: ConnectedAgentKind,
  id: string,
): Promise<void> {
  const key = `${kind}:${id}`;
  if (writing.has(key)) return;
  writing.add(key);
  const now = deps.now();
  try {
    await deps.app.execute({
      sql: `${UPDATE_OF[kind]} AND (last_used_at IS NULL OR last_used_at <= ?3)`,
      args: [now.toISOString(), id, new Date(now.getTime() - LAST_USED_PRECISION_MS).toISOString()],
    });
  } catch (err) {
    deps.log.warn({ err, kind }, 'could not record when a connected agent was last used');
  } finally {
    writing.delete(key);
  }
}
