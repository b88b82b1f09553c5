/**
 * Reviewed knowledge to the standards (issue 18 §4–7) over real HTTP: reference fields become
 * links checked on accept and answered by related_to; corrections and retractions mark what they
 * touch in the panel and in the agent's rows without replacing it; the history names the profile
 * release and shows the record as accepted; the export carries every record with its provenance
 * as canonical JSON whose digests recompute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, recordDigest } from '@oh/memory';
import { getPack } from '@oh/profiles';
import type { JsonValue } from '@oh/memory';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { errorOf } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';
import type { RouterInputs } from './index.ts';

type DecideInput = RouterInputs['review']['decide'];

let s: TestServer;
let ada: string;
let grace: string;
let rosalind: string;

const RESEARCH = getPack('research');
/** Sentences of the reef document's text. */
const SURVEY = 'We resurveyed 112 sites that had been mapped in 2015 and followed them through 2020.';
const RECOVERY =
  'Sites with high densities of grazing fish regained a third of their lost cover within four years';

function decide(
  kind: string,
  name: string,
  fields: Record<string, unknown>,
  extra: Partial<DecideInput> = {},
) {
  return s.client(ada).review.decide.mutate(input(kind, name, fields, extra));
}

function input(
  kind: string,
  name: string,
  fields: Record<string, unknown>,
  extra: Partial<DecideInput> = {},
): DecideInput {
  return {
    documentId: REEF_DOCUMENT_ID,
    profile: 'research',
    kind,
    name,
    text: `The ${name} record.`,
    fields,
    sourceDocumentId: REEF_DOCUMENT_ID,
    passage: RECOVERY,
    decision: 'accept' as const,
    comment: `Checked ${name} against the results.`,
    ...extra,
  };
}

const latest = () => s.app.reviewed.latestRevision(REEF_DOCUMENT_ID);
const historyLength = async () =>
  (await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID })).decisions.length;
const newPanel = async (documentId = REEF_DOCUMENT_ID) => {
  const run = await s.acceptRun(ada, { documentId, mode: 'chat' });
  const panel = await s.client(ada).memory.panel.query({ documentId, sessionId: run.sessionId! });
  return { run, panel, row: (name: string) => panel.reviewedInView.find((r) => r.name === name)! };
};

beforeAll(
  async () => ([s, ada, grace, rosalind] = await startSignedIn('user-ada', 'user-grace', 'user-rosalind')),
);
afterAll(() => s?.close());

