/**
 * Reference fields become links: `depends_on`, or the record model's own relation when the pack
 * names the field's relation after it (so a `supports` answer includes it).
 */
import { getPack } from '@oh/profiles';
import type { Pack } from '@oh/profiles';
import { describe, expect, it } from 'vitest';
import { cycleIssues, referenceLinks } from './links.ts';

describe('referenceLinks', () => {
  it('a finding depends on its sample and study, in the pack’s field order, with the relation beside', () => {
    const links = referenceLinks(getPack('research'), 'finding', {
      statement: 'x',
      study: 'study:s',
      sample: 'sample:n',
    });
    expect(links.map((l) => l.link)).toEqual(
      expect.arrayContaining([
        { rel: 'depends_on', to: 'study:s' },
        { rel: 'depends_on', to: 'sample:n' },
      ]),
    );
    expect(links.every((l) => l.relation !== null)).toBe(true);
  });

  it('a relation the pack names `supports` is a supports link', () => {
    const research = getPack('research');
    const finding = research.kinds.finding!;
    const [name, relation] = Object.entries(finding.relations).find(([, r]) => r.field === 'study')!;
    const renamed = Object.fromEntries(
      Object.entries(finding.relations).map(([n, r]) => (n === name ? ['supports', relation] : [n, r])),
    );
    const pack = {
      ...research,
      kinds: { ...research.kinds, finding: { ...finding, relations: renamed } },
    } as Pack;
    const links = referenceLinks(pack, 'finding', { statement: 'x', study: 'study:s' });
    expect(links).toEqual([
      { link: { rel: 'supports', to: 'study:s' }, path: ['study'], relation: 'supports' },
    ]);
  });
});

describe('cycleIssues', () => {
  const ref = (to: string, field = 'restsOn') => ({
    link: { rel: 'depends_on' as const, to },
    path: [field],
    relation: null,
  });

  it('finds a circle through a record in view, and not through the version the group replaces', () => {
    // In view: b rests on a. The group's new a rests on b: a → b → a.
    const view = [{ name: 'claim:b', links: [{ rel: 'depends_on' as const, to: 'claim:a' }] }];
    const circle = cycleIssues(view, [{ name: 'claim:a', refs: [ref('claim:b')] }]);
    expect(circle).toEqual([
      {
        record: 0,
        issue: {
          path: ['fields', 'restsOn'],
          message:
            'claim:a would rest on itself: claim:a → claim:b → claim:a; a reviewed record cannot depend on itself through others',
        },
      },
    ]);
    // The group also gives b a new version resting on c: the old link from b no longer counts.
    expect(
      cycleIssues(view, [
        { name: 'claim:a', refs: [ref('claim:b')] },
        { name: 'claim:b', refs: [ref('claim:c')] },
      ]),
    ).toEqual([]);
  });

  it('names each circle once, and a record naming itself is none', () => {
    const two = cycleIssues(
      [],
      [
        { name: 'claim:a', refs: [ref('claim:a'), ref('claim:b', 'also')] },
        { name: 'claim:b', refs: [ref('claim:a')] },
      ],
    );
    expect(two.map((c) => [c.record, c.issue.path])).toEqual([[0, ['fields', 'also']]]);
    expect(cycleIssues([], [{ name: 'claim:a', refs: [ref('claim:a')] }])).toEqual([]);
  });
});
