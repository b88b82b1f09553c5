/**
 * The Memory panel's revision line and the review state of each working note (issue 39): which
 * revision of reviewed knowledge the session sees beside the document's newest one, and the
 * newest decision proposed from each note of that session, so a note already accepted shows it
 * and links to its record instead of offering *Propose for review* again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';
import type { RouterInputs } from './index.ts';

type DecideInput = RouterInputs['review']['decide'];

let s: TestServer;
let ada: string;
let doc: string;

const PASSAGE = 'The reef recovery report was published by the Western Cape survey team in 2021.';

beforeAll(async () => {
  [s, ada] = await startSignedIn('user-ada');
  doc = (await s.client(ada).documents.add.mutate({ title: 'Reef recovery', text: `Intro. ${PASSAGE} End.` }))
    .id;
  await s.client(ada).profiles.install.mutate({ documentId: doc, name: 'research' });
});
afterAll(() => s?.close());

/** A publication proposed from a note of a session (or from none). */
function publication(name: string, decision: 'accept' | 'reject', from?: { session: string; note: string }) {
  const input: DecideInput = {
    documentId: doc,
    profile: 'research',
    kind: 'publication',
    name,
    text: 'The reef recovery report.',
    fields: { title: 'Reef recovery report', status: 'published' },
    sourceDocumentId: doc,
    passage: PASSAGE,
    decision,
    comment: 'As the report says.',
    ...(from ? { fromSession: from.session, fromNote: from.note } : {}),
  };
  return s.client(ada).review.decide.mutate(input);
}

describe('memory.panel: revisions and what was decided from each note', () => {
  it('says the revision the session sees, the newest one, and the newest decision from each note', async () => {
    const run = await s.acceptRun(ada, { documentId: doc, mode: 'chat' });
    const session = run.sessionId!;
    await s.client(run.runToken).agent.remember.mutate({
      basedOn: 0,
      requestId: 'r-1',
      changes: [
        { op: 'add', name: 'lead:recovery-report', text: 'The survey team published a recovery report.' },
        { op: 'add', name: 'lead:second-report', text: 'A second report may exist.' },
        { op: 'add', name: 'todo:check-methods', text: 'Check the methods section.' },
      ],
    });
    const panel = () => s.client(ada).memory.panel.query({ documentId: doc, sessionId: session });

    const before = await panel();
    expect([before.reviewedRevision, before.latestRevision]).toEqual([0, 0]);
    expect(before.workingNotes.map((n) => n.review)).toEqual([null, null, null]);

    const accepted = await publication('publication:reef-recovery-report', 'accept', {
      session,
      note: 'lead:recovery-report',
    });
    await publication('publication:second-report', 'reject', { session, note: 'lead:second-report' });
    // A decision from no note, and one on another document's session, mark no note of this one.
    await publication('publication:unrelated', 'reject');

    const after = await panel();
    // The session keeps the revision it pinned; the panel says a newer one exists.
    expect([after.session?.pinnedRevision, after.reviewedRevision, after.latestRevision]).toEqual([0, 0, 1]);
    const reviews = Object.fromEntries(after.workingNotes.map((n) => [n.name, n.review]));
    expect(reviews).toEqual({
      'lead:recovery-report': {
        decision: 'accept',
        kind: 'publication',
        name: 'publication:reef-recovery-report',
        revision: accepted.revision,
        at: accepted.at,
      },
      'lead:second-report': {
        decision: 'reject',
        kind: 'publication',
        name: 'publication:second-report',
        revision: null,
        at: expect.any(String),
      },
      'todo:check-methods': null,
    });

    // The newest decision from a note is the one shown.
    const again = await publication('publication:recovery-report-2', 'reject', {
      session,
      note: 'lead:recovery-report',
    });
    const latest = (await panel()).workingNotes.find((n) => n.name === 'lead:recovery-report');
    expect(latest?.review).toMatchObject({ decision: 'reject', name: again.name, revision: null });
  });

  it('a new session sees the newest revision, and its notes carry none of an older session’s decisions', async () => {
    const run = await s.acceptRun(ada, { documentId: doc, mode: 'chat' });
    await s.client(run.runToken).agent.remember.mutate({
      basedOn: 0,
      requestId: 'r-1',
      changes: [{ op: 'add', name: 'lead:recovery-report', text: 'The same name as before.' }],
    });
    const panel = await s.client(ada).memory.panel.query({ documentId: doc, sessionId: run.sessionId! });
    expect([panel.reviewedRevision, panel.latestRevision]).toEqual([1, 1]);
    expect(panel.workingNotes[0]?.review).toBeNull();
    expect(panel.reviewedInView.map((r) => r.name)).toEqual(['publication:reef-recovery-report']);
  });
});
