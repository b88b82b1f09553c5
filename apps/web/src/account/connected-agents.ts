// How the Connected agents page (SPEC §6c) says what each agent is and when it was last seen.
import { formatWhen } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';

type AgentKind = RouterOutputs['auth']['connectedAgents'][number]['kind'];

/** The agent's kind, as the owner made it: a key they created, or a sign-in they allowed. */
export function agentKindText(kind: AgentKind): string {
  return kind === 'api_key' ? 'API key' : 'Signed in with OAuth';
}

/** "14:00 today", "12 Sept 2026, 14:00": when the key was created or the sign-in allowed. */
export function connectedText(iso: string, now: number = Date.now()): string {
  return formatWhen(iso, now);
}

/** "14:02 today", "3 Dec 2026, 09:15", or "never used" (recorded to the minute). */
export function lastUsedText(iso: string | null, now: number = Date.now()): string {
  return iso === null ? 'never used' : formatWhen(iso, now);
}

/** What revoking does, for the confirmation: the two kinds end differently. */
export function revokeConsequence(kind: AgentKind): string {
  return kind === 'api_key'
    ? 'An agent that uses this key is refused from now on. This cannot be undone; you can create a new key.'
    : 'It is signed out at once: its access ends and it cannot renew it. To use it again, connect it again from the agent, and you will be asked to allow it.';
}
