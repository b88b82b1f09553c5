import { describe, expect, it } from 'vitest';
import { recordDigest } from '@oh/memory';
import type { JsonValue, ReviewedRecord } from '@oh/memory';
import { revisionMarks, withMarks } from './marks.ts';

// The marks over records alone; store.test.ts covers them through Oh's store.

function rec(
  name: string,
  fields: Record<string, JsonValue>,
  depends: string[] = [],
  profile = 'research',
): ReviewedRecord {
  const kind = name.split(':')[0]!;
  const links = depends.map((to) => ({ rel: 'depends_on' as const, to }));
  const data = { profile, version: '1.0.0', fields };
  return {
    kind,
    name,
    text: name,
    data,
    links,
    digest: recordDigest({ kind, name, text: name, data, links }),
    documentId: 'doc:d',
    revision: 1,
    sourceDocumentId: 'doc:src',
    passage: 'p',
    reviewerId: 'user:r',
    decisionId: `dec-${name}`,
    comment: 'ok',
    createdAt: '2025-01-01T00:00:00.000Z',
  };
}

const publication = (name: string, status = 'published', versions?: JsonValue) =>
  rec(name, { title: 'T', status, ...(versions ? { versions } : {}) });
const study = (name: string, pub: string) =>
  rec(name, { title: 'S', design: 'cohort', reportedIn: [pub] }, [pub]);
const finding = (name: string, s: string, sample?: string) =>
  rec(name, { statement: 'F', study: s, ...(sample ? { sample } : {}) }, sample ? [s, sample] : [s]);
const sample = (name: string, s: string) => rec(name, { size: 3, population: 'p', study: s }, [s]);
const correction = (name: string, target: string, type = 'erratum') =>
  rec(name, { corrects: target, type, date: '2020-01-01', reason: 'r' }, [target]);

const reviewed = [
  publication('publication:p'),
  study('study:s', 'publication:p'),
  sample('sample:n', 'study:s'),
  finding('finding:f', 'study:s', 'sample:n'),
  finding('finding:other', 'study:t'),
];

describe('corrections and retractions in one revision', () => {
  it('nothing is marked without a correction or a retraction', () => {
    expect(revisionMarks(reviewed).size).toBe(0);
    expect(withMarks(reviewed).every((r) => r.marks?.length === 0)).toBe(true);
  });

  it('a correction marks what it corrects, itself, and what depends on the corrected record', () => {
    const marks = revisionMarks([...reviewed, correction('correction:c', 'study:s')]);
    expect(marks.get('correction:c')).toEqual([
      { reason: 'corrects', by: 'correction:c', target: 'study:s', path: ['correction:c', 'study:s'] },
    ]);
    expect(marks.get('study:s')).toEqual([
      { reason: 'corrected', by: 'correction:c', target: 'study:s', path: ['study:s'] },
    ]);
    expect(marks.get('sample:n')).toEqual([
      { reason: 'corrected', by: 'correction:c', target: 'study:s', path: ['sample:n', 'study:s'] },
    ]);
    // Shortest chain: finding:f depends on the study directly and through its sample.
    expect(marks.get('finding:f')).toEqual([
      { reason: 'corrected', by: 'correction:c', target: 'study:s', path: ['finding:f', 'study:s'] },
    ]);
    // Upstream and unrelated records are not touched.
    expect(marks.has('publication:p')).toBe(false);
    expect(marks.has('finding:other')).toBe(false);
  });

  it('a correction of type retraction retracts; a publication marked retracted retracts itself', () => {
    const byNotice = revisionMarks([...reviewed, correction('correction:r', 'finding:f', 'retraction')]);
    expect(byNotice.get('finding:f')).toEqual([
      { reason: 'retracted', by: 'correction:r', target: 'finding:f', path: ['finding:f'] },
    ]);
    expect(byNotice.has('study:s')).toBe(false);

    for (const retracted of [
      publication('publication:p', 'retracted'),
      publication('publication:p', 'published', [
        { status: 'published', date: '2019-01-01' },
        { status: 'retracted', date: '2021-01-01' },
      ]),
    ]) {
      const marks = revisionMarks([retracted, ...reviewed.slice(1)]);
      expect(marks.get('publication:p')).toEqual([
        { reason: 'retracted', by: 'publication:p', target: 'publication:p', path: ['publication:p'] },
      ]);
      expect(marks.get('finding:f')).toEqual([
        {
          reason: 'retracted',
          by: 'publication:p',
          target: 'publication:p',
          path: ['finding:f', 'study:s', 'publication:p'],
        },
      ]);
    }
  });

  it('only Research corrections and publications count, and only targets in view', () => {
    const otherProfile = rec('correction:x', { corrects: 'study:s', type: 'erratum' }, ['study:s'], 'house');
    const missing = correction('correction:gone', 'finding:not-in-view');
    const notRetracted = publication('publication:q', 'preprint', [
      { status: 'preprint', date: '2019-01-01' },
    ]);
    expect(revisionMarks([...reviewed, otherProfile, missing, notRetracted]).size).toBe(0);
  });

  it('a correction does not depend on what it corrects, so a second correction does not reach it', () => {
    const marks = revisionMarks([
      ...reviewed,
      correction('correction:a', 'finding:f'),
      correction('correction:b', 'finding:f'),
    ]);
    expect(marks.get('finding:f')?.map((m) => m.by)).toEqual(['correction:a', 'correction:b']);
    expect(marks.get('correction:a')?.map((m) => m.reason)).toEqual(['corrects']);
  });
});
