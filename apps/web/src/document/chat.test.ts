import type { TranscriptItem } from '@sponge/contract';
import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import {
  ANSWER_PATIENCE_MS,
  LIVE_REFRESH_MS,
  WAITING_REFRESH_MS,
  answerState,
  askErrorMessage,
  runLabel,
  runMemoryWord,
  closedChatWords,
  takesQuestions,
  transcriptRefetchMs,
  waitingSince,
} from './chat.ts';

const t0 = Date.parse('2030-01-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const you = (at: number, text = 'which sites?'): TranscriptItem => ({
  type: 'message',
  role: 'you',
  text,
  at: iso(at),
});
const agent = (at: number): TranscriptItem => ({
  type: 'message',
  role: 'agent',
  text: 'the scripted agent answered',
  at: iso(at),
});
const card = (at: number): TranscriptItem => ({
  type: 'memory',
  action: 'remembered',
  count: 1,
  removed: 0,
  names: ['lead:sites'],
  sessionId: 'ses_1',
  at: iso(at),
  forgotten: false,
});

describe('waitingSince', () => {
  it('is the time of the owner’s question while it is the newest message', () => {
    expect(waitingSince([you(t0)])).toBe(iso(t0));
    // The agent remembering is still work on the answer, not the answer.
    expect(waitingSince([you(t0), card(t0 + 500)])).toBe(iso(t0));
    expect(waitingSince([you(t0), agent(t0 + 900), you(t0 + 5000)])).toBe(iso(t0 + 5000));
  });

  it('is null once the agent replied, and for an empty or unloaded transcript', () => {
    expect(waitingSince([you(t0), card(t0 + 500), agent(t0 + 900)])).toBeNull();
    expect(waitingSince([agent(t0), card(t0 + 1)])).toBeNull();
    expect(waitingSince([])).toBeNull();
    expect(waitingSince(undefined)).toBeNull();
  });
});

describe('answerState and the refetch interval', () => {
  it('works for a minute, then says the answer is overdue', () => {
    expect(answerState(null, t0)).toBe('answered');
    expect(answerState(iso(t0), t0 + 1000)).toBe('working');
    expect(answerState(iso(t0), t0 + ANSWER_PATIENCE_MS - 1)).toBe('working');
    expect(answerState(iso(t0), t0 + ANSWER_PATIENCE_MS)).toBe('overdue');
  });

  it('polls fast only while a live run’s question waits', () => {
    expect(transcriptRefetchMs([you(t0)], true, t0 + 2000)).toBe(WAITING_REFRESH_MS);
    expect(transcriptRefetchMs([you(t0), agent(t0 + 900)], true, t0 + 2000)).toBe(LIVE_REFRESH_MS);
    expect(transcriptRefetchMs([you(t0)], true, t0 + ANSWER_PATIENCE_MS + 1)).toBe(LIVE_REFRESH_MS);
    expect(transcriptRefetchMs([you(t0)], false, t0 + 2000)).toBe(false);
    expect(transcriptRefetchMs(undefined, true, t0)).toBe(LIVE_REFRESH_MS);
  });
});

describe('askErrorMessage', () => {
  it('passes the API’s sentence on', () => {
    const closed = TRPCClientError.from({
      error: {
        code: -32012,
        message:
          'New runs are not accepted after 2030-01-01T01:00:00.000Z (ACCEPT_RUNS_UNTIL); runs accepted before go on.',
        data: { code: 'PRECONDITION_FAILED', httpStatus: 412, reason: 'runs_closed' },
      },
    });
    expect(askErrorMessage(closed)).toMatch(/^New runs are not accepted after 2030-01-01/);
  });

  it('says the server could not be reached when no answer came back', () => {
    const offline = TRPCClientError.from(new TypeError('Failed to fetch'));
    expect(askErrorMessage(offline)).toBe(
      'Could not reach the server (Failed to fetch). Check the connection and ask again.',
    );
  });
});

describe('a run, its memory and whether it takes a question', () => {
  const session = (state: 'opening' | 'open' | 'forgotten' | 'purged' | 'empty', extra = {}) => ({
    id: 'ses_1',
    runId: 'run_1',
    state,
    version: 1,
    pinnedRevision: 0,
    startedAt: iso(t0 - 3_600_000),
    forgetsAt: iso(t0 + 3_600_000),
    forgottenAt: null,
    purgedAt: null,
    noteCount: 0,
    ...extra,
  });
  const run = (s: ReturnType<typeof session> | null, over = {}) => ({
    mode: 'chat' as const,
    status: 'live' as const,
    memory: s !== null,
    session: s,
    ...over,
  });

  it('names the memory with the one word per state', () => {
    expect(runMemoryWord(run(session('open')), t0)).toBe('open');
    expect(runMemoryWord(run(session('open', { forgetsAt: iso(t0 - 1) })), t0)).toBe('expired');
    expect(runMemoryWord(run(session('forgotten', { forgottenAt: iso(t0) })), t0)).toBe('forgotten');
    expect(runMemoryWord(run(session('purged', { forgottenAt: iso(t0) })), t0)).toBe('forgotten');
    expect(runMemoryWord(run(session('purged')), t0)).toBe('purged');
    expect(runMemoryWord(run(null), t0)).toBe('memory off');
    expect(runMemoryWord({ memory: true, session: null }, t0)).toBeNull();
  });

  it('reads "Chat run · 5 min ago · forgotten", in the one "ago" style', () => {
    expect(runLabel('chat', iso(t0 - 5 * 60_000), 'forgotten', t0)).toBe('Chat run · 5 min ago · forgotten');
    expect(runLabel('staged', iso(t0 - 2 * 3_600_000), 'memory off', t0)).toBe(
      'Staged run · 2 h ago · memory off',
    );
    expect(runLabel('chat', iso(t0), null, t0)).toBe('Chat run · just now');
  });

  it('offers Continue this chat only on a live chat run whose memory is open (or off)', () => {
    expect(takesQuestions(run(session('open')), t0)).toBe(true);
    expect(takesQuestions(run(session('opening')), t0)).toBe(true);
    expect(takesQuestions(run(null), t0)).toBe(true);
    expect(takesQuestions(run(session('forgotten', { forgottenAt: iso(t0) })), t0)).toBe(false);
    expect(takesQuestions(run(session('purged')), t0)).toBe(false);
    expect(takesQuestions(run(session('open', { forgetsAt: iso(t0 - 1) })), t0)).toBe(false);
    expect(takesQuestions(run(session('open'), { status: 'finished' }), t0)).toBe(false);
    expect(takesQuestions(run(session('open'), { mode: 'staged' }), t0)).toBe(false);
  });

  it('says why a live chat takes no more questions once its memory is closed, and nothing otherwise', () => {
    expect(closedChatWords(run(session('forgotten', { forgottenAt: iso(t0) })), t0)).toBe(
      'This chat’s working memory was forgotten, so it takes no more questions. Ask below to start a new run.',
    );
    expect(closedChatWords(run(session('purged')), t0)).toBe(
      'This chat’s working memory was purged, so it takes no more questions. Ask below to start a new run.',
    );
    expect(closedChatWords(run(session('open', { forgetsAt: iso(t0 - 1) })), t0)).toBe(
      'This chat’s working memory expired, so it takes no more questions. Ask below to start a new run.',
    );
    expect(closedChatWords(run(session('open')), t0)).toBeNull();
    expect(closedChatWords(run(null), t0)).toBeNull();
    expect(closedChatWords(run(session('forgotten'), { status: 'finished' }), t0)).toBeNull();
  });
});
