/**
 * The review workbench over real HTTP: a working note proposed, checked (installed profile, valid
 * fields, a readable source, a passage that occurs in it) and decided. Accept makes a new
 * revision that a NEW run's session sees as reviewed while an older session keeps its pin; reject
 * leaves no record but stays in the history; every refusal is a clean 4xx that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPack, getPack, packJson } from '@oh/profiles';
import type { Pack } from '@oh/profiles';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { errorOf } from './testing/harness.ts';
import type { Json, TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';
import type { RouterInputs } from './index.ts';

type DecideInput = RouterInputs['review']['decide'];

let s: TestServer;
let ada: string;
let grace: string;
let rosalind: string;
/** A run accepted before any review here: its session stays pinned at the seed's revision. */
let older: { runId: string; runToken: string; sessionId: string };

const NOTE = 'lead:grazers-drive-recovery';
/** In the reef document's text, on one line there; quoted here across a line break on purpose. */
const PASSAGE =
  'Sites with high densities of grazing fish regained a third\n   of their lost cover within four years';

function proposal(overrides: Partial<DecideInput> = {}): DecideInput {
  return {
    documentId: REEF_DOCUMENT_ID,
    fromSession: older.sessionId,
    fromNote: NOTE,
    profile: 'research',
    kind: 'finding',
    name: 'finding:grazers-drive-recovery',
    text: 'Reefs with many grazing fish regained a third of lost coral cover within four years.',
    fields: {
      statement:
        'Sites with high grazing-fish density regained a third of lost coral cover within four years.',
      study: 'study:reef-resurvey-2016',
      effect: { value: '33.3', unit: '%' },
      effectMeasure: 'percent-change',
    },
    sourceDocumentId: REEF_DOCUMENT_ID,
    passage: PASSAGE,
    decision: 'accept',
    comment: 'Stated in the results; matches the recovery figure.',
    ...overrides,
  };
}

/** The demo seed's reviewed records on the reef document, by name (revisions 1–4). */
const SEEDED = [
  'finding:bleaching-threshold',
  'publication:reef-recovery-2016',
  'sample:reef-sites-112',
  'study:reef-resurvey-2016',
];
/** In the reef document's text: what a publication and its study are cited by. */
const SURVEY_PASSAGE = 'We resurveyed 112 sites that had been mapped in 2015 and followed them through 2020.';

/**
 * Accepts the reef publication and its study on `documentId` (revisions +1, +2), so a finding
 * there can link to its study. Kinds and fields as every Research release has them.
 */
async function acceptStudy(documentId: string): Promise<void> {
  const base = {
    documentId,
    profile: 'research',
    sourceDocumentId: REEF_DOCUMENT_ID,
    passage: SURVEY_PASSAGE,
    decision: 'accept' as const,
    comment: 'As stated in the introduction.',
  };
  await s.client(ada).review.decide.mutate({
    ...base,
    kind: 'publication',
    name: 'publication:reef-recovery-2016',
    text: 'The reef recovery report.',
    fields: { title: 'Reef recovery after the 2016 bleaching', status: 'published' },
  });
  await s.client(ada).review.decide.mutate({
    ...base,
    kind: 'study',
    name: 'study:reef-resurvey-2016',
    text: 'The resurvey of 112 sites.',
    fields: { title: 'Reef resurvey', design: 'cohort', reportedIn: ['publication:reef-recovery-2016'] },
  });
}

const latest = () => s.app.reviewed.latestRevision(REEF_DOCUMENT_ID);
const historyLength = async () =>
  (await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID })).decisions.length;

beforeAll(async () => {
  [s, ada, grace, rosalind] = await startSignedIn('user-ada', 'user-grace', 'user-rosalind');
  const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
  older = { runId: run.runId, runToken: run.runToken, sessionId: run.sessionId! };
  await s.client(older.runToken).agent.remember.mutate({
    basedOn: 0,
    requestId: 'review-test-1',
    changes: [
      {
        op: 'add',
        name: NOTE,
        text: 'grazing fish density seems to decide recovery; a third of cover back in four years',
        data: { effect: { value: '33.3', unit: '%' } },
      },
    ],
  });
});
afterAll(() => s?.close());

