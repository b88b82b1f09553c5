/**
 * Group commit for remember calls.
 *
 * The embedded driver runs every statement synchronously on the event loop, so each commit's WAL
 * sync (synchronous=FULL) stalls every other request of the process. Under concurrent load the
 * API gathers the remember calls that arrive in one turn of the event loop (until setImmediate)
 * and commits them together: one transaction, one sync, each call still all-or-nothing in its own
 * savepoint and judged by the same triggers (version check, session open, names) in arrival
 * order, exactly as if each had committed alone (LocalClient.batchGroup).
 *
 * A remote server gets each call as its own batch: it runs them on its own threads, and
 * its batches already cost one round trip each.
 */
import type { Client, InStatement, ResultSet } from '@libsql/client';
import type { GroupOutcome } from './local-client.ts';

/** An embedded client that can commit several batches at once (LocalClient, WorkerClient). */
interface GroupCommitClient extends Client {
  batchGroup(batches: InStatement[][]): Promise<GroupOutcome[]>;
}
const canGroup = (client: Client): client is GroupCommitClient =>
  typeof (client as Partial<GroupCommitClient>).batchGroup === 'function';

/**
 * At most this many calls share one commit (bounds how long one commit holds the lock). Not
 * measured as a value: more calls share one WAL sync, and the last of them waits for all the
 * others' statements.
 */
const MAX_CALLS_PER_COMMIT = 64;

export interface WriteQueue {
  /** Applies one call's statements atomically; rejects with the statement's error, nothing applied. */
  submit(statements: InStatement[]): Promise<ResultSet[]>;
  /** How many commits served how many calls so far (for tests and the bench). */
  readonly stats: { commits: number; calls: number; largestGroup: number };
}

interface Pending {
  statements: InStatement[];
  resolve: (results: ResultSet[]) => void;
  reject: (error: unknown) => void;
}

export function createWriteQueue(client: Client, maxCalls = MAX_CALLS_PER_COMMIT): WriteQueue {
  const stats = { commits: 0, calls: 0, largestGroup: 0 };
  if (!canGroup(client)) {
    return {
      stats,
      async submit(statements) {
        const results = await client.batch(statements, 'write');
        stats.commits++;
        stats.calls++;
        stats.largestGroup = Math.max(stats.largestGroup, 1);
        return results;
      },
    };
  }

  const queue: Pending[] = [];
  let scheduled = false;
  // One group at a time: while a commit is on its way (on a database thread), the next calls
  // gather, so the group size follows the load by itself.
  let flushing = false;
  const schedule = () => {
    if (scheduled || flushing) return;
    scheduled = true;
    setImmediate(() => void flush());
  };

  async function flush(): Promise<void> {
    scheduled = false;
    flushing = true;
    try {
      await commit(queue.splice(0, maxCalls));
    } finally {
      flushing = false;
      if (queue.length > 0) schedule();
    }
  }

  async function commit(group: Pending[]): Promise<void> {
    const grouping = client as GroupCommitClient;
    stats.commits++;
    stats.calls += group.length;
    stats.largestGroup = Math.max(stats.largestGroup, group.length);
    if (group.length === 1) {
      const only = group[0]!;
      await grouping.batch(only.statements, 'write').then(only.resolve, only.reject);
      return;
    }
    let outcomes;
    try {
      outcomes = await grouping.batchGroup(group.map((p) => p.statements));
    } catch {
      // The group failed as a whole (lock, I/O, commit): nothing of it was applied. Each call
      // alone, in arrival order, gets its own outcome.
      for (const p of group) await client.batch(p.statements, 'write').then(p.resolve, p.reject);
      return;
    }
    outcomes.forEach((o, i) => (o.ok ? group[i]!.resolve(o.results) : group[i]!.reject(o.error)));
  }

  return {
    stats,
    submit(statements) {
      return new Promise<ResultSet[]>((resolve, reject) => {
        queue.push({ statements, resolve, reject });
        schedule();
      });
    },
  };
}
