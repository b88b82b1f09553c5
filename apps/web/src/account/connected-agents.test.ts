import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentKindText, lastUsedText, revokeConsequence } from './connected-agents.ts';

describe('connected agents in words', () => {
  // A British reader: the times below are in their words.
  beforeAll(() => vi.stubGlobal('navigator', { languages: ['en-GB'] }));
  afterAll(() => vi.unstubAllGlobals());

  it('names each kind as the owner made it', () => {
    expect(agentKindText('api_key')).toBe('API key');
    expect(agentKindText('oauth')).toBe('Signed in with OAuth');
  });

  it('says "never used" for an agent without a recorded use, else the day and time', () => {
    expect(lastUsedText(null)).toBe('never used');
    const now = new Date(2026, 11, 5, 16, 0).getTime();
    expect(lastUsedText(new Date(2026, 11, 5, 14, 2).toISOString(), now)).toBe('14:02 today');
    expect(lastUsedText(new Date(2026, 11, 3, 9, 15).toISOString(), now)).toBe('3 Dec 2026, 09:15');
  });

  it('says what revoking ends for each kind', () => {
    expect(revokeConsequence('api_key')).toContain('refused from now on');
    expect(revokeConsequence('oauth')).toContain('signed out at once');
  });
});