describe('review.decide: accept', () => {
  it('accept → a new revision; a NEW run sees the finding as reviewed, the OLDER session keeps its revision', async () => {
    const before = await latest();
    expect(before).toBe(SEEDED.length); // the seed's publication, study, sample and finding
    expect((await s.client(older.runToken).agent.load.query()).session.pinnedRevision).toBe(before);

    const out = await s.client(ada).review.decide.mutate(proposal());
    expect(out).toMatchObject({
      decision: 'accept',
      name: 'finding:grazers-drive-recovery',
      kind: 'finding',
      revision: before + 1,
      latestRevision: before + 1,
      // Recorded whitespace-normalised.
      passage:
        'Sites with high densities of grazing fish regained a third of their lost cover within four years',
    });
    expect(out.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await latest()).toBe(before + 1);

    // A new run pins the newest revision and sees the finding as reviewed.
    const fresh = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(fresh.runToken);
    expect((await agent.agent.load.query()).session.pinnedRevision).toBe(before + 1);
    const current = await agent.agent.query.query({ question: 'current_notes' });
    expect(current.pinnedRevision).toBe(before + 1);
    expect(current.rows).toContainEqual(
      expect.objectContaining({
        source: 'reviewed',
        kind: 'finding',
        name: 'finding:grazers-drive-recovery',
        digest: out.digest,
      }),
    );
    const read = await agent.agent.read.query({ name: 'finding:grazers-drive-recovery' });
    expect(read).toMatchObject({
      source: 'reviewed',
      kind: 'finding',
      digest: out.digest,
      text: proposal().text,
      data: {
        profile: 'research',
        fields: {
          statement: proposal().fields.statement,
          study: 'study:reef-resurvey-2016',
          effect: { value: '33.3', unit: '%' },
          effectMeasure: 'percent-change',
        },
      },
    });

    // The older session still sees revision `before` only: no row, and read finds nothing.
    const old = s.client(older.runToken);
    const oldCurrent = await old.agent.query.query({ question: 'current_notes' });
    expect(oldCurrent.pinnedRevision).toBe(before);
    expect(oldCurrent.rows.filter((r) => r.source === 'reviewed').map((r) => r.name)).toEqual(SEEDED);
    const missing = await errorOf(
      old.agent.read.query({ name: 'finding:grazers-drive-recovery', source: 'reviewed' }),
    );
    expect([missing.code, missing.reason]).toEqual(['NOT_FOUND', 'no_such_note']);

    // The owner's panels say the same, with the reviewer's name and the decision.
    const newPanel = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: fresh.sessionId! });
    expect(newPanel.session?.pinnedRevision).toBe(before + 1);
    expect(newPanel.reviewedInView.find((r) => r.name === 'finding:grazers-drive-recovery')).toMatchObject({
      revision: before + 1,
      reviewerId: 'user-ada',
      reviewerName: 'Ada Lovelace',
      decision: 'accept',
      passage: out.passage,
      comment: proposal().comment,
      source: { documentId: REEF_DOCUMENT_ID, title: 'Reef recovery after the 2016 bleaching' },
    });
    const oldPanel = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: older.sessionId });
    expect(oldPanel.session?.pinnedRevision).toBe(before);
    expect(oldPanel.reviewedInView.map((r) => r.name)).toEqual(SEEDED);
    expect(oldPanel.reviewedInView[0]).toMatchObject({ reviewerName: 'Ada Lovelace', decision: 'accept' });
  });

  it('accepts a passage from another readable document of the library (a published one)', async () => {
    const before = await latest();
    const out = await s.client(ada).review.decide.mutate(
      proposal({
        fromSession: undefined,
        fromNote: undefined,
        kind: 'publication',
        name: 'publication:seagrass-carbon',
        text: 'Seagrass meadows bury a tenth of the organic carbon reaching marine sediments.',
        fields: { title: 'Seagrass meadows as carbon sinks', status: 'published' },
        sourceDocumentId: 'doc-seagrass-carbon',
        passage: 'bury a tenth of the organic carbon that reaches marine sediments each year',
      }),
    );
    expect(out.revision).toBe(before + 1);
    const history = await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID });
    expect(history.decisions[0]).toMatchObject({
      name: 'publication:seagrass-carbon',
      source: { documentId: 'doc-seagrass-carbon', title: 'Seagrass meadows as carbon sinks' },
    });
  });
});

