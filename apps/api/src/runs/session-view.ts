/** Shapes the owner-facing routers share (SPEC §7 "Shapes the web app and outside tests rely on"). */
import type { SessionInfo, SessionState } from '@oh/memory';

export interface SessionView {
  id: string;
  runId: string;
  state: SessionState;
  version: number;
  pinnedRevision: number;
  startedAt: string;
  /** When the session's notes are forgotten on their own (startedAt + TTL). */
  forgetsAt: string;
  forgottenAt: string | null;
  purgedAt: string | null;
  noteCount: number;
}

export function toSessionView(s: SessionInfo): SessionView {
  return {
    id: s.id,
    runId: s.runId,
    state: s.state,
    version: s.version,
    pinnedRevision: s.pinnedRevision,
    startedAt: s.startedAt,
    forgetsAt: s.expiresAt,
    forgottenAt: s.forgottenAt,
    purgedAt: s.purgedAt,
    noteCount: s.noteCount,
  };
}
