/**
 * The started runtime waits for work by a long poll of `runtime.pending` (SPEC §7c): idle, it
 * asks once per wait instead of every second; a question is picked up as soon as it is asked;
 * and while the API does not answer, its log says so once, not at every attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealApi } from '../testing/real-api.ts';
import type { RealApi } from '../testing/real-api.ts';
import { createLineLogger, logEvent } from './log.ts';
import { createRuntime } from './runtime.ts';
import type { RuntimeEvent } from './runtime.ts';
import { createScriptedAgent } from './scripted-agent.ts';

const RUNTIME_KEY = 'runtime-wait-key-0123456789abcdef';
const REEF = 'doc-reef-recovery-2016';

let api: RealApi;
beforeAll(async () => {
  api = await startRealApi({ RUNTIME_KEY });
});
afterAll(async () => {
  await api?.close();
});

describe('the started runtime, waiting for work', () => {
  it('asks once while idle, and answers a question as soon as it is asked', async () => {
    const pendingCalls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/runtime.pending')) pendingCalls.push(url);
      return fetch(input, init);
    };
    const rt = createRuntime({
      apiUrl: api.url,
      runtimeKey: RUNTIME_KEY,
      agent: createScriptedAgent(),
      fetch: counting,
    });
    try {
      rt.start();
      // Idle for 2.5 s: the old loop looked three times (once a second); the long poll once.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(pendingCalls).toHaveLength(1);
      expect(pendingCalls[0]).toContain('waitSeconds');

      const asked = performance.now();
      const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: 'What bleached?' });
      await expect
        .poll(
          async () =>
            (await api.owner.chat.transcript.query({ runId })).some(
              (i) => i.type === 'message' && i.role === 'agent',
            ),
          { timeout: 10_000, interval: 20 },
        )
        .toBe(true);
      // Picked up at once, not at the next look a second later (the scripted turn itself takes
      // a few hundred ms on a loaded machine).
      expect(performance.now() - asked).toBeLessThan(5_000);
      expect(pendingCalls.length).toBeLessThanOrEqual(3);
    } finally {
      await rt.stop();
    }
  });

  it('while the API does not answer, logs that once, then at debug only', async () => {
    const events: RuntimeEvent[] = [];
    const rt = createRuntime({
      apiUrl: 'http://127.0.0.1:9',
      runtimeKey: RUNTIME_KEY,
      agent: createScriptedAgent(),
      pollMs: 5,
      log: (e) => events.push(e),
    });
    rt.start();
    await expect.poll(() => events.filter((e) => e.type === 'poll-failed').length).toBeGreaterThan(3);
    await rt.stop();
    const lines: string[] = [];
    const log = createLineLogger('info', (line) => void lines.push(line), false);
    for (const e of events) logEvent(log, e);
    const failed = lines.filter((l) => l.includes('runtime.pending failed'));
    expect(failed).toHaveLength(1);
    expect(events.flatMap((e) => (e.type === 'poll-failed' ? [e.repeated] : [])).slice(0, 3)).toEqual([
      false,
      true,
      true,
    ]);
  });
});
