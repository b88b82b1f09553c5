/**
 * Demo data for a new application database (DEMO on): three people, a small library, the
 * Research profile and reviewed knowledge at revisions 1–4 on the reef document, and a finished chat
 * run whose agent wrote working notes through the real store. Its session stays open, so the Memory panel is not empty.
 */
import { getPack } from '@oh/profiles';
import type { AgentContext } from '@oh/memory';
import { kindOf } from '@sponge/contract';
import type { AppDeps } from '../deps.ts';
import { insertDocument, publishDocument, shareDocument } from '@sponge/library';
import { decideReview, installProfile } from '@sponge/reviewed';
import { finishRun, insertMessage, insertRun } from '../runs/runs.ts';
import { insertUser } from '../accounts/users.ts';
import { hashToken, newId, newToken } from '../tokens.ts';
import { DEMO_DOCUMENTS, DEMO_REVIEWS, DEMO_RUN, DEMO_USERS, REEF_DOCUMENT_ID } from './library.ts';

/** Seeds only an empty application database; returns null when there was nothing to do. */
export async function seedDemo(deps: AppDeps): Promise<{ documents: number; runId: string } | null> {
  const { app, now } = deps;
  const count = await app.execute('SELECT COUNT(*) AS n FROM users');
  if (Number(count.rows[0]?.n ?? 0) > 0) return null;
  try {
    await insertUser(app, { ...DEMO_USERS[0], isDemo: true }, now());
  } catch (err) {
    // Another process sharing this database seeded first.
    if (/UNIQUE|PRIMARY KEY/i.test(String((err as Error).message))) return null;
    throw err;
  }
  for (const u of DEMO_USERS.slice(1)) await insertUser(app, { ...u, isDemo: true }, now());

  for (const d of DEMO_DOCUMENTS) {
    await insertDocument(app, { ...d, pages: [d.text] }, now());
    for (const userId of d.sharedWith ?? []) await shareDocument(app, d.id, userId, now());
    if (d.published) await publishDocument(app, d.id, now());
  }

  // The Research profile on the reef document, and reviewed knowledge at revisions 1–4, each
  // record through the same checks as a person's review (review.decide).
  const research = getPack('research');
  await installProfile(
    app,
    {
      documentId: REEF_DOCUMENT_ID,
      profile: research.name,
      version: research.version,
      digest: research.digest,
      installedBy: 'user-ada',
    },
    now(),
  );
  const desk = { db: app, reviewed: deps.reviewed, notebook: deps.store };
  for (const { name, text, fields, passage, comment } of DEMO_REVIEWS) {
    await decideReview(desk, 'user-ada', {
      documentId: REEF_DOCUMENT_ID,
      profile: research.name,
      kind: kindOf(name),
      name,
      text,
      fields,
      sourceDocumentId: REEF_DOCUMENT_ID,
      passage,
      decision: 'accept',
      comment,
    });
  }

  // A finished chat run with a short transcript; its agent remembered through the real store.
  const ada = DEMO_USERS[0].id;
  const runId = newId('run');
  const sessionId = newId('ses');
  await insertRun(
    app,
    {
      id: runId,
      documentId: REEF_DOCUMENT_ID,
      ownerId: ada,
      mode: 'chat',
      status: 'live',
      sessionId,
      acceptedAt: now().toISOString(),
      finishedAt: null,
    },
    // The demo run's token is never handed out: only its hash exists, and the run is finished.
    hashToken(newToken('run')),
  );
  await deps.store.openSession({
    id: sessionId,
    ownerId: ada,
    documentId: REEF_DOCUMENT_ID,
    runId,
    pinnedRevision: await deps.reviewed.latestRevision(REEF_DOCUMENT_ID),
  });
  const agent: AgentContext = { sessionId, author: `agent:${runId}` };
  // The transcript orders messages and remember cards by their millisecond times: each step waits
  // for the clock to move, so a fast machine cannot give two steps the same time (a frozen test
  // clock is left as it is after a few tries).
  const nextTick = async () => {
    const t = now().getTime();
    for (let i = 0; i < 5 && now().getTime() === t; i++) await new Promise((r) => setTimeout(r, 1));
  };
  const say = async (role: 'you' | 'agent', text: string) => {
    await nextTick();
    await insertMessage(app, runId, { role, text, at: now().toISOString() });
    await nextTick();
  };

  let version = 0;
  let calls = 0;
  for (const step of DEMO_RUN) {
    if ('say' in step) await say(step.say.role, step.say.text);
    else {
      const call = { basedOn: version, requestId: `demo-${++calls}`, changes: step.remember };
      version = (await deps.store.remember(agent, call)).version;
    }
  }
  await finishRun(app, runId, now());
  return { documents: DEMO_DOCUMENTS.length, runId };
}
