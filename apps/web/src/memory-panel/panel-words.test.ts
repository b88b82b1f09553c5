import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessionWord } from '../library/row-words.ts';
import {
  emptyNotesWords,
  emptyReviewedWords,
  noSessionWords,
  noteReviewWords,
  revisionWords,
  startedWords,
  stateWords,
} from './panel-words.ts';

// A British reader, local-time dates: the tests hold in any time zone.
beforeAll(() => vi.stubGlobal('navigator', { languages: ['en-GB'] }));
afterAll(() => vi.unstubAllGlobals());
const at = (d: number, h: number, m = 0) => new Date(2026, 11, d, h, m).getTime();
const iso = (ms: number) => new Date(ms).toISOString();
const now = at(6, 14, 2);

type State = 'opening' | 'open' | 'expired' | 'forgotten' | 'purged' | 'empty';
const session = (state: State, over: Partial<Record<string, string | null>> = {}) => ({
  state,
  startedAt: iso(at(6, 9, 30)),
  forgetsAt: iso(at(7, 9, 30)),
  forgottenAt: null as string | null,
  purgedAt: null as string | null,
  ...over,
});
/** The header's line for a session: its start, then its state in words. */
const header = (s: ReturnType<typeof session>, justForgotAt?: string) =>
  `${startedWords(s, now)} · ${stateWords(sessionWord(s, now), s, now, justForgotAt ?? s.forgottenAt)}`;

describe("each state's words", () => {
  it('open: when it started and the countdown to forgetting, in the one date style', () => {
    expect(header(session('open'))).toBe('Started 09:30 today · Forgets in 19 h 28 m 0 s (09:30 tomorrow)');
  });
  it('expired: past its time, before and after the API has noticed', () => {
    const past = { forgetsAt: iso(at(6, 13, 0)), startedAt: iso(at(5, 13, 0)) };
    expect(header(session('open', past))).toBe('Started 13:00 yesterday · Expired — waiting to be purged');
    expect(header(session('expired', past))).toBe('Started 13:00 yesterday · Expired — waiting to be purged');
    expect(emptyNotesWords('expired')).toBe('The agent has not remembered anything in this session yet.');
  });
  it('forgotten: when, and that nothing is kept — also once the worker has cleared it', () => {
    const forgottenAt = iso(at(6, 11, 15));
    expect(header(session('forgotten', { forgottenAt }))).toBe(
      'Started 09:30 today · Forgotten at 11:15 today. Nothing from this session is kept.',
    );
    expect(header(session('purged', { forgottenAt, purgedAt: iso(at(6, 12, 0)) }))).toBe(
      'Started 09:30 today · Forgotten at 11:15 today. Nothing from this session is kept.',
    );
    // Just forgotten on this page: the time it was pressed, before the server answers.
    expect(header(session('forgotten'), iso(at(6, 14, 1)))).toBe(
      'Started 09:30 today · Forgotten at 14:01 today. Nothing from this session is kept.',
    );
    expect(header(session('forgotten', { forgottenAt: iso(at(1, 8, 5)) }))).toBe(
      'Started 09:30 today · Forgotten on 1 Dec 2026, 08:05. Nothing from this session is kept.',
    );
    expect(emptyNotesWords('forgotten')).toBe('Nothing from this session is kept.');
    expect(emptyReviewedWords('forgotten')).toBe(
      'Nothing from this session is kept. Reviewed knowledge itself is not affected.',
    );
  });
  it('purged: cleared by the worker after it expired', () => {
    const s = session('purged', { forgetsAt: iso(at(6, 10, 0)), purgedAt: iso(at(6, 10, 5)) });
    expect(header(s)).toBe(
      'Started 09:30 today · Purged at 10:05 today, after it expired. Nothing from this session is kept.',
    );
    expect(emptyNotesWords('purged')).toBe('Nothing from this session is kept.');
  });
  it('empty: a session that never finished opening', () => {
    expect(header(session('empty'))).toBe(
      'Started 09:30 today · Never opened — this session never finished opening.',
    );
    expect(emptyNotesWords('never opened')).toBe(
      'This session never finished opening, so the agent wrote nothing.',
    );
    expect(header(session('opening'))).toBe(
      "Started 09:30 today · Opening — the agent's memory is not ready yet.",
    );
  });
  it('no session, and memory off (only staged runs without memory)', () => {
    expect(noSessionWords([])).toEqual({
      title: 'No session yet',
      text: 'A session starts when the agent runs on this document with working memory on.',
    });
    expect(noSessionWords(undefined).title).toBe('No session yet');
    expect(noSessionWords([{ memory: false }, { memory: false }])).toEqual({
      title: "Working memory is off for this document's runs",
      text: 'Staged research runs keep no working notes unless the document’s setting turns memory on.',
    });
    expect(noSessionWords([{ memory: false }, { memory: true }]).title).toBe('No session yet');
  });
});

describe('the revision the session sees', () => {
  it('names the revision, and nothing more while it is the newest', () => {
    expect(revisionWords(3, 3)).toEqual({ asOf: 'Reviewed knowledge as of revision 3', newer: null });
    expect(revisionWords(0, 0)).toEqual({
      asOf: 'No reviewed knowledge yet when this session started',
      newer: null,
    });
  });
  it('says when a newer revision has been accepted since, and who will see it', () => {
    expect(revisionWords(3, 4)).toEqual({
      asOf: 'Reviewed knowledge as of revision 3',
      newer: 'Revision 4 has been accepted since; new runs will see it.',
    });
    expect(revisionWords(0, 3).newer).toBe('Revision 3 has been accepted since; new runs will see it.');
  });
});

describe("a working note's review", () => {
  const decided = (decision: 'accept' | 'reject', over = {}) => ({
    decision,
    kind: 'finding',
    name: 'finding:kelp-canopy-recovered-37-percent-by-2021',
    revision: decision === 'accept' ? 5 : null,
    at: iso(at(6, 13, 0)),
    ...over,
  });
  it('offers Propose for review on a note nobody has proposed', () => {
    expect(noteReviewWords(null)).toEqual({ state: null, propose: 'Propose for review' });
  });
  it('says an accepted note was accepted, as what and in which revision, and offers nothing more', () => {
    expect(noteReviewWords(decided('accept'))).toEqual({
      state: 'Accepted as a finding, rev 5',
      propose: null,
    });
    expect(noteReviewWords(decided('accept', { kind: 'expression-of-concern', revision: 12 }))).toEqual({
      state: 'Accepted as an expression of concern, rev 12',
      propose: null,
    });
  });
  it('says a rejected proposal was rejected, and offers to propose it again', () => {
    expect(noteReviewWords(decided('reject'))).toEqual({
      state: 'Rejected as a finding',
      propose: 'Propose again',
    });
  });
});
