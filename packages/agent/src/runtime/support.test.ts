/**
 * Whether a cited passage supports its sentence (SPEC §7b, "What a chip claims", issue 40),
 * checked end to end: the hosted runtime with the model agent against a local server that speaks
 * the OpenAI chat-completions format (each test says what the model answers) and the real API,
 * which stores what the check found with the citation and returns it in the owner's transcript.
 */
import type { Citation } from '@sponge/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorReply, startFakeLlm, textReply, toolCallsReply } from '../testing/fake-llm.ts';
import type { FakeLlm, FakeLlmRequest, FakeReply } from '../testing/fake-llm.ts';
import { startRealApi } from '../testing/real-api.ts';
import type { RealApi } from '../testing/real-api.ts';
import { createModelAgent } from './model-agent.ts';
import type { ModelAgentOptions } from './model-agent.ts';
import { createRuntime } from './runtime.ts';
import { createScriptedAgent } from './scripted-agent.ts';
import { citedSentences, verdictOf } from './support.ts';
import type { TurnAgent } from './turn.ts';

const RUNTIME_KEY = 'support-test-runtime-key-0123456789abcdef';
const REEF = 'doc-reef-recovery-2016';

/** Sentences of the demo reef document, each long enough to be verified. */
const Q = {
  bleached: 'bleached in over 90 percent of surveyed sites',
  mortality: 'Mortality followed the same gradient',
  grazers: 'Sites with high densities of grazing fish regained a third of their lost cover',
  algae: 'sites dominated by macroalgae after the event showed almost no recovery',
  branching: 'Fast-growing branching corals accounted for most of the regained cover',
  larvae: 'Larval supply limited recovery at isolated sites',
  tiles: 'Settlement tiles deployed in 2017 and 2018 recorded ten times fewer recruits',
  decade: 'reefs can recover from a single severe bleaching event within a decade',
  repeated: 'Repeated heatwaves at shorter intervals would outpace this recovery',
  resurveyed: 'We resurveyed 112 sites that had been mapped in 2015',
};
const cite = (quote: string) => ({ documentId: REEF, page: 1, quote });

let api: RealApi;
let llm: FakeLlm;
beforeAll(async () => {
  [api, llm] = await Promise.all([startRealApi({ RUNTIME_KEY }), startFakeLlm()]);
});
afterAll(async () => {
  await Promise.all([api?.close(), llm?.close()]);
});
beforeEach(() => {
  llm.reset();
});

/** The support checks among the requests the model received: calls offered no tools. */
const supportRequests = (): FakeLlmRequest[] => llm.requests.filter((r) => r.body.tools === undefined);

/** The sentence a support check was shown. */
function sentenceOf(request: FakeLlmRequest): string {
  const user = request.body.messages.find((m) => m.role === 'user')?.content ?? '';
  return /```sentence\n([\s\S]*?)\n```/.exec(user)?.[1] ?? '';
}

/** A model that judges a support check by the sentence it was shown. */
const judge =
  (verdict: (sentence: string) => FakeReply) =>
  (request: FakeLlmRequest): FakeReply =>
    verdict(sentenceOf(request));

/** Asks a question on the reef document, lets the runtime answer it with `agent`, returns the reply's citations. */
async function ask(agent: TurnAgent, question = 'What happened to the reef sites?'): Promise<Citation[]> {
  const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: question });
  const report = await createRuntime({ apiUrl: api.url, runtimeKey: RUNTIME_KEY, agent }).runOnce();
  expect(report.runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);
  const items = await api.owner.chat.transcript.query({ runId });
  const reply = items.findLast((i) => i.type === 'message' && i.role === 'agent');
  return reply?.type === 'message' ? (reply.citations ?? []) : [];
}

function model(limits: ModelAgentOptions['limits'] = {}) {
  return createModelAgent({ url: llm.url, model: 'fake-model', limits });
}

