/**
 * Demo data for a new application database (DEMO on): three people, a small library, the
 * Research profile and reviewed knowledge at revisions 1–4 on the reef document, and a finished chat
 * run whose agent wrote working notes through the real store. Its session stays open, so the Memory panel is not empty.
 */
import { getPack } from '@oh/profiles';
import type { AgentContext, Change, JsonValue } from '@oh/memory';
import { kindOf } from '@sponge/contract';
import type { AppDeps } from '../deps.ts';
import { insertDocument, publishDocument, shareDocument } from '@sponge/library';
import { decideReview, installProfile } from '@sponge/reviewed';
import { finishRun, insertMessage, insertRun } from '../data/runs.ts';
import { insertUser } from '../data/users.ts';
import { hashToken, newId, newToken } from '../tokens.ts';
import { BLEACHING_PASSAGE, DEMO_DOCUMENTS, DEMO_USERS, REEF_DOCUMENT_ID } from './library.ts';

/** In the reef document's text: what the publication, its study and its sample are cited by. */
const SURVEY_PASSAGE = 'We resurveyed 112 sites that had been mapped in 2015 and followed them through 2020.';

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

  // The Research profile on the reef document, and reviewed knowledge at revisions 1–4: the
  // publication, its study, the study's sample and a finding of it, each through the same checks
  // as a person's review (review.decide). A record's reference fields are links to records that
  // must be reviewed already, so they are accepted in that order.
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
  const review = (
    name: string,
    text: string,
    fields: Record<string, JsonValue>,
    passage: string,
    comment: string,
  ) =>
    decideReview({ db: app, reviewed: deps.reviewed, notebook: deps.store }, 'user-ada', {
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
  await review(
    'publication:reef-recovery-2016',
    'Reef recovery after the 2016 bleaching, by M. Okafor, L. Brandt and J. Tamura.',
    {
      title: 'Reef recovery after the 2016 bleaching',
      authors: ['M. Okafor', 'L. Brandt', 'J. Tamura'],
      status: 'published',
    },
    SURVEY_PASSAGE,
    'The report itself: title and authors as on the document.',
  );
  await review(
    'study:reef-resurvey-2016',
    '112 reef sites mapped in 2015, resurveyed after the 2016 heatwave and followed through 2020.',
    {
      title: 'Resurvey of the northern reef, 2015–2020',
      design: 'cohort',
      reportedIn: ['publication:reef-recovery-2016'],
    },
    SURVEY_PASSAGE,
    'Design as described in the introduction.',
  );
  await review(
    'sample:reef-sites-112',
    'The 112 reef sites mapped in 2015.',
    {
      size: 112,
      population: 'reef sites on the northern reef mapped in 2015',
      study: 'study:reef-resurvey-2016',
    },
    SURVEY_PASSAGE,
    'Site count as stated.',
  );
  await review(
    'finding:bleaching-threshold',
    'Sites above 8 degree heating weeks bleached at over 90 percent of sites; below 4 DHW, fewer than 30 percent.',
    {
      statement:
        'Reef sites exposed to more than 8 degree heating weeks bleached in over 90 percent of cases; sites below 4 degree heating weeks in fewer than 30 percent.',
      study: 'study:reef-resurvey-2016',
      sample: 'sample:reef-sites-112',
    },
    BLEACHING_PASSAGE,
    'Matches Table 2 of the survey; threshold stated in the results.',
  );

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

  await say(
    'you',
    'Does the 2016 survey support the bleaching threshold we reviewed? Check what the data can and cannot show.',
  );
  const first: Change[] = [
    {
      op: 'add',
      name: 'lead:reef-survey-2016',
      text: 'methods section missing: the survey paper does not say how sites were chosen in 2015.',
      links: [{ rel: 'supports', to: 'finding:bleaching-threshold' }],
    },
    {
      op: 'add',
      name: 'ruled-out:dataset-2014',
      text: 'dataset ends 2014 for five southern stations, so it cannot measure 2016 heat exposure there.',
    },
  ];
  const r1 = await deps.store.remember(agent, { basedOn: 0, requestId: 'demo-1', changes: first });
  await say(
    'agent',
    'Two notes so far: the survey lacks a methods section, and the 2014 temperature dataset is ruled out for the southern sites.',
  );
  const second: Change[] = [
    {
      op: 'add',
      name: 'todo:check-figure-3',
      text: 'check figure 3 against the site table before relying on the 90 percent figure.',
      links: [{ rel: 'depends_on', to: 'lead:reef-survey-2016' }],
    },
    {
      op: 'add',
      name: 'finding:bleaching-threshold',
      text: 'Bleaching looks near-universal above 6 degree heating weeks, lower than the reviewed 8.',
      links: [{ rel: 'contradicts', to: 'ruled-out:dataset-2014' }],
    },
  ];
  await deps.store.remember(agent, { basedOn: r1.version, requestId: 'demo-2', changes: second });
  await say(
    'agent',
    'My working note on the threshold (about 6 DHW) differs from the reviewed finding (8 DHW); the panel shows the conflict. Figure 3 still needs checking before anything is proposed for review.',
  );
  await finishRun(app, runId, now());
  return { documents: DEMO_DOCUMENTS.length, runId };
}
