/**
 * The extraction queue's rules across API processes (SPEC §6b "Fair and bounded", §6c; issue 37
 * point 5): one job running and one waiting per owner, and a bounded number waiting, counted by
 * every API on the same databases, over HTTP with real PDFs and real extraction threads.
 *
 * The slow PDF (makeSlowPdf) keeps pdf.js busy past the 30 s extraction limit, so a job of it
 * holds its place for the whole test; closing the servers stops it. Assertions are on what was
 * refused and what is still waiting, never on how long anything took. Both APIs run in this
 * test's process, so they share its two PDF threads (a real second process has its own): no step
 * here needs a third.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makeSlowPdf } from '@sponge/testing/pdf-fixtures';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { pending, until, upload } from '../testing/uploads.ts';
import { livePdfThreads } from '@sponge/library';

describe('the extraction queue of two APIs on the same databases', () => {
  let a: TestServer;
  let b: TestServer;
  let ada: string;
  let grace: string;
  let rosalind: string;
  const stragglers: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    // One file may wait in all, so a full queue takes few uploads.
    const env = { UPLOAD_QUEUE_SIZE: '1', UPLOAD_QUEUE_WAIT_SECONDS: '20' };
    a = await startTestServer(env);
    b = await startTestServer(env, { sameDataAs: a });
    ada = await a.login('user-ada');
    grace = await a.login('user-grace');
    rosalind = await a.login('user-rosalind');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await Promise.all(stragglers);
    expect(livePdfThreads()).toBe(0);
  });

  it('one owner: a file read on one API and one waiting on the other, then busy on either', async () => {
    // Different files: the same one twice is a duplicate, refused before any queue.
    const slow = (n: number) => makeSlowPdf({ text: `A slow page, file ${n}.` });
    const a1 = pending(upload(a, ada, slow(1), 'slow-1.pdf'));
    stragglers.push(a1.answer);
    await until(() => a.app.library.uploads.stats().running === 1);
    // Ada's second file, sent to the other API: it waits for her first, wherever that is read.
    const a2 = pending(upload(b, ada, slow(2), 'slow-2.pdf'));
    stragglers.push(a2.answer);
    await until(() => b.app.library.uploads.stats().running === 1);
    // A third, on either API: she already has a file being read and one waiting.
    for (const [n, s] of [a, b].entries()) {
      const third = await upload(s, ada, slow(3 + n), 'slow-3.pdf');
      expect([third.status, third.body.error?.data?.reason], JSON.stringify(third.body)).toEqual([
        429,
        'busy',
      ]);
      expect(third.body.error.message).toMatch(/already have a file being read and another one waiting/);
    }
    expect([a1.settled(), a2.settled()]).toEqual([false, false]);
    // Another owner is not held behind her.
    const g = await upload(b, grace, await makePdf(['Grace’s short note on reef sharks.']), 'tiny.pdf');
    expect([g.status, g.body.result?.data?.title]).toEqual([200, 'tiny']);
  }, 60_000);

  it('the files waiting are counted by both: a full queue on one is full on the other', async () => {
    // Ada's second file waits on B (1 of the 1 place to wait); Rosalind's slow file takes the
    // other thread on A.
    const r1 = pending(upload(a, rosalind, makeSlowPdf(), 'slow-r.pdf'));
    stragglers.push(r1.answer);
    await until(() => a.app.library.uploads.stats().running === 2);
    // On A, Grace's file would have to wait, and the one place to wait is taken, on B.
    const onA = await upload(a, grace, await makePdf(['Would wait on A.']), 'a.pdf');
    expect([onA.status, onA.body.error?.data?.reason]).toEqual([429, 'busy']);
    expect(onA.body.error.message).toMatch(/queue of files waiting to be read is full/);
  }, 60_000);
});
