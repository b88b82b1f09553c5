/**
 * `remember1` and `remember64`: one remember call of 1 or 64 new notes on the store in this
 * process, at FULL (the target) and NORMAL, beside one raw write batch of as many rows. With one
 * note, also the store as the API opens it, recall indexing on.
 */
import { join } from 'node:path';
import type { Change, MemoryStore } from '@oh/memory';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { openRaw, rawBatch } from '../raw.ts';
import { compare } from '../stats.ts';
import { NOTE_TEXT, addChanges, openStore, openStoreWithRecall } from '../store.ts';

/** A session that moves to a fresh one before the 10,000-note quota. */
class Sessions {
  private id = '';
  private v = 0;
  private notes = 0;
  constructor(
    private store: MemoryStore,
    private perCall: number,
  ) {}
  async remember(i: number, changes: Change[]): Promise<void> {
    if (!this.id || this.notes + this.perCall > 9_900) {
      this.id = (
        await this.store.openSession({ ownerId: 'u', documentId: 'd', runId: `r${i}`, pinnedRevision: 0 })
      ).id;
      this.v = 0;
      this.notes = 0;
    }
    const r = await this.store.remember(
      { sessionId: this.id, author: 'agent:bench' },
      { basedOn: this.v, requestId: `q${i}`, changes },
    );
    this.v = r.version;
    this.notes += this.perCall;
  }
}

export async function rememberInProcess(ctx: BenchContext, n: 1 | 64): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const rows: Row[] = [];
  const iterations = quick ? (n === 1 ? 300 : 60) : n === 1 ? 1_500 : 240;
  for (const sync of ['FULL', 'NORMAL'] as const) {
    const store = await openStore(join(work, `remember${n}-${sync}.db`), undefined, sync);
    const sessions = new Sessions(store, n);
    const raw = await openRaw(join(work, `raw-remember${n}-${sync}.db`), sync);
    log(`remember ${n} in process vs raw ${n}-row batch (${sync})`);
    const r = await compare(
      (i) => {
        const j = i + (sync === 'FULL' ? 0 : 1_000_000);
        return sessions.remember(j, addChanges(j, n));
      },
      (i) => rawBatch(raw, 's', i * n, n, NOTE_TEXT),
      { rounds: 6, perRound: Math.ceil(iterations / 6), warmup: quick ? 10 : 50 },
    );
    raw.close();
    store.close();
    const ratio = r.subject.p50 / r.baseline.p50;
    const limit = n === 1 ? 2 : 3;
    rows.push({
      figure: `remember ${n} note${n > 1 ? 's' : ''}, in process`,
      sync,
      project: lat(r.subject),
      baseline: `raw ${n}-row batch ${lat(r.baseline)}`,
      ratio: round(ratio),
      target: `p50 ≤ ${limit}×`,
      met: sync === 'FULL' ? ratio <= limit : null,
      raw: { subject: r.subject, baseline: r.baseline },
    });
  }
  if (n === 1) {
    // The same figure with recall on, as the API opens the store: each remember queues a
    // background embedding and vector write. A turn of the event loop before each call (as any
    // real caller gives) lets that work run, so its cost lands in the measured window.
    const recallStore = await openStoreWithRecall(join(work, 'remember1-recall.db'));
    const withRecall = new Sessions(recallStore, 1);
    const raw = await openRaw(join(work, 'raw-remember1-recall.db'), 'FULL');
    log('remember 1 in process with recall indexing vs raw 1-row batch (FULL)');
    const r = await compare(
      async (i) => {
        await new Promise((res) => setImmediate(res));
        await withRecall.remember(i, addChanges(i, 1));
      },
      async (i) => {
        await new Promise((res) => setImmediate(res));
        await rawBatch(raw, 's', i, 1, NOTE_TEXT);
      },
      { rounds: 6, perRound: Math.ceil(iterations / 6), warmup: quick ? 10 : 50 },
    );
    raw.close();
    recallStore.close();
    rows.push({
      figure: 'remember 1 note, in process, recall indexing on (as the API opens the store)',
      sync: 'FULL',
      project: `${lat(r.subject)} (mean ${ms(r.subject.mean)})`,
      baseline: `raw 1-row batch ${lat(r.baseline)} (mean ${ms(r.baseline.mean)})`,
      ratio: round(r.subject.p50 / r.baseline.p50),
      target: 'p50 ≤ 2×',
      met: r.subject.p50 / r.baseline.p50 <= 2,
      note: 'mean includes the background embedding + vector commits',
      raw: { subject: r.subject, baseline: r.baseline },
    });
  }
  return rows;
}