describe('links: reference fields become depends_on links, checked on accept', () => {
  it('a finding links to its study and sample; the agent and the panel see the links', async () => {
    const out = await decide('finding', 'finding:grazers', {
      statement: 'Grazing fish density decided recovery.',
      study: 'study:reef-resurvey-2016',
      sample: 'sample:reef-sites-112',
    });
    expect(out.links).toEqual([
      { rel: 'depends_on', to: 'sample:reef-sites-112' },
      { rel: 'depends_on', to: 'study:reef-resurvey-2016' },
    ]);
    const { run, row } = await newPanel();
    expect(row('finding:grazers')).toMatchObject({ links: out.links, digest: out.digest });
    const agent = s.client(run.runToken).agent;
    const related = await agent.query.query({ question: 'related_to', name: 'study:reef-resurvey-2016' });
    expect(related.rows.map((r) => r.name)).toEqual([
      'finding:bleaching-threshold',
      'finding:grazers',
      'publication:reef-recovery-2016',
      'sample:reef-sites-112',
    ]);
    const why = await agent.explain.query({ token: related.explainToken, row: 1 });
    expect(why.reason).toMatch(/^finding:grazers has a depends_on link to study:reef-resurvey-2016/);
    // The links are read back as part of the record, and digested with it.
    const read = await agent.read.query({ name: 'finding:grazers' });
    expect(read.links).toEqual(out.links);
    // supports answers supports links only: a dependency is not support.
    const supports = await agent.query.query({ question: 'supports', name: 'study:reef-resurvey-2016' });
    expect(supports.rows).toEqual([]);
  });

  it('an accept naming a record not yet reviewed is refused, naming the field and the record; nothing is written', async () => {
    const [rev, count] = [await latest(), await historyLength()];
    const r = await s.call(
      'mutation',
      'review.decide',
      input('finding', 'finding:orphan', {
        statement: 'A finding of an unreviewed sample.',
        study: 'study:reef-resurvey-2016',
        sample: 'sample:not-reviewed',
      }),
      ada,
    );
    expect([r.status, r.error?.data.code, r.error?.data.reason]).toEqual([
      400,
      'BAD_REQUEST',
      'invalid_input',
    ]);
    expect(r.error?.data.issues).toEqual([
      {
        path: 'fields.sample',
        message: `sample:not-reviewed is not in this document's reviewed knowledge or in this decision: accept it first, or add it here`,
      },
    ]);
    expect(r.error?.message).toMatch(/fields\.sample: sample:not-reviewed is not in/);
    expect([await latest(), await historyLength()]).toEqual([rev, count]);

    // A reviewed record of ANOTHER document is not this document's.
    const elsewhere = await s.call(
      'mutation',
      'review.decide',
      input('study', 'study:elsewhere', {
        title: 'S',
        design: 'cohort',
        reportedIn: ['publication:seagrass'],
      }),
      ada,
    );
    expect(elsewhere.error?.data.issues).toEqual([
      {
        path: 'fields.reportedIn.0',
        message: `publication:seagrass is not in this document's reviewed knowledge or in this decision: accept it first, or add it here`,
      },
    ]);

    // A reject is a decision only: it keeps the links the fields named, checked or not.
    const rejected = await decide(
      'finding',
      'finding:orphan',
      {
        statement: 'A finding of an unreviewed sample.',
        study: 'study:reef-resurvey-2016',
        sample: 'sample:not-reviewed',
      },
      { decision: 'reject', comment: 'The sample is not reviewed.' },
    );
    expect(rejected).toMatchObject({
      revision: null,
      links: [
        { rel: 'depends_on', to: 'sample:not-reviewed' },
        { rel: 'depends_on', to: 'study:reef-resurvey-2016' },
      ],
    });
  });

  it('a record links to at most 16 records', async () => {
    const reportedIn = Array.from({ length: 17 }, (_, i) => `publication:p${i}`);
    const r = await s.call(
      'mutation',
      'review.decide',
      input('study', 'study:many', { title: 'S', design: 'cohort', reportedIn }, { decision: 'reject' }),
      ada,
    );
    expect(r.error?.data.issues).toEqual([
      { path: 'fields', message: 'these fields reference 17 records; a reviewed record links to at most 16' },
    ]);
  });
});

describe('corrections and retractions are marked, never replace a record', () => {
  it('a correction of a finding marks it and what depends on it, in the panel and in the agent’s rows', async () => {
    const before = await newPanel();
    const finding = await decide('finding', 'finding:recovery-third', {
      statement: 'Sites with many grazers regained a third of lost cover.',
      study: 'study:reef-resurvey-2016',
    });
    const note = await decide('finding', 'finding:recovery-fast', {
      statement: 'Branching corals made most of the regained cover.',
      study: 'study:reef-resurvey-2016',
    });
    expect(note.revision).toBe(finding.revision! + 1);
    const correction = await decide('correction', 'correction:recovery-third-erratum', {
      corrects: 'finding:recovery-third',
      type: 'corrigendum',
      date: '2021-03-04',
      reason: 'A third of the lost cover, not of the original cover.',
    });
    expect(correction.links).toEqual([{ rel: 'depends_on', to: 'finding:recovery-third' }]);

    const { run, row } = await newPanel();
    // The corrected finding stays as it was accepted, with the mark.
    expect(row('finding:recovery-third')).toMatchObject({
      digest: finding.digest,
      revision: finding.revision,
      conflicts: [{ source: 'reviewed', name: 'correction:recovery-third-erratum', reason: 'corrected' }],
    });
    expect(row('correction:recovery-third-erratum').conflicts).toEqual([
      { source: 'reviewed', name: 'finding:recovery-third', reason: 'corrects' },
    ]);
    expect(row('finding:recovery-fast').conflicts).toEqual([]);

    // The agent's rows: both ends of the conflict, marked on each other.
    const agent = s.client(run.runToken).agent;
    const conflicts = await agent.query.query({ question: 'conflicts' });
    const at = (name: string) => conflicts.rows.find((r) => r.name === name)!;
    expect(at('finding:recovery-third').conflicts).toEqual([at('correction:recovery-third-erratum').row]);
    expect(at('correction:recovery-third-erratum').conflicts).toEqual([at('finding:recovery-third').row]);
    expect((await agent.read.query({ name: 'finding:recovery-third' })).digest).toBe(finding.digest);

    // A session pinned before the correction does not see it.
    const old = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: before.run.sessionId! });
    expect(old.reviewedInView.every((r) => r.conflicts.length === 0)).toBe(true);
  });

  it('a publication marked retracted marks every record depending on it, through its links', async () => {
    const doc = 'doc-survey-methods';
    await s.client(ada).profiles.install.mutate({ documentId: doc, name: 'research' });
    const on = (kind: string, name: string, fields: Record<string, unknown>) =>
      decide(kind, name, fields, { documentId: doc, passage: SURVEY });
    await on('publication', 'publication:survey', { title: 'Survey', status: 'published' });
    await on('study', 'study:survey', { title: 'S', design: 'cohort', reportedIn: ['publication:survey'] });
    const finding = await on('finding', 'finding:survey', { statement: 'F', study: 'study:survey' });
    await on('publication', 'publication:survey', {
      title: 'Survey',
      status: 'retracted',
      versions: [
        { status: 'published', date: '2019-05-01' },
        { status: 'retracted', date: '2022-01-10', note: 'Data could not be verified.' },
      ],
    });
    // Without a session the panel shows what a new one would see: the newest revision.
    const panel = await s.client(ada).memory.panel.query({ documentId: doc });
    const row = (name: string) => panel.reviewedInView.find((r) => r.name === name)!;
    expect(row('publication:survey').conflicts).toEqual([
      { source: 'reviewed', name: 'publication:survey', reason: 'retracted' },
    ]);
    expect(row('study:survey').conflicts).toEqual([
      { source: 'reviewed', name: 'publication:survey', reason: 'retracted', via: 'publication:survey' },
    ]);
    expect(row('finding:survey')).toMatchObject({
      digest: finding.digest,
      conflicts: [
        { source: 'reviewed', name: 'publication:survey', reason: 'retracted', via: 'publication:survey' },
      ],
    });
  });
});

