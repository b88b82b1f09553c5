/**
 * `memory`: the API process's resident memory with 10,000 sessions opened (one remember and one
 * load each), in the default configuration (recall in shadow), beside a bare Node process holding
 * @libsql/client and one open database. Target (issue 19): ≤ 250 MB.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { acceptRun, loginOwner, must, rssOf, startApi, trpc } from '../http.ts';
import { NOTE_TEXT } from '../store.ts';

export async function memoryWithOpenSessions(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, benchDir, log } = ctx;
  const dataDir = join(work, 'rss');
  mkdirSync(dataDir);
  const api = await startApi(dataDir, {});
  const count = quick ? 500 : 10_000;
  try {
    const owner = await loginOwner(api.port);
    const idle = api.rssBytes();
    log(`opening ${count} sessions`);
    for (let k = 0; k < count; k += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, count - k) }, async (_, j) => {
          const run = await acceptRun(api.port, owner);
          must(
            await trpc(
              api.port,
              'mutation',
              'agent.remember',
              {
                basedOn: 0,
                requestId: 'one',
                changes: [{ op: 'add', name: `lead:m${k + j}`, text: NOTE_TEXT }],
              },
              run.runToken,
            ),
            'remember',
          );
          must(await trpc(api.port, 'query', 'agent.load', undefined, run.runToken), 'agent.load');
        }),
      );
    }
    const loaded = api.rssBytes();
    // Baseline: a bare Node process with @libsql/client and one open database.
    const bare = await new Promise<number>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createClient } from '@libsql/client'; const c = createClient({ url: 'file:${join(work, 'bare.db')}' }); await c.execute('select 1'); process.stdout.write('ready'); setTimeout(() => {}, 60000);`,
        ],
        { cwd: benchDir, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      child.stdout.once('data', () => {
        const rss = rssOf(child.pid!);
        child.kill();
        resolve(rss);
      });
      child.on('error', reject);
    });
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
    return [
      {
        figure: `API resident memory with ${count.toLocaleString('en')} open sessions`,
        sync: 'n/a',
        project: `${mb(loaded)} (idle after start: ${mb(idle)}, +${((loaded - idle) / count / 1024).toFixed(1)} KB per session)`,
        baseline: `bare node + @libsql/client: ${mb(bare)}`,
        ratio: round(loaded / bare),
        target: quick ? '' : '≤ 250 MB',
        met: quick ? null : loaded <= 250 * 1024 * 1024,
        raw: { idle, loaded, bare },
      },
    ];
  } finally {
    await api.stop();
  }
}
