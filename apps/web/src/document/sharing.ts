// The owner's shares of a document in words (SPEC §6c): a share by email waits until the owner
// gives access to the account that signed up with the address, or until someone opens the
// invitation link the owner sent.
import { formatDate } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';

export type Share = RouterOutputs['documents']['shares'][number];

/** One share as a sentence: who can read, or what the waiting one waits for. */
export function shareLine(share: Share, title: string): string {
  if (share.state === 'granted') {
    const name = share.account?.name ?? share.email ?? 'Someone';
    return share.email && share.account
      ? `${name} can read it (shared with ${share.email}).`
      : `${name} can read it.`;
  }
  if (share.account) return `${share.account.name} signed up as ${share.email} — give access to “${title}”?`;
  return `${share.email}: waiting — no one has signed up with this address yet.`;
}

/** Under a waiting share: the link that works now, if there is one. */
export function inviteLine(share: Share): string | null {
  return share.state === 'waiting' && share.invite
    ? `An invitation link works once, until ${formatDate(share.invite.expiresAt)}.`
    : null;
}

/** The link to send: the API gives the path, the page its own origin (the one the owner uses). */
export const inviteUrl = (path: string, origin: string): string => new URL(path, origin).href;

/** Waiting shares first (they ask something of the owner), then who can read, each by address or name. */
export function orderShares(shares: readonly Share[]): Share[] {
  const key = (s: Share) => `${s.state === 'waiting' ? 0 : 1}${s.email ?? s.account?.name ?? ''}`;
  return [...shares].sort((a, b) => key(a).localeCompare(key(b)));
}
