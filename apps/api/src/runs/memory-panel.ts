/**
 * Forget now (routers/memory.ts says what it answers; the panel itself is @sponge/reviewed's). A
 * session the caller may not see is NOT_FOUND, never FORBIDDEN: the answer does not confirm it exists.
 */
import type { SessionState } from '@oh/memory';
import type { AppDeps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { requireOwnedDocument } from './access.ts';
import { liveNotifier, sessionKey } from './notifier.ts';

const CLOSED_FOR_GOOD: ReadonlySet<SessionState> = new Set(['forgotten', 'purged', 'empty']);

export async function forgetSession(deps: AppDeps, ownerId: string, sessionId: string) {
  const s = await deps.store.getSession(sessionId);
  if (!s || s.ownerId !== ownerId) throw notFound('The session');
  await requireOwnedDocument(deps, ownerId, s.documentId).catch(() => {
    throw notFound('The session');
  });
  if (CLOSED_FOR_GOOD.has(s.state)) return { sessionId: s.id, state: s.state };
  const after = await deps.store.forget(s.id);
  // The run's `chat.events` streams replace its memory cards with the forgotten card now.
  liveNotifier(deps.app).notify(sessionKey(s.id));
  return { sessionId: after.id, state: after.state };
}
