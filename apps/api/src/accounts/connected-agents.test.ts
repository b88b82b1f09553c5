/**
 * The parts of accounts/connected-agents.ts that need no server: how a self-registered client's name
 * is shown, and when a use is written (the HTTP behaviour is routers/connected-agents.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { LAST_USED_PRECISION_MS, clientName, useIsStale } from './connected-agents.ts';

describe('clientName', () => {
  it('shows a self-chosen name as one line, without bidi tricks, and never empty', () => {
    expect(clientName('Claude\u202Eedualc')).toBe('Claudeedualc');
    expect(clientName('Reading\nagent\t ')).toBe('Reading agent');
    expect(clientName('x'.repeat(300))).toHaveLength(100);
    expect(clientName('  ')).toBe('An unnamed agent');
    expect(clientName(null)).toBe('An unnamed agent');
  });
});

describe('useIsStale', () => {
  const now = new Date('2026-12-06T12:00:00.000Z');
  it('writes a first use, and another only a minute after the last', () => {
    expect(useIsStale(null, now)).toBe(true);
    expect(useIsStale(new Date(now.getTime() - 1_000).toISOString(), now)).toBe(false);
    expect(useIsStale(new Date(now.getTime() - LAST_USED_PRECISION_MS).toISOString(), now)).toBe(true);
    expect(useIsStale('not a time', now)).toBe(true);
  });
});
