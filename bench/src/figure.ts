/**
 * What every figure shares: the run's settings, the row it reports, and the number formats of the
 * table (kept as they were, so tables and JSON from earlier runs stay comparable).
 */
import { execFileSync } from 'node:child_process';
import type { Sample } from './stats.ts';
import type { Sync } from './raw.ts';

/** One line of the table; `raw` keeps the samples behind it for the JSON file. */
export interface Row {
  figure: string;
  sync: Sync | 'n/a';
  project: string;
  baseline: string;
  ratio: number | null;
  target: string;
  met: boolean | null;
  note?: string;
  raw?: Record<string, unknown>;
}

export interface BenchContext {
  /** Smaller sizes and shorter windows: a smoke run, not a measurement to quote. */
  quick: boolean;
  /** A fresh temporary directory for this run's databases, removed at the end. */
  work: string;
  /** The bench package's directory, where child processes resolve its dependencies. */
  benchDir: string;
  /** How long building each figure's data took, by what was built: reported under the table. */
  builds: Record<string, string>;
  /** The `scale` figure's sizes (`--scale-documents`, `-indexed`, `-paragraphs`); its defaults when absent. */
  scale?: { documents?: number; indexed?: number; paragraphs?: number } | undefined;
  /** Progress on stderr, so stdout holds only the report. */
  log: (...message: unknown[]) => void;
}

/** A figure: runs its measurements and returns its rows, in table order. */
export type Figure = (ctx: BenchContext) => Promise<Row[]>;

export const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
export const lat = (s: Sample): string => `${ms(s.p50)} / ${ms(s.p99)} ms`;
export const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
/** Seconds since `t0` (a `performance.now()` reading), as the build lines print them. */
export const elapsedSeconds = (t0: number): string => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/**
 * Flushes every dirty page to disk before a figure starts: the writeback of the files an earlier
 * figure wrote would otherwise compete with this figure's commits for a while.
 */
export function settleDisk(): void {
  execFileSync('sync');
}
