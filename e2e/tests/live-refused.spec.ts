// Flow: the owner already follows a run live in 8 other windows (here, 8 streams the test holds
// open), the most one run may have (issue 37, point 9). The document page and the Memory panel
// opened now get their stream refused: they say so in words and read the run again every few
// seconds instead, so the agent's reply and its note still show up without a reload.
import { expect, test } from '@playwright/test';
import {
  adaRunOnReef,
  apiClient,
  keepScreenshot,
  literal,
  originOf,
  panelPath,
  panelSections,
  servers,
  signInBrowser,
  unique,
} from './support.ts';

const STREAMS_PER_RUN = 8;
const NOTE = /Too many windows are following your runs live/;

/** A `chat.events` stream of the run, open once its first item arrived; `close` ends it. */
async function holdStream(runId: string, token: string): Promise<() => void> {
  const controller = new AbortController();
  const input = encodeURIComponent(JSON.stringify({ runId }));
  const res = await fetch(`${originOf(servers.main)}/trpc/chat.events?input=${input}`, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = '';
  while (!/\nid: /.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before its first item: ${text}`);
    text += new TextDecoder().decode(value);
  }
  expect(text).not.toContain('serialized-error');
  return () => controller.abort();
}

test('a page whose live stream is refused says so and still shows what the agent does', async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('refused stream');
  const held: Array<() => void> = [];
  try {
    for (let i = 0; i < STREAMS_PER_RUN; i++) held.push(await holdStream(run.runId, ada.token));

    await signInBrowser(context, ada);
    await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
    const article = page
      .getByRole('region', { name: 'Runs' })
      .getByRole('article')
      .filter({ hasText: run.label });
    await expect(article.getByRole('status')).toContainText(NOTE);

    const reply = `The north sites recovered first (${unique()}).`;
    await apiClient(servers.main, run.runToken).agent.say.mutate({ text: reply });
    await expect(article.getByRole('list', { name: 'Transcript' })).toContainText(reply);
    await keepScreenshot(page, testInfo, 'live-refused-document');

    await page.goto(panelPath(reef.id, run.sessionId));
    await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: NOTE })).toBeVisible();
    const lead = `lead:refused-${unique()}`;
    await run.agent.remember({ changes: [{ op: 'add', name: lead, text: 'north sites first' }] });
    const { notes } = panelSections(page);
    await expect(notes.getByRole('button', { name: new RegExp(literal(lead)) })).toBeVisible();
    await keepScreenshot(page, testInfo, 'live-refused-panel');
  } finally {
    for (const close of held) close();
  }
});
