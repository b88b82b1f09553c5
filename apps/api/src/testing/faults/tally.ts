/** Per-round counts of a fault suite, and the one line each suite prints. */
import type { RoundCounts } from '@sponge/testing/fault-agents';
import type { RoundCheck } from './checks.ts';

export interface Round {
  round: number;
  acked: number;
  retried: number;
  replayed: number;
  /** Failed attempts (each one sent again). */
  failures: number;
  lost: number;
  doubled: number;
}

export class Tally {
  readonly rounds: Round[] = [];
  /** Every failed attempt of the suite, by what the client saw. */
  readonly seen = new Map<string, number>();
  private readonly started = performance.now();

  add(counts: RoundCounts, check: RoundCheck): Round {
    let failures = 0;
    for (const [what, n] of counts.seen) {
      this.seen.set(what, (this.seen.get(what) ?? 0) + n);
      failures += n;
    }
    const round: Round = {
      round: this.rounds.length + 1,
      acked: counts.acked,
      retried: counts.retried,
      replayed: counts.replayed,
      failures,
      lost: check.lost,
      doubled: check.doubled,
    };
    this.rounds.push(round);
    return round;
  }

  total(key: Exclude<keyof Round, 'round'>): number {
    return this.rounds.reduce((sum, r) => sum + r[key], 0);
  }

  /** e.g. `server kill: 30 rounds, 1,234 acked, 56 retried (3 replayed), 0 lost, 0 doubled, 41.2 s` */
  line(name: string): string {
    const n = (key: Exclude<keyof Round, 'round'>) => this.total(key).toLocaleString('en-US');
    const seconds = ((performance.now() - this.started) / 1000).toFixed(1);
    const seen = [...this.seen].map(([what, count]) => `${count.toLocaleString('en-US')} × ${what}`);
    return (
      `${name}: ${this.rounds.length} rounds, ${n('acked')} acked, ${n('retried')} retried ` +
      `(${n('replayed')} replayed), ${n('lost')} lost, ${n('doubled')} doubled, ${seconds} s; ` +
      `failed attempts: ${seen.join('; ') || 'none'}`
    );
  }
}
