import { describe, expect, it } from 'vitest';
import { show } from './checked.ts';
import { checkEnum } from './text.ts';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('show: a bad input in a message', () => {
  it('renders what JSON.stringify would, cut to 60 characters', () => {
    expect(show('cohort')).toBe('"cohort"');
    expect(show({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(show(12n)).toBe('12n');
    expect(show(undefined)).toBe('nothing');
    expect(show('x'.repeat(100))).toBe(`"${'x'.repeat(56)}...`);
  });

  it('shows a value nested 10^4 and 10^5 levels deep without running out of stack', () => {
    for (const depth of [10_000, 100_000]) {
      expect(show(nested(depth))).toBe('[[[[[[[["..."]]]]]]]]');
      // An enum's refusal words the value with show: it once threw a RangeError here.
      const refusal = checkEnum(nested(depth), { type: 'enum', values: ['cohort', 'trial'] });
      expect(refusal).toEqual({
        ok: false,
        issues: [{ path: [], message: '[[[[[[[["..."]]]]]]]] is not one of: cohort, trial' }],
      });
    }
  });
});
