/**
 * Recall latency benchmark (not part of the tests).
 *
 *   cd packages/oh/memory && npx tsx src/recall/recall.bench.ts
 *   cd packages/oh/memory && npx tsx src/recall/recall.bench.ts --cache-mb=64   # with PRAGMA cache_size
 *
 * The client is opened like the store opens embedded files: one connection, WAL.
 *
 * Builds one session of 1k and one of 10k synthetic research notes in a temp libSQL file with the
 * local adapter (256 dims), then measures `RecallIndex.search` end to end (query embedding + SQL +
 * digest filtering), limit 10, and prints p50/p99 per case.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { Bench } from 'tinybench';
import fixture from './fixtures/recall-quality.json' with { type: 'json' };
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall-index.ts';
import type { RecallNote } from './render.ts';

const SIZES = [1_000, 10_000];
const USAGE = 'usage: tsx src/recall/recall.bench.ts [--cache-mb=<MiB>]';
const FLAGS = { 'cache-mb': { type: 'string' } } as const;

function usage(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

function parseFlags(): { cacheMb: number } {
  let parsed;
  try {
    parsed = parseArgs({ options: FLAGS, strict: true });
  } catch (error) {
    usage((error as Error).message); // an unknown flag, a value where none belongs, a positional
  }
  const cache = parsed.values['cache-mb'] ?? '0';
  if (!/^\d+$/.test(cache)) usage(`--cache-mb takes a whole number of MiB, not ${JSON.stringify(cache)}`);
  return { cacheMb: Number(cache) };
}

const { cacheMb } = parseFlags();

const WORDS = (
  'coral reef bleaching heat stress cover survey transect manta tow region recovery cyclone starfish ' +
  'outbreak larvae recruitment dataset satellite temperature model mixed effects bootstrap interval ' +
  'figure chart map trend decline sediment turbidity nutrient runoff fish biomass reserve protection ' +
  'acidification calcification growth habitat atlas classification photo benthic site coordinates ' +
  'northern southern inshore offshore annual monthly monitoring program estimate bias sampling'
).split(' ');

// A deterministic PRNG so every run indexes the same notes.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function syntheticNotes(n: number): RecallNote[] {
  const rand = rng(n);
  const kinds = ['finding', 'method', 'dataset', 'figure', 'question', 'todo'];
  return Array.from({ length: n }, (_, i) => {
    const kind = kinds[i % kinds.length]!;
    const words = Array.from(
      { length: 20 + Math.floor(rand() * 30) },
      () => WORDS[Math.floor(rand() * WORDS.length)]!,
    );
    const text = `${words.join(' ')} (${i}).`;
    const name = `${kind}:note-${i}`;
    return {
      kind,
      name,
      text,
      data: { n: i },
      links: [],
      digest: createHash('sha256')
        .update(name + text)
        .digest('hex'),
    };
  });
}

interface Row {
  case: string;
  notes: number;
  'build (s)': string;
  'p50 (ms)': string;
  'p99 (ms)': string;
  'mean (ms)': string;
  'cpu/op (ms)': string;
  samples: number;
}

const dir = mkdtempSync(join(tmpdir(), 'recall-bench-'));
const table: Row[] = [];
try {
  const queries = fixture.queries.map((q) => q.text);
  const adapter = createLocalEmbeddingAdapter();
  for (const size of SIZES) {
    const file = join(dir, `recall-${size}.db`);
    const client = createClient({ url: `file:${file}`, concurrency: 1 });
    await client.execute('PRAGMA journal_mode = WAL');
    if (cacheMb > 0) await client.execute(`PRAGMA cache_size = -${cacheMb * 1024}`);
    const recall = createRecallIndex({ client, adapter });
    const notes = syntheticNotes(size);
    const sessionId = `bench-${size}`;
    const started = performance.now();
    for (let i = 0; i < notes.length; i += 500) await recall.index(sessionId, notes.slice(i, i + 500));
    const build = (performance.now() - started) / 1000;
    const currentDigests = new Map(notes.map((n) => [n.name, n.digest]));

    let q = 0;
    const bench = new Bench({ iterations: 200, time: 2_000, warmup: true });
    const label = 'search, exact scan';
    bench.add(label, async () => {
      await recall.search(sessionId, queries[q++ % queries.length]!, { limit: 10, currentDigests });
    });
    bench.add('query embedding only (local)', async () => {
      await adapter.embed([queries[q++ % queries.length]!]);
    });
    await bench.run();
    // CPU time per search: close to the latency on an idle machine, whatever the load now.
    const cpu = new Map<string, number>();
    for (const [name, fn] of [
      [label, () => recall.search(sessionId, queries[q++ % queries.length]!, { limit: 10, currentDigests })],
      ['query embedding only (local)', () => adapter.embed([queries[q++ % queries.length]!])],
    ] as const) {
      const before = process.cpuUsage();
      for (let i = 0; i < 50; i++) await fn();
      const used = process.cpuUsage(before);
      cpu.set(name, (used.user + used.system) / 1000 / 50);
    }
    for (const task of bench.tasks) {
      const r = task.result;
      if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
      table.push({
        case: task.name,
        notes: size,
        'build (s)': task.name.startsWith('search') ? build.toFixed(1) : '',
        'p50 (ms)': r.latency.p50.toFixed(2),
        'p99 (ms)': r.latency.p99.toFixed(2),
        'mean (ms)': r.latency.mean.toFixed(2),
        'cpu/op (ms)': (cpu.get(task.name) ?? Number.NaN).toFixed(2),
        samples: r.latency.samplesCount,
      });
    }
    recall.close();
    client.close();
    const mb = (statSync(file).size + (safeSize(`${file}-wal`) ?? 0)) / 1e6;
    console.log(`${size}: indexed in ${build.toFixed(1)} s, database ${mb.toFixed(1)} MB`);
  }
  const [load1] = (await import('node:os')).loadavg();
  console.log(
    `\nrecall search latency (${adapter.id}, limit 10, one session, ` +
      `page cache ${cacheMb > 0 ? `${cacheMb} MB` : 'default'}, Node ${process.version}, ` +
      `load average ${load1!.toFixed(1)} on ${(await import('node:os')).cpus().length} CPUs)`,
  );
  console.table(table);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function safeSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
