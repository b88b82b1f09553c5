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
import { getPack } from '@oh/profiles';
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
