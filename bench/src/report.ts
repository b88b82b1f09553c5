/** The run's report: a markdown table on stdout and the JSON file under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { Row } from './figure.ts';

export function table(rows: Row[]): string {
  const head =
    '| figure | sync | project p50 / p99 | raw baseline | ratio | target | met |\n|---|---|---|---|---|---|---|';
  const body = rows.map(
    (r) =>
      `| ${r.figure} | ${r.sync} | ${r.project} | ${r.baseline} | ${r.ratio ?? ''}× | ${r.target} | ${r.met === null ? '' : r.met ? 'yes' : '**no**'} |`,
  );
  return [head, ...body].join('\n');
}

export interface Run {
  started: Date;
  quick: boolean;
  /** A run of some figures only: written as `-partial` like a quick one. */
  partial: boolean;
  rows: Row[];
  builds: Record<string, string>;
  /** `os.loadavg()` when the run started (read then: by the end the bench itself is the load). */
  loadAtStart: number[];
}

/** The machine line above the table and the build lines below it. */
export function summary(run: Run): string {
  const cpus = os.cpus();
  const machine = `CPUs: ${cpus.length} × ${cpus[0]?.model ?? 'unknown'}; Node ${process.version}; ${os.platform()} ${os.release()}; load at start ${run.loadAtStart[0]!.toFixed(1)}${run.quick ? '; QUICK run (smaller sizes)' : ''}`;
  const buildLines = Object.entries(run.builds).map(([k, v]) => `- built ${k} in ${v}`);
  return `\n${machine}\n\n${table(run.rows)}\n${buildLines.length ? `\n${buildLines.join('\n')}\n` : ''}`;
}

/**
 * Writes `<dir>/<start time>[-partial].json` and returns its path. The fields are those of every
 * earlier result file, so runs stay comparable across versions of the bench.
 */
export function writeResults(dir: string, run: Run): string {
  const cpus = os.cpus();
  mkdirSync(dir, { recursive: true });
  const file = join(
    dir,
    `${run.started.toISOString().replace(/[:.]/g, '-')}${run.quick || run.partial ? '-partial' : ''}.json`,
  );
  const json = {
    startedAt: run.started.toISOString(),
    finishedAt: new Date().toISOString(),
    quick: run.quick,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAtStart: run.loadAtStart,
    rows: run.rows,
    builds: run.builds,
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  return file;
}
