import { describe, expect, it } from 'vitest';
import { renderNote } from './render.ts';

describe('note rendering', () => {
  it('renders "kind name: text" and canonical data, deterministically', () => {
    const a = renderNote({ kind: 'finding', name: 'finding:x', text: 'Hello', data: { b: 1, a: [2, 'c'] } });
    const b = renderNote({ kind: 'finding', name: 'finding:x', text: 'Hello', data: { a: [2, 'c'], b: 1 } });
    expect(a).toBe('finding finding:x: Hello\n{"a":[2,"c"],"b":1}');
    expect(b).toBe(a);
    expect(renderNote({ kind: 'k', name: 'k:y', text: 'T', data: null })).toBe('k k:y: T');
    expect(renderNote({ kind: 'k', name: 'k:y', text: 'x'.repeat(20_000) }).length).toBe(8_000);
  });
});
