/**
 * How the purge worker (purger.ts) shares the write lock of an embedded file with the agents
 * writing in the API process: how long it leaves the lock free after each write, and how many
 * sessions one delete batch takes.
 *
 * An agent that finds the lock taken waits in SQLite's busy handler, which sleeps between tries
 * on a fixed schedule (BUSY_RETRIES_AT_MS). So the pause after a purge write only has to last
 * until the next try of a writer that queued behind it: shorter than the write itself once a
 * write takes more than a few milliseconds.
 */

/**
 * When a writer that found the write lock taken tries again, counted from its first try: SQLite's
 * default busy handler (sqliteDefaultBusyCallback, what a connection with a busy_timeout uses, as
 * the store's does) sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 ms, then 100 ms each time.
 */
const BUSY_RETRIES_AT_MS = [1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228];

/**
 * The longest wait a pause is sized for. A writer still waiting after it has missed the
 * 100 ms the purge promises agents anyway (the `purge` figure's target: no remember over 100 ms
 * while it runs), and sizing pauses for it (50 and 100 ms gaps) would stall a purge that runs
 * with no writer at all.
 */
const LONGEST_WAIT_COVERED_MS = 100;

/**
 * The longest a writer that started waiting at most `waitedMs` ago can still sleep before its
 * next try: the gap of the busy handler's schedule that `waitedMs` falls in (the gaps only grow).
 */
export function busyRetryGapMs(waitedMs: number): number {
  let previous = 0;
  for (const at of BUSY_RETRIES_AT_MS) {
    if (waitedMs < at) return at - previous;
    previous = at;
  }
  return 100;
}

export interface LockPacer {
  /** When the next write may start, after one that held the lock from `acquiredAt` to `releasedAt`. */
  resumeAt(acquiredAt: number, releasedAt: number): number;
  /** Another connection committed during the last pause: whoever was waiting got in. */
  served(): void;
}

/**
 * The pause rule. A writer queued behind a write started waiting after the write took the lock
 * (the API process writes through one connection at a time, db/thread, so no writer of it waits
 * behind another), so it tries again within busyRetryGapMs(held) of the release. Unless it missed
 * the last pause: its sleep ran later than `slackMs` past its try (a busy CPU), and then it has
 * been waiting since an earlier write. A pause in which nobody else committed cannot tell a
 * missed writer from no writer, so the next pause is sized for one waiting since the first write
 * after the last pause that someone used. A writer that missed one pause gets in at the next; the
 * price is paid when nobody writes: pauses grow to 25 ms plus the slack (the tries of a writer
 * waiting 100 ms) and stay there until someone commits in one.
 */
export function lockPacer(slackMs: number): LockPacer {
  let queuedFrom = 0;
  let served = true;
  return {
    resumeAt(acquiredAt, releasedAt) {
      if (served) queuedFrom = acquiredAt;
      served = false;
      const waited = Math.min(releasedAt - queuedFrom, LONGEST_WAIT_COVERED_MS);
      return releasedAt + busyRetryGapMs(waited) + slackMs;
    },
    served() {
      served = true;
    },
  };
}

/**
 * The first delete group, before any batch has been timed. Not measured: it only matters until
 * the first batches are timed (groups at most double per batch).
 */
const FIRST_GROUP = 16;
// A batch's commit (a WAL sync) holds the lock however small the group: when the disk alone takes
// longer than the target, smaller groups would cut the throughput and barely the wait. Not
// measured as a value.
const MIN_GROUP = 8;
/**
 * How many recent full groups the cost per session is taken from. Not measured as a value: a
 * longer window reacts later to costs that stay higher, a shorter one to a single stall (the
 * median needs most of the window to move). bench/README.md, notebook, "The purge", has the
 * median against the lowest cost of the window.
 */
const COST_WINDOW = 8;

export interface GroupSizer {
  /** How many sessions the next delete batch takes. */
  size(): number;
  /** A full group of `sessions` held the lock `heldMs`. */
  observe(sessions: number, heldMs: number): void;
}

/**
 * Sizes delete groups so a batch holds the lock about `targetMs`, from the median cost per session
 * of the last few full groups: one slow batch (a stall: another process on the CPU, a slow sync)
 * does not shrink the groups after it, while costs that stay higher do once they are most of the
 * window. (The lowest recent cost, tried first, sized batches for the luckiest sync of the window:
 * they held the lock 22 ms at the median instead of 15.) Starts at FIRST_GROUP, at most doubles
 * per batch, and stays within MIN_GROUP and `max`.
 */
export function groupSizer(targetMs: number, max: number): GroupSizer {
  const min = Math.min(max, MIN_GROUP);
  let size = Math.min(max, FIRST_GROUP);
  const costs: number[] = [];
  return {
    size: () => size,
    observe(sessions, heldMs) {
      costs.push(Math.max(heldMs, 0.1) / sessions);
      if (costs.length > COST_WINDOW) costs.shift();
      const median = [...costs].sort((a, b) => a - b)[(costs.length - 1) >> 1]!;
      const fits = Math.floor(targetMs / median);
      size = Math.max(min, Math.min(max, 2 * size, fits));
    },
  };
}

/** Sleeps until `performance.now()` reaches `at`: a timer can fire a millisecond or more early. */
export async function sleepUntil(at: number): Promise<void> {
  for (let left = at - performance.now(); left > 0; left = at - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, left));
  }
}