describe('review.decide: a group in one decision', () => {
  /**
   * A finding from a note whose study and the study's publication are new: one call, as the
   * review dialog sends it. The study is listed before the publication it names.
   */
  function findingWithItsStudy(documentId: string, overrides: Partial<DecideInput> = {}): DecideInput {
    return proposal({
      documentId,
      fromSession: undefined,
      fromNote: undefined,
      name: 'finding:grazers-regained-a-third',
      fields: {
        statement: 'Sites with many grazing fish regained a third of lost coral cover within four years.',
        study: 'study:western-cape-reef-survey',
        effect: { value: '33.3', unit: '%' },
      },
      with: [
        {
          kind: 'study',
          name: 'study:western-cape-reef-survey',
          text: 'The resurvey of 112 reef sites.',
          fields: {
            title: 'Western Cape reef survey',
            design: 'cohort',
            reportedIn: ['publication:reef-recovery-report'],
          },
          passage: SURVEY_PASSAGE,
        },
        {
          kind: 'publication',
          name: 'publication:reef-recovery-report',
          text: 'The reef recovery report.',
          fields: { title: 'Reef recovery after the 2016 bleaching', status: 'published' },
          passage: SURVEY_PASSAGE,
        },
      ],
      ...overrides,
    });
  }

  /** A fresh document of Ada's with Research installed and nothing reviewed on it yet. */
  let doc: string;
  beforeAll(async () => {
    doc = (
      await s.client(ada).documents.add.mutate({ title: 'Kelp forests', text: 'Notes on kelp forests.' })
    ).id;
    await s.client(ada).profiles.install.mutate({ documentId: doc, name: 'research' });
  });

  it('a finding with its new study and publication, accepted in one call, is one revision holding the three', async () => {
    const before = await s.app.reviewed.latestRevision(doc);
    const out = await s.client(ada).review.decide.mutate(findingWithItsStudy(doc));
    expect(out).toMatchObject({
      name: 'finding:grazers-regained-a-third',
      revision: before + 1,
      latestRevision: before + 1,
      links: [{ rel: 'depends_on', to: 'study:western-cape-reef-survey' }],
    });
    expect(out.with.map((w) => [w.name, w.kind, w.revision])).toEqual([
      ['study:western-cape-reef-survey', 'study', before + 1],
      ['publication:reef-recovery-report', 'publication', before + 1],
    ]);
    expect(await s.app.reviewed.latestRevision(doc)).toBe(before + 1);
    const view = await s.app.reviewed.recordsAt(doc, before + 1);
    expect(view.filter((r) => r.revision === before + 1).map((r) => r.name)).toEqual([
      'finding:grazers-regained-a-third',
      'publication:reef-recovery-report',
      'study:western-cape-reef-survey',
    ]);
    const history = await s.client(ada).review.history.query({ documentId: doc });
    expect(history.decisions.filter((d) => d.revision === before + 1)).toHaveLength(3);
  });

  it('one bad record refuses the group, by its path, and writes nothing', async () => {
    const [rev, count] = [
      await s.app.reviewed.latestRevision(doc),
      (await s.client(ada).review.history.query({ documentId: doc })).decisions.length,
    ];
    const good = findingWithItsStudy(doc, { name: 'finding:second-look' });
    const [study, publication] = good.with!;
    const r = await s.call(
      'mutation',
      'review.decide',
      { ...good, with: [study, { ...publication, fields: { status: 'published' } }] },
      ada,
    );
    expect([r.status, r.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(r.error?.data.issues).toEqual([{ path: 'with.1.fields.title', message: 'required' }]);
    const twice = await s.call('mutation', 'review.decide', { ...good, with: [study, study] }, ada);
    expect([twice.status, twice.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(twice.error?.message).toMatch(/with\.1\.name: study:western-cape-reef-survey is named twice/);
    const nine = Array.from({ length: 9 }, (_, i) => ({ ...publication!, name: `publication:p${i}` }));
    const tooMany = await s.call('mutation', 'review.decide', { ...good, with: nine }, ada);
    expect([tooMany.status, tooMany.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect([
      await s.app.reviewed.latestRevision(doc),
      (await s.client(ada).review.history.query({ documentId: doc })).decisions.length,
    ]).toEqual([rev, count]);
  });
});

describe('review.decide: reject and history', () => {
  it('a reject records the decision only: no revision, no record, but it is in the history', async () => {
    const before = await latest();
    const out = await s.client(ada).review.decide.mutate(
      proposal({
        name: 'finding:grazers-only-factor',
        decision: 'reject',
        comment: 'The passage does not say grazers are the only factor.',
      }),
    );
    expect(out).toMatchObject({ decision: 'reject', revision: null, latestRevision: before });
    expect(await latest()).toBe(before);
    const records = await s.app.reviewed.recordsAt(REEF_DOCUMENT_ID, before);
    expect(records.map((r) => r.name)).not.toContain('finding:grazers-only-factor');
    const fresh = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const miss = await errorOf(
      s.client(fresh.runToken).agent.read.query({ name: 'finding:grazers-only-factor' }),
    );
    expect(miss.reason).toBe('no_such_note');

    const history = await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID });
    expect(history.latestRevision).toBe(before);
    expect(history.decisions[0]).toMatchObject({
      id: out.id,
      name: 'finding:grazers-only-factor',
      kind: 'finding',
      decision: 'reject',
      comment: 'The passage does not say grazers are the only factor.',
      reviewerId: 'user-ada',
      reviewerName: 'Ada Lovelace',
      revision: null,
      passage: out.passage,
      source: { documentId: REEF_DOCUMENT_ID, title: 'Reef recovery after the 2016 bleaching' },
    });
    // Newest first, every decision kept: the seed's first accept is the oldest.
    const at = history.decisions.map((d) => d.at);
    expect([...at].sort().reverse()).toEqual(at);
    expect(history.decisions.at(-1)).toMatchObject({
      name: 'publication:reef-recovery-2016',
      decision: 'accept',
      revision: 1,
    });
    expect(history.decisions.filter((d) => d.decision === 'accept').map((d) => d.revision)).toEqual(
      Array.from({ length: before }, (_, i) => before - i),
    );
  });
});

describe('review.decide: refusals change nothing', () => {
  /** Runs the call, expects the refusal, and checks that no revision or decision appeared. */
  async function refused(input: unknown, token = ada) {
    const [rev, count] = [await latest(), await historyLength()];
    const r = await s.call('mutation', 'review.decide', input, token);
    expect(r.ok).toBe(false);
    expect(r.status).toBeLessThan(500);
    expect([await latest(), await historyLength()]).toEqual([rev, count]);
    return r;
  }

  it('a passage that does not occur in the source is refused', async () => {
    const r = await refused(
      proposal({ passage: 'Sites with high densities of grazing fish regained all of their lost cover' }),
    );
    expect([r.status, r.error?.data.code, r.error?.data.reason]).toEqual([
      400,
      'BAD_REQUEST',
      'invalid_input',
    ]);
    expect(r.error?.message).toMatch(/passage not found in the source/);
    expect(r.error?.data.issues).toEqual([{ path: 'passage', message: 'passage not found in the source' }]);
    // A real passage of ANOTHER document is not in this source either.
    const other = await refused(proposal({ passage: 'bury a tenth of the organic carbon' }));
    expect(other.error?.data.issues).toEqual([
      { path: 'passage', message: 'passage not found in the source' },
    ]);
  });

  it('no reviewed record without a source and a passage: notes are never evidence', async () => {
    const blank = await refused(proposal({ passage: ' \n\t ' }));
    expect(blank.error?.data.issues).toEqual([{ path: 'passage', message: 'passage must not be empty' }]);
    const { passage: _p, ...noPassage } = proposal();
    expect((await refused(noPassage)).error?.data.reason).toBe('invalid_input');
    const { sourceDocumentId: _s, ...noSource } = proposal();
    expect((await refused(noSource)).error?.data.reason).toBe('invalid_input');
    // The session's own note text is no source: the note's name is not a document.
    const asSource = await refused(proposal({ sourceDocumentId: NOTE }));
    expect([asSource.status, asSource.error?.data.reason]).toEqual([404, 'not_found']);
  });

  it('invalid fields are refused with the path of every problem', async () => {
    const r = await refused(
      proposal({
        fields: {
          study: 'sample:reef-sites-112',
          effect: { value: '1.1.1', unit: '%' },
          pValue: 2,
          colour: 'blue',
        },
      }),
    );
    expect([r.status, r.error?.data.reason]).toEqual([400, 'invalid_input']);
    const paths = (r.error?.data.issues as Json[]).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'fields.statement',
        'fields.study',
        'fields.effect.value',
        'fields.pValue',
        'fields.colour',
      ]),
    );
    expect(r.error?.message).toMatch(/fields\.statement/);
    expect(r.error?.message).toMatch(/fields\.study/);
    // A field the record parser would silently drop is refused instead.
    const proto = await refused(
      proposal({ fields: JSON.parse('{"statement": "s", "__proto__": {"statement": "t"}}') }),
    );
    expect(proto.error?.data.issues).toEqual([
      { path: 'fields.__proto__', message: 'the field name "__proto__" is not allowed' },
    ]);
  });

  it('the kind must belong to a profile installed on the document, and the name must be of that kind', async () => {
    const notInstalled = await refused(proposal({ profile: 'finance', kind: 'metric', name: 'metric:x' }));
    expect(notInstalled.error?.data.issues).toEqual([
      { path: 'profile', message: 'the finance profile is not installed on this document' },
    ]);
    const notAKind = await refused(proposal({ kind: 'term', name: 'term:x' }));
    expect((notAKind.error?.data.issues as Json[]).map((i) => i.path)).toEqual(['kind']);
    const unknownProfile = await refused(proposal({ profile: 'astrology' }));
    expect((unknownProfile.error?.data.issues as Json[]).map((i) => i.path)).toEqual(['profile']);
    const wrongName = await refused(proposal({ name: 'lead:grazers' }));
    expect(wrongName.error?.data.issues).toEqual([
      { path: 'name', message: 'a finding record is named finding:slug, got lead:grazers' },
    ]);
    const noComment = await refused(proposal({ comment: '  ' }));
    expect((noComment.error?.data.issues as Json[]).map((i) => i.path)).toEqual(['comment']);
    const noText = await refused(proposal({ text: '' }));
    expect((noText.error?.data.issues as Json[]).map((i) => i.path)).toEqual(['text']);
    const badName = await refused(proposal({ name: 'Finding:X' }));
    expect(badName.error?.data.reason).toBe('invalid_input');
    const unknownField = await refused({ ...proposal(), author: 'agent' });
    expect(unknownField.error?.data.reason).toBe('invalid_input');
  });

  it('the source must be readable by the owner; the proposing note must be in one of the document’s sessions', async () => {
    // Grace's unpublished, unshared document.
    const hidden = await refused(
      proposal({ sourceDocumentId: 'doc-larval-connectivity', passage: 'Most coral larvae settle' }),
    );
    expect([hidden.status, hidden.error?.data.reason]).toEqual([404, 'not_found']);
    const noNote = await refused(proposal({ fromNote: 'lead:never-written' }));
    expect([noNote.status, noNote.error?.data.reason]).toEqual([404, 'not_found']);
    const other = await s.acceptRun(ada, { documentId: 'doc-sea-surface-temperature', mode: 'chat' });
    const foreignSession = await refused(proposal({ fromSession: other.sessionId! }));
    expect([foreignSession.status, foreignSession.error?.data.reason]).toEqual([404, 'not_found']);
    const half = await refused(proposal({ fromSession: undefined }));
    expect(half.error?.data.reason).toBe('invalid_input');
  });

  it('only the owner decides or reads the history: others NOT_FOUND, other credentials refused', async () => {
    const key = (await s.client(ada).auth.createApiKey.mutate({ label: 'review test' })).apiKey;
    for (const token of [grace, rosalind]) {
      const r = await refused(proposal(), token);
      expect([r.status, r.error?.data.code, r.error?.data.reason]).toEqual([404, 'NOT_FOUND', 'not_found']);
      const h = await s.call('query', 'review.history', { documentId: REEF_DOCUMENT_ID }, token);
      expect([h.status, h.error?.data.reason]).toEqual([404, 'not_found']);
      expect(h.text).not.toContain('grazers');
    }
    expect((await refused(proposal(), key)).error?.data.reason).toBe('forbidden');
    expect((await refused(proposal(), older.runToken)).error?.data.reason).toBe('forbidden');
    const anonymous = await s.call('mutation', 'review.decide', proposal());
    expect([anonymous.status, anonymous.error?.data.reason]).toEqual([401, 'unauthenticated']);
  });
});

describe('review.decide: the profile release installed on the document decides', () => {
  /**
   * Research as an earlier release shipped it: effects were ratios only (unit 1), and findings had
   * a confidence. The newest release takes any UCUM unit and has no confidence.
   */
  function olderResearch(version = '0.9.0'): Pack {
    const { digest: _digest, ...newest } = getPack('research');
    const finding = newest.kinds.finding!;
    return createPack({
      ...newest,
      version,
      kinds: {
        ...newest.kinds,
        finding: {
          ...finding,
          fields: {
            ...finding.fields,
            effect: { ...finding.fields.effect!, codec: { type: 'quantity', units: ['1'] } },
            confidence: {
              codec: { type: 'enum', values: ['low', 'moderate', 'high'] },
              required: false,
              description: 'How sure the authors are.',
            },
          },
        },
      },
      example: {
        kind: 'finding',
        fields: { ...newest.example.fields, effect: { value: '-4.1', unit: '1' } },
      },
    });
  }

  /** What an install by the earlier release left behind: its row and, unless `kept` is false, its pack. */
  async function installedEarlier(documentId: string, pack: Pack, kept = true) {
    await s.app.app.batch(
      [
        ...(kept
          ? [
              {
                sql: 'INSERT INTO profile_packs (digest, name, version, pack) VALUES (?, ?, ?, ?)',
                args: [pack.digest, pack.name, pack.version, packJson(pack)],
              },
            ]
          : []),
        {
          sql: `INSERT INTO document_profiles (document_id, profile, version, digest, installed_by, installed_at)
                VALUES (?, ?, ?, ?, 'user-ada', '2024-01-01T00:00:00.000Z')`,
          args: [documentId, pack.name, pack.version, pack.digest],
        },
      ],
      'write',
    );
  }

  /** A decision's data as on record (the history keeps it for rejects too). */
  const decisionData = async (id: string): Promise<{ version: string }> => {
    const rs = await s.app.app.execute({
      sql: 'SELECT data FROM reviewed_decisions WHERE id = ?',
      args: [id],
    });
    const data = rs.rows[0]?.data;
    if (typeof data !== 'string') throw new Error(`decision ${id} has no data`);
    return JSON.parse(data) as { version: string };
  };

  it('validates with the older installed release, names it on record, and with the newest one once reinstalled', async () => {
    const doc = 'doc-survey-methods';
    const older = olderResearch();
    await installedEarlier(doc, older);
    const c = s.client(ada);
    expect(await c.profiles.installed.query({ documentId: doc })).toEqual([
      expect.objectContaining({ name: 'research', version: '0.9.0', digest: older.digest, current: false }),
    ]);

    await acceptStudy(doc);
    const onDoc = (overrides: Partial<DecideInput>) =>
      proposal({
        documentId: doc,
        fromSession: undefined,
        fromNote: undefined,
        name: 'finding:grazers-then',
        ...overrides,
      });
    // Valid for the newest release, not for the installed one: a percentage was not an effect then.
    const percent = await s.call('mutation', 'review.decide', onDoc({}), ada);
    expect([percent.status, percent.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(percent.error?.data.issues).toEqual([
      { path: 'fields.effect.unit', message: 'unit "%" is not one of: 1' },
    ]);
    expect(await s.app.reviewed.latestRevision(doc)).toBe(2);

    // Valid for the installed release only: it had a confidence.
    const thenFields = {
      statement: 'Sites with many grazing fish regained a third of lost coral cover.',
      study: 'study:reef-resurvey-2016',
      effect: { value: '0.333', unit: '1' },
      confidence: 'high',
    };
    const accepted = await c.review.decide.mutate(onDoc({ fields: thenFields }));
    expect(accepted.revision).toBe(3);
    expect(accepted.profile).toEqual({ name: 'research', version: '0.9.0', digest: older.digest });
    const record = (await s.app.reviewed.recordsAt(doc, 3)).find((r) => r.name === 'finding:grazers-then');
    expect(record!.data).toEqual({ profile: 'research', version: '0.9.0', fields: thenFields });
    // A reject is on record with the release that checked it too.
    const rejected = await c.review.decide.mutate(
      onDoc({
        name: 'finding:grazers-doubt',
        fields: thenFields,
        decision: 'reject',
        comment: 'Too few sites.',
      }),
    );
    expect((await decisionData(rejected.id)).version).toBe('0.9.0');

    // Installing again takes the newest release; from then on it decides.
    const newest = getPack('research');
    expect(await c.profiles.install.mutate({ documentId: doc, name: 'research' })).toMatchObject({
      version: newest.version,
      digest: newest.digest,
    });
    const confidence = await s.call(
      'mutation',
      'review.decide',
      onDoc({ name: 'finding:grazers-now', fields: thenFields }),
      ada,
    );
    expect((confidence.error?.data.issues as Json[]).map((i) => i.path)).toEqual(['fields.confidence']);
    const now = await c.review.decide.mutate(onDoc({ name: 'finding:grazers-now' }));
    expect((await decisionData(now.id)).version).toBe(newest.version);
    // The earlier decisions still name the release that validated them.
    expect((await decisionData(accepted.id)).version).toBe('0.9.0');
  });

  it('an older release installed before packs were kept is refused with a way out, and not offered', async () => {
    const doc = 'doc-sea-surface-temperature';
    await installedEarlier(doc, olderResearch('0.8.0'), false);
    expect(await s.client(ada).profiles.installed.query({ documentId: doc })).toEqual([]);
    const r = await s.call(
      'mutation',
      'review.decide',
      proposal({ documentId: doc, fromSession: undefined, fromNote: undefined }),
      ada,
    );
    expect([r.status, r.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(r.error?.data.issues).toEqual([
      {
        path: 'profile',
        message:
          'version 0.8.0 of the research profile, installed on this document, is no longer available: install the profile again to review with its current version',
      },
    ]);
    await s.client(ada).profiles.install.mutate({ documentId: doc, name: 'research' });
    await acceptStudy(doc);
    const out = await s
      .client(ada)
      .review.decide.mutate(proposal({ documentId: doc, fromSession: undefined, fromNote: undefined }));
    expect(out.decision).toBe('accept');
  });
});
