/**
 * Reviewed knowledge standing alone, beside the library alone (no app): a decision is checked
 * against the profile installed on the document and its source (read through the library), is
 * refused with a `ReviewError` whose reason the app maps, and what it records is what the history,
 * the findings and the panel rows read back with names and titles.
 */
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { applyMigrations } from '@oh/memory';
import type { NoteView, SessionInfo } from '@oh/memory';
import { createPack, getPack, packJson } from '@oh/profiles';
import type { ReviewDecideInput } from '@sponge/contract';
import { insertDocument } from '@sponge/library';
import { openTestDatabase } from '@sponge/library/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { isReviewError } from './errors.ts';
import { reviewHistory, reviewedFindings } from './history.ts';
import { createReviewedKnowledge } from './knowledge.ts';
import { REVIEWED_MIGRATIONS } from './migrations.ts';
import { panelRows } from './panel.ts';
import { installShippedProfile, offeredProfiles, profileCatalogue } from './profiles.ts';
import { decideReview } from './review.ts';
import type { Notebook, ReviewDesk } from './review.ts';

const PASSAGE = 'Sites above 8 degree heating weeks bleached at over 90 percent of sites.';
const AT = new Date('2026-03-09T10:00:00Z');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The library alone with two owners and Ada's paper, the profile tables, reviewed knowledge on it. */
async function desk(notes: NoteView[] = []): Promise<ReviewDesk & { db: Client }> {
  // A file, or a libSQL server with TEST_DATABASES=sqld.
  const library = await openTestDatabase(createLocalEmbeddingAdapter(), {
    owners: [
      { id: 'ada', name: 'Ada' },
      { id: 'grace', name: 'Grace' },
    ],
  });
  cleanups.push(() => library.close());
  const { db } = library;
  await applyMigrations(db, 'profiles', Object.values(REVIEWED_MIGRATIONS));
  await insertDocument(
    db,
    { id: 'reef', ownerId: 'ada', title: 'Reef survey', authors: [], abstract: '', pages: [PASSAGE] },
    AT,
  );
  const reviewed = await createReviewedKnowledge({ client: db, now: () => AT });
  const session = { id: 'ses', documentId: 'reef', ownerId: 'ada' } as SessionInfo;
  const notebook: Notebook = {
    getSession: async (id) => (id === session.id ? session : null),
    notes: async () => notes,
  };
  return { db, reviewed, notebook };
}

const publication = (extra: Partial<ReviewDecideInput> = {}): ReviewDecideInput => ({
  documentId: 'reef',
  profile: 'research',
  kind: 'publication',
  name: 'publication:reef',
  text: 'The reef survey, by M. Okafor.',
  fields: { title: 'Reef survey', authors: ['M. Okafor'], status: 'published' },
  sourceDocumentId: 'reef',
  passage: PASSAGE,
  decision: 'accept',
  comment: 'Matches Table 2.',
  ...extra,
});

/** The refusal a call ended with (a ReviewError), as reason and message. */
async function refusal(promise: Promise<unknown>) {
  const error: unknown = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  if (!isReviewError(error)) throw error;
  return { reason: error.reason, message: error.message, issues: error.issues };
}

describe('a review decision', () => {
  it('is the owner’s alone: another owner, or a document nobody has, reads not_found', async () => {
    const on = await desk();
    expect(await refusal(decideReview(on, 'grace', publication()))).toMatchObject({
      reason: 'not_found',
      message: 'The document was not found.',
    });
    expect((await refusal(profileCatalogue(on.db, 'ada', 'nowhere'))).reason).toBe('not_found');
    expect(
      (await refusal(installShippedProfile(on.db, 'ada', { documentId: 'reef', name: 'x' }, AT))).message,
    ).toBe('The profile "x" (profiles: finance, language, research) was not found.');
  });

  it('names every problem with its path, and records nothing', async () => {
    const on = await desk();
    const refused = await refusal(
      decideReview(
        on,
        'ada',
        publication({ name: 'study:wrong', passage: 'not in the paper at all', comment: ' ' }),
      ),
    );
    expect(refused.reason).toBe('invalid_input');
    expect(refused.issues?.map((i) => i.path.join('.'))).toEqual(['profile', 'name', 'comment', 'passage']);
    expect(refused.message).toMatch(
      /^Invalid input: profile: the research profile is not installed on this document;/,
    );
    expect(await on.reviewed.decisions('reef')).toEqual([]);
  });

  it('accepted with the installed release is what the history, the findings and the panel read', async () => {
    const on = await desk([
      {
        name: 'publication:reef',
        kind: 'publication',
        digest: 'd'.repeat(64),
        text: 'about 6 DHW',
        data: null,
        links: [],
        author: 'agent:run',
        createdAt: AT.toISOString(),
        updatedAt: AT.toISOString(),
        version: 1,
      },
    ]);
    await installShippedProfile(on.db, 'ada', { documentId: 'reef', name: 'research' }, AT);
    expect((await offeredProfiles(on.db, 'ada', 'reef')).map((p) => p.name)).toEqual(['research']);
    const outcome = await decideReview(
      on,
      'ada',
      publication({ fromSession: 'ses', fromNote: 'publication:reef' }),
    );
    expect(outcome).toMatchObject({
      revision: 1,
      latestRevision: 1,
      profile: { digest: getPack('research').digest },
    });

    const history = await reviewHistory(on, 'ada', 'reef');
    expect(history.decisions[0]).toMatchObject({ reviewerName: 'Ada', source: { title: 'Reef survey' } });
    expect((await reviewedFindings(on, 'ada', 'reef')).findings.map((f) => f.name)).toEqual([
      'publication:reef',
    ]);
    expect((await refusal(reviewHistory(on, 'grace', 'reef'))).reason).toBe('not_found');

    const rows = await panelRows(
      on.db,
      await on.notebook.notes('ses'),
      await on.reviewed.recordsAt('reef', 1),
    );
    expect(rows.reviewedInView[0]).toMatchObject({ reviewerName: 'Ada', source: { title: 'Reef survey' } });
    expect(rows.workingNotes[0]?.conflicts).toEqual([
      { source: 'reviewed', name: 'publication:reef', reason: 'different_content' },
    ]);
  });
});