describe('history: the decision as accepted, under which profile release', () => {
  it('each decision has the profile, its version and digest, the fields, links, passage, reviewer and comment', async () => {
    const history = await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID });
    const d = history.decisions.find((x) => x.name === 'finding:grazers')!;
    expect(d).toMatchObject({
      kind: 'finding',
      decision: 'accept',
      comment: 'Checked finding:grazers against the results.',
      reviewerId: 'user-ada',
      reviewerName: 'Ada Lovelace',
      profile: { name: 'research', version: RESEARCH.version, digest: RESEARCH.digest },
      text: 'The finding:grazers record.',
      // Canonical: keys sorted, as stored.
      fields: {
        sample: 'sample:reef-sites-112',
        statement: 'Grazing fish density decided recovery.',
        study: 'study:reef-resurvey-2016',
      },
      links: [
        { rel: 'depends_on', to: 'sample:reef-sites-112' },
        { rel: 'depends_on', to: 'study:reef-resurvey-2016' },
      ],
      passage: RECOVERY,
      source: { documentId: REEF_DOCUMENT_ID, title: 'Reef recovery after the 2016 bleaching' },
    });
    expect(Object.keys(d.fields!)).toEqual(['sample', 'statement', 'study']);
    // What the history shows is what the digest covers.
    const data = { profile: d.profile!.name, version: d.profile!.version, fields: d.fields } as JsonValue;
    expect(recordDigest({ kind: d.kind, name: d.name, text: d.text, data, links: d.links })).toBe(d.digest);
    // Rejected decisions show their fields and links too.
    const rejected = history.decisions.find((x) => x.name === 'finding:orphan')!;
    expect(rejected).toMatchObject({ decision: 'reject', revision: null, profile: { name: 'research' } });
    expect(rejected.links.map((l) => l.to)).toContain('sample:not-reviewed');
  });

  it('a value a codec rewrote is reported with the outcome; nothing rewritten reports []', async () => {
    const plain = await decide('method', 'method:transects', { name: 'Line transects' });
    expect(plain.normalized).toEqual([]);
    const out = await decide('publication', 'publication:uk-report', {
      title: 'A report',
      status: 'published',
      language: 'en-UK',
    });
    expect(out.normalized).toEqual([
      { path: 'language', from: 'en-UK', to: 'en-GB', why: expect.any(String) },
    ]);
    const [d] = (await s.client(ada).review.history.query({ documentId: REEF_DOCUMENT_ID })).decisions;
    expect(d).toMatchObject({ name: 'publication:uk-report', fields: { language: 'en-GB' } });
  });
});

