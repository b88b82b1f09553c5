/**
 * Whether a cited passage supports its sentence (SPEC §7b, "What a chip claims", issue 40): the
 * hosted runtime says so with `support` on a citation it sends to `agent.say`. The server cannot
 * run the model again, so it keeps the claim only as the run token's (which only the hosted
 * runtime obtains), only on a citation whose quote it found on the page itself, and only as one
 * of the three values; everything else is `unchecked`. It is stored with the citation and sent in
 * `chat.transcript` and `chat.events`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';
import { openSse, subscriptionUrl } from '../testing/sse.ts';

let s: TestServer;
let ada: string;
let run: { runId: string; sessionId: string | null; runToken: string };

/** Quotes of the demo reef document (page 1). */
const ON_PAGE = 'bleached in over 90 percent of surveyed sites';
const ALSO_ON_PAGE = 'Larval supply limited recovery at isolated sites';
const cite = (quote: string, support?: string) => ({
  documentId: REEF_DOCUMENT_ID,
  page: 1,
  quote,
  ...(support === undefined ? {} : { support }),
});

beforeAll(async () => {
  [s, ada] = await startSignedIn('user-ada');
  run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
});
afterAll(() => s?.close());

async function agentMessage(text: string, runId = run.runId): Promise<Json> {
  const r = await s.call('query', 'chat.transcript', { runId }, ada);
  if (!r.ok) throw new Error(r.text);
  return r.data.find((i: Json) => i.type === 'message' && i.role === 'agent' && i.text === text);
}

describe('support on a citation', () => {
  it('keeps the runtime’s supported and unsupported on verified quotes, and says unchecked otherwise', async () => {
    const text = 'Most exposed sites bleached [1]. Isolated sites recovered fastest [2]. Also [3] [4].';
    const said = await s.call(
      'mutation',
      'agent.say',
      {
        text,
        citations: [
          cite(ON_PAGE, 'supported'),
          cite(ALSO_ON_PAGE, 'unsupported'),
          // Not on the page: whatever the runtime says, nothing was checked against it.
          cite('sites recovered fully within two years everywhere', 'supported'),
          // Sent without a claim (the scripted agent, an older runtime).
          cite('Fast-growing branching corals accounted for most of the regained cover'),
        ],
      },
      run.runToken,
    );
    expect(said.ok, said.text).toBe(true);
    const expected = [
      ['verified', 'supported'],
      ['verified', 'unsupported'],
      ['unverified', 'unchecked'],
      ['verified', 'unchecked'],
    ];
    expect(said.data.citations.map((c: Json) => [c.status, c.support])).toEqual(expected);
    const reply = await agentMessage(text);
    expect(reply.citations.map((c: Json) => [c.status, c.support])).toEqual(expected);
  });

  it('never marks a quote too short to check, nor a working note', async () => {
    const text = 'Short, and a note.';
    const said = await s.call(
      'mutation',
      'agent.say',
      { text, citations: [cite('over 90 percent', 'supported'), { note: 'lead:nothing-held' }] },
      run.runToken,
    );
    expect(said.ok, said.text).toBe(true);
    const reply = await agentMessage(text);
    expect(reply.citations).toEqual([
      {
        documentId: REEF_DOCUMENT_ID,
        title: expect.any(String),
        page: 1,
        quote: 'over 90 percent',
        status: 'unverified',
        support: 'unchecked',
      },
      { status: 'unverified' },
    ]);
  });

  it('takes only the three values, and no support on a note: anything else is invalid_input and nothing is said', async () => {
    for (const citations of [
      [cite(ON_PAGE, 'verified')],
      [cite(ON_PAGE, 'yes')],
      [cite(ON_PAGE, 'SUPPORTED')],
      [{ ...cite(ON_PAGE), support: true }],
      [{ note: 'lead:x', support: 'supported' }],
    ]) {
      const r = await s.call('mutation', 'agent.say', { text: 'Refused.', citations }, run.runToken);
      expect([r.error?.data.code, r.error?.data.reason], JSON.stringify(citations)).toEqual([
        'BAD_REQUEST',
        'invalid_input',
      ]);
      // A wrong word is named in words.
      if (typeof (citations[0] as { support?: unknown }).support === 'string' && !('note' in citations[0]!))
        expect(r.error?.message).toContain(
          'citations.0.support: support is supported, unsupported or unchecked',
        );
    }
    expect(await agentMessage('Refused.')).toBeUndefined();
  });

  it('is said only with a run token: the owner’s own credential cannot post a reply that claims it', async () => {
    const r = await s.call(
      'mutation',
      'agent.say',
      { text: 'Owner.', citations: [cite(ON_PAGE, 'supported')] },
      ada,
    );
    expect(r.error?.data.code).toMatch(/^(UNAUTHORIZED|FORBIDDEN)$/);
    expect(await agentMessage('Owner.')).toBeUndefined();
  });

  it('reads a citation stored before support was kept as unchecked', async () => {
    const text = 'From an older server.';
    await s.call('mutation', 'agent.say', { text, citations: [cite(ON_PAGE, 'supported')] }, run.runToken);
    await s.app.app.execute({
      sql: `UPDATE message_citations SET support = NULL WHERE quote = ? AND support = 'supported'`,
      args: [ON_PAGE],
    });
    expect((await agentMessage(text)).citations.map((c: Json) => c.support)).toEqual(['unchecked']);
  });

  it('is sent in chat.events, in the transcript’s shape', async () => {
    const live = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const text = 'Exposed sites bleached [1].';
    await s.call('mutation', 'agent.say', { text, citations: [cite(ON_PAGE, 'unsupported')] }, live.runToken);
    const stream = await openSse(subscriptionUrl(s.url, 'chat.events', { runId: live.runId }), {
      authorization: `Bearer ${ada}`,
    });
    try {
      const event = await stream.next();
      expect(event?.data).toMatchObject({ type: 'message', role: 'agent', text });
      expect((event?.data as Json).citations).toEqual([(await agentMessage(text, live.runId)).citations[0]]);
      expect((event?.data as Json).citations[0]).toMatchObject({
        status: 'verified',
        support: 'unsupported',
      });
    } finally {
      stream.close();
    }
  });
});
