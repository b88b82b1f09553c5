import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Row } from './figure.ts';
import { summary, table, writeResults } from './report.ts';

const rows: Row[] = [
  {
    figure: 'remember 1 note, in process',
    sync: 'FULL',
    project: '0.76 / 3.80 ms',
    baseline: 'raw 1-row batch 0.49 / 1.79 ms',
    ratio: 1.56,
    target: 'p50 ≤ 2×',
    met: true,
  },
  { figure: 'f', sync: 'NORMAL', project: 'p', baseline: 'b', ratio: 2.47, target: '', met: null },
  { figure: 'g', sync: 'n/a', project: 'p', baseline: 'b', ratio: null, target: 't', met: false },
];

describe('the report', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('prints the table earlier runs printed', () => {
    expect(table(rows)).toBe(
      [
        '| figure | sync | project p50 / p99 | raw baseline | ratio | target | met |',
        '|---|---|---|---|---|---|---|',
        '| remember 1 note, in process | FULL | 0.76 / 3.80 ms | raw 1-row batch 0.49 / 1.79 ms | 1.56× | p50 ≤ 2× | yes |',
        '| f | NORMAL | p | b | 2.47× |  |  |',
        '| g | n/a | p | b | × | t | **no** |',
      ].join('\n'),
    );
  });

  it('puts the machine above the table and the builds below it', () => {
    const text = summary({
      started: new Date(),
      quick: true,
      partial: false,
      rows,
      builds: { 'x notes': '1.0 s' },
      loadAtStart: [1.2, 1, 1],
    });
    expect(text).toMatch(
      /^\nCPUs: \d+ × .*; Node v\d+.*; load at start 1\.2; QUICK run \(smaller sizes\)\n\n\| figure/,
    );
    expect(text.endsWith('\n\n- built x notes in 1.0 s\n')).toBe(true);
  });

  it('writes the fields of earlier result files, partial runs under their own name', () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'bench-report-'));
    dirs.push(dir);
    const started = new Date('2026-12-03T08:57:30.294Z');
    const full = writeResults(dir, {
      started,
      quick: false,
      partial: false,
      rows,
      builds: {},
      loadAtStart: [0.5, 0.4, 0.3],
    });
    expect(full).toBe(join(dir, '2026-12-03T08-57-30-294Z.json'));
    const only = writeResults(dir, {
      started,
      quick: false,
      partial: true,
      rows,
      builds: {},
      loadAtStart: [0.5, 0.4, 0.3],
    });
    expect(only).toBe(join(dir, '2026-12-03T08-57-30-294Z-partial.json'));
    expect(readdirSync(dir)).toHaveLength(2);
    const json = JSON.parse(readFileSync(full, 'utf8'));
    expect(Object.keys(json)).toEqual([
      'startedAt',
      'finishedAt',
      'quick',
      'cpus',
      'cpuModel',
      'node',
      'platform',
      'loadAtStart',
      'rows',
      'builds',
    ]);
    expect(json.rows).toEqual(rows);
    const kept = JSON.parse(
      readFileSync(new URL('../results/2026-12-03T08-57-30-294Z.json', import.meta.url), 'utf8'),
    );
    expect(Object.keys(json)).toEqual(Object.keys(kept));
  });
});