describe('export with provenance', () => {
  type Exported = {
    format: string;
    document: { id: string; title: string };
    revision: number;
    exportedAt: string;
    records: Array<{
      name: string;
      kind: string;
      text: string;
      data: JsonValue;
      links: Array<{ rel: 'depends_on' | 'supports' | 'contradicts'; to: string }>;
      digest: string;
      fromRevision: number;
      source: { documentId: string; title: string | null };
      passage: string;
      decision: { id: string; reviewer: { id: string; name: string | null }; comment: string; at: string };
      profile: { name: string; version: string; digest: string | null } | null;
      marks: Array<{ reason: string; by: string; target: string; path: string[] }>;
    }>;
  };

  it('the newest revision as canonical JSON: every digest recomputes, every record has its provenance', async () => {
    const out = await s.client(ada).review.export.query({ documentId: REEF_DOCUMENT_ID });
    expect(out.filename).toMatch(/^reef-recovery-after-the-2016-bleaching-reviewed-knowledge-rev\d+\.json$/);
    const doc = JSON.parse(out.json) as Exported;
    expect(canonicalJson(doc)).toBe(out.json);
    const newest = await latest();
    expect(doc).toMatchObject({
      format: 'sponge-reviewed-knowledge/1',
      document: { id: REEF_DOCUMENT_ID, title: 'Reef recovery after the 2016 bleaching' },
      revision: newest,
    });
    const inView = await s.app.reviewed.recordsAt(REEF_DOCUMENT_ID, newest);
    expect(doc.records.map((r) => r.name)).toEqual(inView.map((r) => r.name));
    for (const r of doc.records) {
      expect(recordDigest({ kind: r.kind, name: r.name, text: r.text, data: r.data, links: r.links })).toBe(
        r.digest,
      );
      expect(r.digest).toBe(inView.find((x) => x.name === r.name)!.digest);
      expect(r.profile).toEqual({ name: 'research', version: RESEARCH.version, digest: RESEARCH.digest });
      expect(r.decision.reviewer).toEqual({ id: 'user-ada', name: 'Ada Lovelace' });
      expect(r.source.title).not.toBeNull();
      expect(r.passage.length).toBeGreaterThan(0);
    }
    const finding = doc.records.find((r) => r.name === 'finding:bleaching-threshold')!;
    expect(finding).toMatchObject({
      fromRevision: 4,
      source: { documentId: REEF_DOCUMENT_ID, title: 'Reef recovery after the 2016 bleaching' },
      decision: { comment: 'Matches Table 2 of the survey; threshold stated in the results.' },
      links: [
        { rel: 'depends_on', to: 'sample:reef-sites-112' },
        { rel: 'depends_on', to: 'study:reef-resurvey-2016' },
      ],
    });
    // The corrected finding is exported as accepted, with its mark.
    expect(doc.records.find((r) => r.name === 'finding:recovery-third')?.marks).toEqual([
      {
        reason: 'corrected',
        by: 'correction:recovery-third-erratum',
        target: 'finding:recovery-third',
        path: ['finding:recovery-third'],
      },
    ]);
  });

  it('an earlier revision exports what was in view then; a revision not made yet is refused', async () => {
    const first = JSON.parse(
      (await s.client(ada).review.export.query({ documentId: REEF_DOCUMENT_ID, revision: 1 })).json,
    ) as Exported;
    expect(first.records.map((r) => r.name)).toEqual(['publication:reef-recovery-2016']);
    const none = JSON.parse(
      (await s.client(ada).review.export.query({ documentId: REEF_DOCUMENT_ID, revision: 0 })).json,
    ) as Exported;
    expect(none).toMatchObject({ revision: 0, records: [] });
    const ahead = await errorOf(
      s.client(ada).review.export.query({ documentId: REEF_DOCUMENT_ID, revision: (await latest()) + 1 }),
    );
    expect([ahead.code, ahead.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(ahead.message).toMatch(/does not exist; the newest revision of this document is \d+/);
  });

  it('only the owner exports: another owner and a reader of a shared document get NOT_FOUND', async () => {
    for (const token of [grace, rosalind]) {
      const r = await s.call('query', 'review.export', { documentId: REEF_DOCUMENT_ID }, token);
      expect([r.status, r.error?.data.code, r.error?.data.reason]).toEqual([404, 'NOT_FOUND', 'not_found']);
      expect(r.text).not.toContain('bleaching-threshold');
    }
    const key = (await s.client(ada).auth.createApiKey.mutate({ label: 'export test' })).apiKey;
    const byKey = await s.call('query', 'review.export', { documentId: REEF_DOCUMENT_ID }, key);
    expect(byKey.error?.data.reason).toBe('forbidden');
  });
});
