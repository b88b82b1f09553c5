/**
 * Reference fields become links: `depends_on`, or the record model's own relation when the pack
 * names the field's relation after it (so a `supports` answer includes it).
 */
import { getPack } from '@oh/profiles';
import type { Pack } from '@oh/profiles';
import { describe, expect, it } from 'vitest';
import { referenceLinks } from './links.ts';

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