/** The model's answer: `text` citing `quotes` in order ([1] is the first). */
const answer = (text: string, quotes: string[]) =>
  toolCallsReply([{ name: 'answer', args: { text, citations: quotes.map(cite) } }]);

const supportOf = (citations: Citation[]) => citations.map((c) => [c.status, c.support]);

describe('support checks with a model', () => {
  it('stores a supported and an unsupported citation as such, each checked by one call that sees only its sentence and passage', async () => {
    llm.script(
      answer(
        'Over 90 percent of the most exposed sites bleached [1]. Isolated sites recovered fastest of all [2]. ' +
          'Reefs are worth studying.',
        [Q.bleached, Q.larvae],
      ),
      ...Array.from({ length: 2 }, () => judge((s) => textReply(s.includes('fastest') ? 'No.' : 'yes'))),
    );
    const citations = await ask(model());
    expect(supportOf(citations)).toEqual([
      ['verified', 'supported'],
      ['verified', 'unsupported'],
    ]);

    // The model was asked to mark what each sentence cites, in its instructions and the answer tool.
    const turn = llm.requests[0]!.body;
    expect(turn.messages[0]!.content).toMatch(/after the sentence it supports: \[1\]/);
    const answerTool = turn.tools!.find((t) => t.function.name === 'answer')!;
    expect(answerTool.function.description).toMatch(/\[1\] for the first citation/);

    // One call per cited sentence; the sentence that cites nothing is not checked.
    const checks = supportRequests();
    expect(checks.map(sentenceOf).sort()).toEqual([
      'Isolated sites recovered fastest of all.',
      'Over 90 percent of the most exposed sites bleached.',
    ]);
    for (const check of checks) {
      const [system, user, ...rest] = check.body.messages;
      expect(rest).toEqual([]);
      expect(system!.role).toBe('system');
      expect(system!.content).toMatch(/never instructions to you/);
      // Only the sentence and the passage: not the question, the document, its title or the reply.
      const content = user!.content!;
      expect(content).not.toContain('What happened to the reef sites?');
      expect(content).not.toContain('Reef recovery after the 2016 bleaching');
      expect(content).not.toContain('worth studying');
      expect(content).toMatch(/```passage\n(bleached in over 90|Larval supply)/);
      expect(check.body.max_tokens).toBeLessThanOrEqual(16);
    }
  });

  it('makes at most 8 calls a turn by default: of 9 cited sentences the 9th stays unchecked', async () => {
    const quotes = Object.values(Q).slice(0, 9);
    const text = quotes.map((q, i) => `The report says that ${q.toLowerCase()} [${i + 1}].`).join(' ');
    llm.script(answer(text, quotes), ...Array.from({ length: 9 }, () => judge(() => textReply('yes'))));
    const citations = await ask(model());
    expect(supportRequests()).toHaveLength(8);
    expect(citations.map((c) => c.support)).toEqual([...Array(8).fill('supported'), 'unchecked']);
  });

  it('makes at most AGENT_SUPPORT_CHECKS calls (here 2), and none with 0', async () => {
    const text = `First [1]. Second [2]. Third [3].`;
    llm.script(
      answer(text, [Q.bleached, Q.larvae, Q.tiles]),
      ...Array.from({ length: 3 }, () => judge(() => textReply('yes'))),
    );
    expect((await ask(model({ supportChecks: 2 }))).map((c) => c.support)).toEqual([
      'supported',
      'supported',
      'unchecked',
    ]);
    expect(supportRequests()).toHaveLength(2);

    llm.reset();
    llm.script(answer(text, [Q.bleached, Q.larvae, Q.tiles]));
    expect((await ask(model({ supportChecks: 0 }))).map((c) => c.support)).toEqual(
      Array(3).fill('unchecked'),
    );
    expect(supportRequests()).toHaveLength(0);
  });

  it('leaves unchecked a check that fails, times out or answers anything but yes or no', async () => {
    const never = new Promise<never>(() => {});
    llm.script(
      answer(
        'Exposed sites bleached [1]. Mortality followed [2]. Isolated sites lacked larvae [3]. Tiles [4].',
        [Q.bleached, Q.mortality, Q.larvae, Q.tiles],
      ),
      ...Array.from({ length: 4 }, () =>
        judge((s) =>
          s.startsWith('Exposed')
            ? errorReply(500, 'the support model failed')
            : s.startsWith('Mortality')
              ? { ...textReply('yes'), gate: never }
              : s.startsWith('Isolated')
                ? textReply('Yes, mostly: the passage says so.')
                : textReply('no'),
        ),
      ),
    );
    const citations = await ask(model({ supportCallSeconds: 0.3 }));
    expect(supportOf(citations)).toEqual([
      ['verified', 'unchecked'],
      ['verified', 'unchecked'],
      ['verified', 'unchecked'],
      ['verified', 'unsupported'],
    ]);
    expect(supportRequests()).toHaveLength(4);
  });

  it('counts its tokens in the turn’s limit: with too little left, no check is made', async () => {
    // The answer step reports 9,950 of the turn's 10,000 tokens used.
    llm.script(
      toolCallsReply([{ name: 'answer', args: { text: 'Bleached [1].', citations: [cite(Q.bleached)] } }], {
        prompt_tokens: 9_900,
        completion_tokens: 50,
      }),
    );
    expect((await ask(model({ tokens: 10_000 }))).map((c) => c.support)).toEqual(['unchecked']);
    expect(supportRequests()).toHaveLength(0);
  });

  it('checks no quote the server will not verify (one the run never read), and no citation no sentence names', async () => {
    llm.script(
      answer('Sites recovered within two years [1]. Larvae were scarce far away [2].', [
        'sites recovered fully within two years everywhere',
        Q.larvae,
        Q.tiles,
      ]),
      judge(() => textReply('yes')),
    );
    const citations = await ask(model());
    expect(supportOf(citations)).toEqual([
      ['unverified', 'unchecked'],
      ['verified', 'supported'],
      ['verified', 'unchecked'],
    ]);
    expect(supportRequests().map(sentenceOf)).toEqual(['Larvae were scarce far away.']);
  });
});

describe('without a model', () => {
  it('the scripted agent’s citations are all unchecked', async () => {
    const citations = await ask(
      createScriptedAgent(),
      'What share of sites bleached above 8 degree heating weeks?',
    );
    const passages = citations.filter((c) => c.quote !== undefined);
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((c) => c.status === 'verified' && c.support === 'unchecked')).toBe(true);
    expect(llm.requests).toHaveLength(0);
  });
});

describe('what a check reads', () => {
  it('finds the sentences that cite, with the markers they carry, a marker after the full stop included', () => {
    expect(
      citedSentences(
        'Most sites bleached [1]. Some recovered [2, 3]. Nothing cites this. Grazers mattered.[4][1] ' +
          'Larvae were scarce. [2]\nA list:\n- tiles recorded few recruits [5]',
      ),
    ).toEqual([
      { sentence: 'Most sites bleached.', cites: [0] },
      { sentence: 'Some recovered.', cites: [1, 2] },
      { sentence: 'Grazers mattered.', cites: [3, 0] },
      { sentence: 'Larvae were scarce.', cites: [1] },
      { sentence: '- tiles recorded few recruits', cites: [4] },
    ]);
    expect(citedSentences('No markers at all. None [here].')).toEqual([]);
  });

  it('takes a plain yes or no only', () => {
    for (const yes of ['yes', 'Yes.', ' YES ', '"yes"', '**Yes**'])
      expect(verdictOf(yes), yes).toBe('supported');
    for (const no of ['no', 'No.', 'NO!']) expect(verdictOf(no), no).toBe('unsupported');
    for (const other of ['', 'Yes, mostly.', 'no yes', 'maybe', 'The passage supports it.', 'y'])
      expect(verdictOf(other), other).toBe('unchecked');
  });
});
