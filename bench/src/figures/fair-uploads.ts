/**
 * `uploads`: one owner's upload of a tiny PDF while another owner keeps four slow PDFs queued
 * (issue 24, point 8), against the same upload on the idle server, in the same API process.
 *
 * The slow PDF is the one the issue found: 2,000 pages sharing one content stream of 250,000
 * `q Q` operators (1.3 MB), which keeps pdf.js busy past the 30 s extraction limit. Its owner
 * sends four at once and sends each again as soon as it is answered (after `retryAfterSeconds`
 * when the answer is `busy`), so the queue holds as much of theirs as it will take throughout.
 * Before the fair queue the tiny upload waited behind every one of them (59 s measured).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { must, startApi, trpc, uploadPdf } from '../http.ts';
import { summarize } from '../stats.ts';

/** A classic PDF from numbered objects: dictionaries, or a stream with its bytes. */
function pdfOf(objects: Array<string | { dict: string; stream: string }>): Uint8Array {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out +=
      typeof o === 'string'
        ? `${i + 1} 0 obj\n${o}\nendobj\n`
        : `${i + 1} 0 obj\n${o.dict}\nstream\n${o.stream}\nendstream\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) out += `${String(at).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  // Only ASCII above, so string offsets are byte offsets.
  return new TextEncoder().encode(out);
}

/** `pages` pages sharing one content stream of `operators` `q Q` pairs and a line of text. */
function pdf(pages: number, operators: number, text: string): Uint8Array {
  const stream = `${'q Q\n'.repeat(operators)}BT /F1 12 Tf 72 712 Td (${text}) Tj ET`;
  const page =
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>';
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ')}] /Count ${pages} >>`,
    { dict: `<< /Length ${stream.length} >>`, stream },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from({ length: pages }, () => page),
  ]);
}

interface UploadAnswer {
  status: number;
  retryAfterSeconds: number | null;
}

async function upload(port: number, token: string, bytes: Uint8Array, name: string): Promise<UploadAnswer> {
  const { status, body } = await uploadPdf(port, token, bytes, name);
  return { status, retryAfterSeconds: body.error?.data?.retryAfterSeconds ?? null };
}

export async function fairUploads(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const dataDir = join(work, 'fair-uploads');
  mkdirSync(dataDir);
  const api = await startApi(dataDir);
  const stop = { now: false };
  const slowOwner: Array<Promise<void>> = [];
  try {
    const users = must<Array<{ id: string }>>(
      await trpc(api.port, 'query', 'auth.demoUsers'),
      'auth.demoUsers',
    );
    const tokens: string[] = [];
    for (const u of users.slice(0, 2)) {
      const login = must<{ userToken: string }>(
        await trpc(api.port, 'mutation', 'auth.login', { userId: u.id }),
        'auth.login',
      );
      tokens.push(login.userToken);
    }
    const [slowToken, tinyToken] = tokens as [string, string];
    // Each file different: the same one twice is refused as a duplicate (SPEC §6d), not queued.
    const tiny = (n: number) => pdf(1, 0, `A tiny note on reef sharks, ${n}.`);
    let sent = 0;
    const slow = () => pdf(2_000, 250_000, `A slow page, ${sent++}.`);
    const slowBytes = slow().length;
    const samples = quick ? 10 : 30;
    let tinySent = 0;
    const timeTiny = async (): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < samples + 2; i++) {
        const t0 = performance.now();
        const a = await upload(api.port, tinyToken, tiny(tinySent++), `tiny-${i}.pdf`);
        if (a.status !== 200) throw new Error(`the tiny upload answered ${a.status}`);
        if (i >= 2) out.push(performance.now() - t0);
      }
      return out;
    };

    log(`uploads: a tiny PDF on the idle server (${samples} times)`);
    const idle = summarize(await timeTiny());

    log(
      `uploads: the same while another owner keeps four ${(slowBytes / 1e6).toFixed(1)} MB slow PDFs queued`,
    );
    const answers: Record<string, number> = {};
    for (let k = 0; k < 4; k++)
      slowOwner.push(
        (async () => {
          while (!stop.now) {
            // A connection the server closed as it went idle (keep-alive 5 s) fails the next
            // send; counted, and sent again.
            const a = await upload(api.port, slowToken, slow(), `slow-${k}.pdf`).catch(() => null);
            const key = a === null ? 'network' : String(a.status);
            answers[key] = (answers[key] ?? 0) + 1;
            // Sooner than Retry-After says, so the queue stays full of this owner's files.
            if (a?.retryAfterSeconds != null && !stop.now) await new Promise((r) => setTimeout(r, 1_000));
          }
        })(),
      );
    // Let the slow owner's first file reach a thread before the first tiny one is timed.
    await new Promise((r) => setTimeout(r, 1_000));
    const loaded = summarize(await timeTiny());
    stop.now = true;

    const ratio = loaded.p50 / idle.p50;
    return [
      {
        figure: "upload of a tiny PDF while another owner's four slow PDFs are queued",
        sync: 'n/a',
        project: lat(loaded),
        baseline: `the same upload on the idle server ${lat(idle)}`,
        ratio: round(ratio),
        target: '',
        met: null,
        note: `slow owner's answers meanwhile by HTTP status: ${JSON.stringify(answers)}; p99 ${ms(loaded.p99)} vs ${ms(idle.p99)} ms`,
        raw: {
          idle,
          loaded,
          slowOwnerAnswers: answers,
          slowPdfBytes: slowBytes,
          tinyPdfBytes: tiny.length,
        },
      },
    ];
  } finally {
    stop.now = true;
    // Stopping the API ends the slow files' threads; their requests end with it.
    await api.stop();
    await Promise.allSettled(slowOwner);
  }
}
