import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inviteLine, inviteUrl, orderShares, shareLine } from './sharing.ts';
import type { Share } from './sharing.ts';

const bobWaiting: Share = {
  email: 'bob@example.org',
  state: 'waiting',
  account: { name: 'Bob Smith' },
  invite: null,
};
const nobody: Share = {
  email: 'nobody@example.org',
  state: 'waiting',
  account: null,
  invite: { expiresAt: '2026-03-09T09:00:00.000Z' },
};
const lise: Share = {
  email: 'lise@example.org',
  state: 'granted',
  account: { name: 'Lise Meitner' },
  invite: null,
};
const byId: Share = { email: null, state: 'granted', account: { name: 'Rosalind Franklin' }, invite: null };

describe('shareLine', () => {
  it('asks the owner about the account that signed up with a waiting address, naming the document', () => {
    expect(shareLine(bobWaiting, 'Reef recovery')).toBe(
      'Bob Smith signed up as bob@example.org — give access to “Reef recovery”?',
    );
  });
  it('says an address waits for a sign-up, and who can read', () => {
    expect(shareLine(nobody, 'Reef recovery')).toBe(
      'nobody@example.org: waiting — no one has signed up with this address yet.',
    );
    expect(shareLine(lise, 'Reef recovery')).toBe('Lise Meitner can read it (shared with lise@example.org).');
    expect(shareLine(byId, 'Reef recovery')).toBe('Rosalind Franklin can read it.');
  });
});

describe('inviteLine and inviteUrl', () => {
  // A British reader: the date below is in their words.
  beforeAll(() => vi.stubGlobal('navigator', { languages: ['en-GB'] }));
  afterAll(() => vi.unstubAllGlobals());
  it('gives the day a waiting link stops working, and nothing otherwise', () => {
    expect(inviteLine(nobody)).toBe('An invitation link works once, until 9 Mar 2026.');
    expect(inviteLine(bobWaiting)).toBeNull();
    expect(inviteLine(lise)).toBeNull();
  });
  it("puts the page's own origin in front of the path", () => {
    expect(inviteUrl('/invite/abc_-1', 'http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/invite/abc_-1');
  });
});

describe('orderShares', () => {
  it('puts what waits for the owner first', () => {
    expect(orderShares([lise, byId, nobody, bobWaiting]).map((s) => s.email ?? s.account?.name)).toEqual([
      'bob@example.org',
      'nobody@example.org',
      'lise@example.org',
      'Rosalind Franklin',
    ]);
  });
});
