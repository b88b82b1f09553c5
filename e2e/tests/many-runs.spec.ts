// Flow: an owner who has run the agent many times on one document still sees every run's
// transcript and its memory card, and each card still opens the panel at its own session.
// (Regression: the document page asks for one transcript per run; more than the API's batch cap
// of 10 in one batched request must not turn into "Could not load the transcript".)
import { expect, test } from '@playwright/test';
import { ADA, documentTitled, literal, login, signInBrowser, startChatRun, unique } from './support.ts';
import type { ChatRun } from './support.ts';

// Its own document, so the other flows on the reef document are not affected by the extra runs.
const TITLE = 'Aerial and in-water survey methods for coral cover';
const RUNS = 12;

test('a document with many runs shows every transcript card', async ({ page, context }) => {
  test.setTimeout(120_000);
  const ada = await login(ADA);
  const doc = await documentTitled(ada, TITLE);
  const created: { run: ChatRun; note: string }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await startChatRun(ada, doc.id, `many runs ${i}`);
    const note = `lead:many-${unique()}`;
    await run.agent.remember({ changes: [{ op: 'add', name: note, text: `run ${i} of ${RUNS}` }] });
    // Finished, as most past runs are: their transcripts are not polled, so a failed load stays.
    await ada.api.runs.finish.mutate({ runId: run.runId });
    created.push({ run, note });
  }
  expect((await ada.api.runs.list.query({ documentId: doc.id })).length).toBeGreaterThan(10);

  await signInBrowser(context, ada);
  // Every API call the page makes must succeed; a refused batch heals only by chance on a later poll.
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.url().includes('/trpc/') && response.status() >= 400) {
      failed.push(`${response.status()} ${decodeURIComponent(response.url()).slice(0, 160)}`);
    }
  });
  await page.goto(`/documents/${encodeURIComponent(doc.id)}`);
  const runs = page.getByRole('region', { name: 'Runs' });
  for (const { run, note } of created) {
    const article = runs.getByRole('article').filter({ hasText: run.label });
    await expect(article).toContainText(`Remembered 1 note: ${note}`);
    await expect(article.getByRole('link', { name: 'View in Memory' })).toHaveAttribute(
      'href',
      new RegExp(`session=${literal(run.sessionId)}$`),
    );
  }
  await expect(runs.getByText('Could not load the transcript')).toHaveCount(0);
  expect(failed).toEqual([]);
});
