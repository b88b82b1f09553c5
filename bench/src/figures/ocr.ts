/**
 * `ocr`: scanned pages read by OCR in the background (issue 27, point 3), on the API as users run
 * it. Reports the pages OCR reads per minute on this machine, and what OCR costs the API meanwhile:
 * `health` p99, and an agent's remember over HTTP (p50), each against the same calls on the same
 * API process with no OCR running, in alternating windows so machine noise falls on both.
 *
 * The scan: the ImageMagick pages of packages/testing/fixtures/scans (A4 at 150 dpi, four printed
 * lines each), alternated to make a file of SCAN_PAGES pages, wrapped here in a PDF by hand (each
 * page one JPEG image, /DCTDecode, no text layer), as a scanner writes them.
 */
import { readFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { acceptRun, loginOwner, must, startApi, trpc, uploadPdf } from '../http.ts';
import { summarize } from '../stats.ts';

const SCANS = join(dirname(fileURLToPath(import.meta.url)), '../../../packages/testing/fixtures/scans');

/** A PDF of one full-page JPEG (1240 × 1754 px, grey) per page: A4 in points. */
function scannedPdf(jpegs: Uint8Array[], label: string): Uint8Array {
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let length = 0;
  const put = (p: string | Uint8Array) => {
    const bytes = typeof p === 'string' ? new TextEncoder().encode(p) : p;
    parts.push(bytes);
    length += bytes.length;
  };
  const object = (n: number, body: () => void) => {
    offsets[n - 1] = length;
    put(`${n} 0 obj\n`);
    body();
    put('\nendobj\n');
  };
  // A comment naming the round: the same file twice is refused as a duplicate (SPEC §6d).
  put(`%PDF-1.4\n% ${label}\n`);
  const count = jpegs.length;
  // Objects: 1 catalog, 2 pages, then per page: page, contents, image.
  const pageRef = (i: number) => 3 + i * 3;
  object(1, () => put('<< /Type /Catalog /Pages 2 0 R >>'));
  object(2, () =>
    put(`<< /Type /Pages /Count ${count} /Kids [${jpegs.map((_, i) => `${pageRef(i)} 0 R`).join(' ')}] >>`),
  );
  jpegs.forEach((jpeg, i) => {
    const n = pageRef(i);
    const draw = 'q 595.28 0 0 841.89 0 0 cm /Im0 Do Q';
    object(n, () =>
      put(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Contents ${n + 1} 0 R /Resources << /XObject << /Im0 ${n + 2} 0 R >> >> >>`,
      ),
    );
    object(n + 1, () => put(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`));
    object(n + 2, () => {
      put(
        `<< /Type /XObject /Subtype /Image /Width 1240 /Height 1754 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
      );
      put(jpeg);
      put('\nendstream');
    });
  });
  const xref = length;
  put(`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`);
  for (const at of offsets) put(`${String(at).padStart(10, '0')} 00000 n \n`);
  put(`trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

async function upload(port: number, token: string, bytes: Uint8Array, name: string): Promise<string> {
  const { ok, status, body } = await uploadPdf(port, token, bytes, name);
  if (!ok || !body.result) throw new Error(`documents.upload answered ${status}`);
  return body.result.data.id;
}

export async function ocrWhileServing(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const pages = quick ? 4 : 12;
  const rounds = quick ? 1 : 3;
  const jpegs = [1, 2].map((n) => new Uint8Array(readFileSync(join(SCANS, `page-${n}.jpg`))));
  const scan = (round: number) =>
    scannedPdf(
      Array.from({ length: pages }, (_, i) => jpegs[i % 2]!),
      `round ${round}`,
    );
  const dataDir = join(work, 'ocr');
  mkdirSync(dataDir);
  const api = await startApi(dataDir);
  try {
    const owner = await loginOwner(api.port);
    // A session of its own per round: on a loaded machine OCR takes longer, the probes write more
    // notes, and one session for all rounds ran into its note quota (429) before the last one.
    let run = await acceptRun(api.port, owner);
    let version = 0;
    let writes = 0;
    const timed = async (call: () => Promise<unknown>): Promise<number> => {
      const t0 = performance.now();
      await call();
      return performance.now() - t0;
    };
    const health = () => timed(async () => must(await trpc(api.port, 'query', 'health'), 'health'));
    const remember = () =>
      timed(async () => {
        const n = writes++;
        const answer = await trpc(
          api.port,
          'mutation',
          'agent.remember',
          {
            basedOn: version,
            requestId: `ocr-${n}`,
            changes: [{ op: 'add', name: `lead:ocr-${n}`, text: `a note written while OCR may run (${n})` }],
          },
          run.runToken,
        );
        version = must<{ version: number }>(answer, 'agent.remember').version;
      });
    /** health and a remember in turn, 5 ms apart, until `done()`. */
    const probe = async (done: () => boolean, into: { health: number[]; remember: number[] }) => {
      while (!done()) {
        into.health.push(await health());
        into.remember.push(await remember());
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const state = async (id: string) =>
      must<{ index: { state: string } }>(
        await trpc(api.port, 'query', 'documents.get', { documentId: id }, owner.token),
        'documents.get',
      ).index.state;

    const idle = { health: [] as number[], remember: [] as number[] };
    const busy = { health: [] as number[], remember: [] as number[] };
    const perMinute: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r > 0) [run, version] = [await acceptRun(api.port, owner), 0];
      log(`ocr: ${pages} scanned pages recognised while health and remember run (round ${r + 1}/${rounds})`);
      const t0 = performance.now();
      const id = await upload(api.port, owner.token, scan(r), `scan-${r}.pdf`);
      let recognizing = true;
      const watch = (async () => {
        while ((await state(id)) === 'recognizing') await new Promise((w) => setTimeout(w, 100));
        recognizing = false;
      })();
      await Promise.all([probe(() => !recognizing, busy), watch]);
      const seconds = (performance.now() - t0) / 1000;
      perMinute.push((pages / seconds) * 60);
      log(`ocr: the same calls with no OCR running, ${seconds.toFixed(1)} s`);
      const until = performance.now() + seconds * 1000;
      await probe(() => performance.now() >= until, idle);
    }
    const idleHealth = summarize(idle.health);
    const busyHealth = summarize(busy.health);
    const idleRemember = summarize(idle.remember);
    const busyRemember = summarize(busy.remember);
    const rate = summarize(perMinute);
    const rememberRatio = busyRemember.p50 / idleRemember.p50;
    return [
      {
        figure: `OCR: scanned A4 pages recognised per minute (${pages}-page file, one OCR thread, tesseract.js eng)`,
        sync: 'n/a',
        project: `${rate.p50.toFixed(1)} pages/min (${perMinute.map((p) => p.toFixed(1)).join(', ')})`,
        baseline: 'n/a',
        ratio: null,
        target: 'reported',
        met: null,
        note: `${rounds} files; from the upload's answer to the end of "recognizing"`,
        raw: { perMinute },
      },
      {
        figure: 'health over HTTP while OCR runs',
        sync: 'FULL',
        project: lat(busyHealth),
        baseline: `no OCR running ${lat(idleHealth)} (same API process)`,
        ratio: round(busyHealth.p99 / idleHealth.p99),
        target: 'p99 < 50 ms',
        met: busyHealth.p99 < 50,
        note: `ratio of p99s; ${busyHealth.n} and ${idleHealth.n} calls`,
        raw: { busy: busyHealth, idle: idleHealth },
      },
      {
        figure: 'remember 1 note over HTTP while OCR runs',
        sync: 'FULL',
        project: lat(busyRemember),
        baseline: `no OCR running ${lat(idleRemember)} (same API process)`,
        ratio: round(rememberRatio),
        target: 'p50 ≤ 1.5× idle p50',
        met: rememberRatio <= 1.5,
        note: `ratio of p50s; ${busyRemember.n} and ${idleRemember.n} remembers; worst while OCR ran ${ms(busyRemember.max)} ms`,
        raw: { busy: busyRemember, idle: idleRemember },
      },
    ];
  } finally {
    await api.stop();
  }
}
