/**
 * In-process wake-ups for the live streams (SPEC §7c): `chat.events` waits on its run's and
 * session's keys, the runtime's long poll (`runtime.pending` with `waitSeconds`) on
 * {@link PENDING}. Whatever commits something they show calls `notify`; each waiter then reads the
 * database again. A commit in another API process never reaches this one's notifier, so the
 * waiters also read again after a fallback interval whatever happens.
 *
 * One notifier per application database client, i.e. per API process (or per test server): it
 * is found from the client, so the routers and the data layer need no new dependency.
 *
 * A waiter takes the keys' {@link LiveNotifier.version} before it reads and waits from there, so
 * a commit between its read and its wait still wakes it at once (nothing is missed in the gap).
 *
 * @example
 * const live = liveNotifier(deps.app);
 * const seen = live.version([runKey(runId)]);
 * const items = await read();
 * await live.wait([runKey(runId)], seen, 2_000, signal);
 */
import type { Client } from '@libsql/client';

/** Runs waiting for the hosted runtime may have changed (a question, a new run, a released lease). */
export const PENDING = 'pending';
/** Something of this run's transcript was committed (a message, a recall, a library card, a note). */
export const runKey = (runId: string): string => `run:${runId}`;
/** This memory session changed (notes written, forgotten). */
export const sessionKey = (sessionId: string): string => `session:${sessionId}`;

export interface LiveNotifier {
  notify(key: string): void;
  /** A number that grows with every notify of any of `keys` (and never goes down). */
  version(keys: readonly string[]): number;
  /**
   * Resolves when one of `keys` is notified after `seen` was read (at once if it already was),
   * after `ms`, or when `signal` aborts; it leaves no listener or timer behind.
   */
  wait(keys: readonly string[], seen: number, ms: number, signal?: AbortSignal): Promise<void>;
  /** Waiters registered now (tests check that a closed stream leaves none). */
  waiting(): number;
}

/**
 * Keys remembered before the map starts over: one per run ever notified would grow without end.
 * Starting over costs at most one early wake-up of each waiter, never a missed one.
 */
const MAX_KEYS = 10_000;

export function createLiveNotifier(): LiveNotifier {
  // A key's version is the sequence number of its last notify; keys forgotten when the map starts
  // over read as `floor`, which is above anything they had before.
  let seq = 0;
  let floor = 0;
  const versions = new Map<string, number>();
  const waiters = new Map<string, Set<() => void>>();
  let active = 0;
  const version = (keys: readonly string[]) => Math.max(floor, ...keys.map((k) => versions.get(k) ?? floor));
  return {
    notify(key) {
      if (versions.size >= MAX_KEYS && !versions.has(key)) {
        versions.clear();
        floor = seq;
      }
      versions.set(key, ++seq);
      for (const wake of [...(waiters.get(key) ?? [])]) wake();
    },
    version,
    wait(keys, seen, ms, signal) {
      if (version(keys) !== seen || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        let finished = false;
        const done = () => {
          if (finished) return;
          finished = true;
          active--;
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          for (const key of keys) {
            const set = waiters.get(key);
            set?.delete(done);
            if (set?.size === 0) waiters.delete(key);
          }
          resolve();
        };
        active++;
        const timer = setTimeout(done, ms);
        signal?.addEventListener('abort', done, { once: true });
        for (const key of keys) {
          let set = waiters.get(key);
          if (!set) waiters.set(key, (set = new Set()));
          set.add(done);
        }
      });
    },
    waiting: () => active,
  };
}

const notifiers = new WeakMap<Client, LiveNotifier>();

/** The notifier of the API process that holds this application database client. */
export function liveNotifier(app: Client): LiveNotifier {
  let n = notifiers.get(app);
  if (!n) notifiers.set(app, (n = createLiveNotifier()));
  return n;
}