describe('a decision on a group (a finding with its new study and publication)', () => {
  const FINDING = 'finding:bleaching-above-8-dhw';
  const STUDY = 'study:reef-survey';
  const PUBLICATION = 'publication:reef';
  /** The finding names a study that is only in the group; the study names the group's publication. */
  const group = (extra: Partial<ReviewDecideInput> = {}): ReviewDecideInput => ({
    documentId: 'reef',
    profile: 'research',
    kind: 'finding',
    name: FINDING,
    text: 'Sites above 8 DHW bleached at over 90 percent of sites.',
    fields: { statement: 'Over 90 percent of sites above 8 DHW bleached.', study: STUDY },
    sourceDocumentId: 'reef',
    passage: PASSAGE,
    decision: 'accept',
    comment: 'As the survey reports it.',
    // Listed before what it references: the order within the group does not matter.
    with: [
      {
        kind: 'study',
        name: STUDY,
        text: 'The reef survey.',
        fields: { title: 'Reef survey', design: 'cohort', reportedIn: [PUBLICATION] },
      },
      {
        kind: 'publication',
        name: PUBLICATION,
        text: 'The reef survey, by M. Okafor.',
        fields: { title: 'Reef survey', status: 'published' },
        passage: 'bleached at over 90 percent',
      },
    ],
    ...extra,
  });

  async function researchDesk() {
    const on = await desk([]);
    await installShippedProfile(on.db, 'ada', { documentId: 'reef', name: 'research' }, AT);
    return on;
  }

  it('accepts the three in one revision, each linked to the group record it names', async () => {
    const on = await researchDesk();
    const outcome = await decideReview(on, 'ada', group());
    expect(outcome).toMatchObject({ name: FINDING, revision: 1, latestRevision: 1 });
    expect(outcome.links).toEqual([{ rel: 'depends_on', to: STUDY }]);
    expect(outcome.with.map((w) => [w.name, w.kind, w.revision, w.decision])).toEqual([
      [STUDY, 'study', 1, 'accept'],
      [PUBLICATION, 'publication', 1, 'accept'],
    ]);
    expect(outcome.with[0]!.links).toEqual([{ rel: 'depends_on', to: PUBLICATION }]);
    expect(outcome.with[1]!.passage).toBe('bleached at over 90 percent');
    expect(outcome.with[0]!.passage).toBe(PASSAGE);
    expect(await on.reviewed.latestRevision('reef')).toBe(1);
    const view = await on.reviewed.recordsAt('reef', 1);
    expect(view.map((r) => [r.name, r.revision])).toEqual([
      [FINDING, 1],
      [PUBLICATION, 1],
      [STUDY, 1],
    ]);
    expect(view.find((r) => r.name === STUDY)?.digest).toBe(outcome.with[0]!.digest);
    const decisions = await on.reviewed.decisions('reef');
    expect(decisions.map((d) => [d.name, d.revision, d.comment])).toEqual(
      expect.arrayContaining([
        [FINDING, 1, 'As the survey reports it.'],
        [STUDY, 1, 'As the survey reports it.'],
        [PUBLICATION, 1, 'As the survey reports it.'],
      ]),
    );
    expect(decisions).toHaveLength(3);
    // A later finding may name the group's study: it is reviewed knowledge now.
    const next = await decideReview(
      on,
      'ada',
      group({ name: 'finding:second', with: undefined, text: 'Another.' }),
    );
    expect([next.revision, next.with]).toEqual([2, []]);
  });

  it('is all or nothing: one invalid record of the group refuses all, by its path', async () => {
    const on = await researchDesk();
    const [study, publication] = group().with!;
    const refused = await refusal(
      decideReview(
        on,
        'ada',
        group({
          with: [study!, { ...publication!, fields: { status: 'published' }, passage: 'not in the survey' }],
        }),
      ),
    );
    expect(refused.reason).toBe('invalid_input');
    expect(refused.issues?.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['with.1.fields.title', 'required'],
      ['with.1.passage', 'passage not found in the source'],
    ]);
    expect(await on.reviewed.decisions('reef')).toEqual([]);
    expect(await on.reviewed.latestRevision('reef')).toBe(0);
  });

  it('refuses a reference to a record neither in view nor in the group, and a name given twice', async () => {
    const on = await researchDesk();
    const [study] = group().with!;
    const missing = await refusal(decideReview(on, 'ada', group({ with: [study!] })));
    expect(missing.issues?.map((i) => [i.path.join('.'), i.message])).toEqual([
      [
        'with.0.fields.reportedIn.0',
        `${PUBLICATION} is not in this document's reviewed knowledge or in this decision: accept it first, or add it here`,
      ],
    ]);
    const twice = await refusal(
      decideReview(on, 'ada', group({ with: [...group().with!, { ...study!, text: 'Again.' }] })),
    );
    expect(twice.issues?.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['with.2.name', `${STUDY} is named twice in this decision`],
    ]);
    // A record of another kind than its name says is refused where it is.
    const misnamed = await refusal(
      decideReview(on, 'ada', group({ with: [{ ...study!, kind: 'publication' }, group().with![1]!] })),
    );
    const paths = misnamed.issues?.map((i) => i.path.join('.')) ?? [];
    expect(paths).toContain('with.0.name');
    expect(paths.filter((p) => !p.startsWith('with.0.'))).toEqual([]);
    expect(await on.reviewed.decisions('reef')).toEqual([]);
  });

  it('refuses records that reference each other in a circle, in words', async () => {
    const on = await desk([]);
    // A profile whose claims rest on other claims: nothing in its kinds stops a circle.
    const pack = createPack({
      name: 'claims',
      version: '1.0.0',
      title: 'Claims',
      description: 'Claims resting on claims.',
      kinds: {
        claim: {
          description: 'A claim.',
          fields: {
            says: { codec: { type: 'text', maxLength: 200 }, required: true, description: 'What it says.' },
            restsOn: {
              codec: { type: 'ref', kinds: ['claim'] },
              required: false,
              description: 'Its ground.',
            },
          },
          relations: {},
        },
      },
      example: { kind: 'claim', fields: { says: 'x' } },
    });
    await on.db.batch(
      [
        {
          sql: 'INSERT INTO profile_packs (digest, name, version, pack) VALUES (?, ?, ?, ?)',
          args: [pack.digest, pack.name, pack.version, packJson(pack)],
        },
        {
          sql: `INSERT INTO document_profiles (document_id, profile, version, digest, installed_by, installed_at)
                VALUES ('reef', 'claims', '1.0.0', ?, 'ada', '2026-01-01T00:00:00.000Z')`,
          args: [pack.digest],
        },
      ],
      'write',
    );
    const claim = (name: string, restsOn?: string) => ({
      kind: 'claim',
      name,
      text: name,
      fields: { says: name, ...(restsOn ? { restsOn } : {}) },
    });
    const main = {
      ...group(),
      profile: 'claims',
      ...claim('claim:a', 'claim:b'),
      with: [claim('claim:c', 'claim:a'), claim('claim:b', 'claim:c')],
    };
    const circle = await refusal(decideReview(on, 'ada', main));
    expect(circle.issues).toEqual([
      {
        path: ['fields', 'restsOn'],
        message:
          'claim:a would rest on itself: claim:a → claim:b → claim:c → claim:a; a reviewed record cannot depend on itself through others',
      },
    ]);
    expect(await on.reviewed.decisions('reef')).toEqual([]);
    // A record naming itself is no circle (as before), and the same group in a line is accepted.
    const line = await decideReview(on, 'ada', {
      ...main,
      ...claim('claim:a', 'claim:a'),
      with: [claim('claim:c'), claim('claim:b', 'claim:c')],
    });
    expect(line.revision).toBe(1);
  });

  it('a reject records the decision of each record, and no revision', async () => {
    const on = await researchDesk();
    const outcome = await decideReview(
      on,
      'ada',
      group({ decision: 'reject', comment: 'The survey does not say so.' }),
    );
    expect([outcome.revision, ...outcome.with.map((w) => w.revision)]).toEqual([null, null, null]);
    const decisions = await on.reviewed.decisions('reef');
    expect(decisions.map((d) => [d.name, d.decision]).sort()).toEqual([
      [FINDING, 'reject'],
      [PUBLICATION, 'reject'],
      [STUDY, 'reject'],
    ]);
    expect(await on.reviewed.latestRevision('reef')).toBe(0);
  });
});
