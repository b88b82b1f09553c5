import { describe, expect, it } from 'vitest';
import { createLiveNotifier } from './notifier.ts';

const settle = (p: Promise<void>) =>
  Promise.race([p.then(() => 'woken'), new Promise((r) => setTimeout(() => r('waiting'), 30))]);

describe('live notifier', () => {
  it('wakes a waiter on its keys only, and at once for a notify since the version it read', async () => {
    const n = createLiveNotifier();
    const seen = n.version(['run:a', 'session:s']);
    const other = n.wait(['run:b'], n.version(['run:b']), 10_000);
    n.notify('session:s'); // between the read and the wait: not missed
    expect(await settle(n.wait(['run:a', 'session:s'], seen, 10_000))).toBe('woken');
    const later = n.wait(['run:a'], n.version(['run:a']), 10_000);
    expect(await settle(later)).toBe('waiting');
    n.notify('run:a');
    expect(await settle(later)).toBe('woken');
    expect(await settle(other)).toBe('waiting');
    n.notify('run:b');
    await other;
    expect(n.waiting()).toBe(0);
  });

  it('ends a wait at its time or its signal, leaving nothing registered', async () => {
    const n = createLiveNotifier();
    const ac = new AbortController();
    const timed = n.wait(['run:a'], n.version(['run:a']), 20);
    const aborted = n.wait(['run:a', 'run:b'], n.version(['run:a', 'run:b']), 10_000, ac.signal);
    expect(n.waiting()).toBe(2);
    await timed;
    ac.abort();
    await aborted;
    expect(n.waiting()).toBe(0);
  });

  it('never goes back to a version a waiter read, when it forgets old keys', async () => {
    const n = createLiveNotifier();
    n.notify('run:a');
    const seen = n.version(['run:a']);
    for (let i = 0; i < 10_001; i++) n.notify(`run:x${i}`);
    expect(n.version(['run:a'])).toBeGreaterThanOrEqual(seen);
    const fresh = n.version(['run:a']);
    const w = n.wait(['run:a'], fresh, 10_000);
    n.notify('run:a');
    expect(await settle(w)).toBe('woken');
  });
});
