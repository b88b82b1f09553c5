// The review dialog opens at once whatever the size of the source (issue 39, point 4; UI.md: ≤ 300
// ms): a note citing page 1,900 of a 2,000-page PDF (1.1 million characters) is proposed, and the
// browser measures from the click on Propose for review to its cited passage on screen, marked
// and checked (User Timing, review/open-timing.ts). Three openings, each after a fresh page load.
// The bound here is loose (3 s), for a busy machine; the figures are printed and bench/README.md
// keeps them.
import { expect, test } from '@playwright/test';
import { ownerMutation } from './review-support.ts';
import {
  claimRun,
  newPerson,
  panelPath,
  panelSections,
  servers,
  signUpInBrowser,
  uploadPdf,
} from './support.ts';
import { transectLine, transectLogPdf } from './transect-log.ts';

const PAGES = 2_000;
const CITED = 1_900;
/** Characters of each page: its line, then filler. */
const PAGE_CHARACTERS = 550;

test('the dialog opens on page 1,900 of a 2,000-page document within the bound', async ({
  page,
}, testInfo) => {
  test.setTimeout(60_000);
  const pdf = await transectLogPdf(PAGES, () => PAGE_CHARACTERS);
  await signUpInBrowser(page, servers.main, newPerson('Hedy Lamarr'));
  const { id: documentId, pages, characters } = await uploadPdf(page, pdf);
  expect(pages).toBe(PAGES);
  expect(characters).toBeGreaterThan(1_000_000);
  await ownerMutation(page, 'profiles.install', { documentId, name: 'research' });

  // A note kept from page 1,900, as an agent keeps one: its source is that page and its quote.
  const quote = transectLine(CITED);
  const asked = await ownerMutation(page, 'chat.ask', {
    documentId,
    text: `How deep was transect ${CITED}?`,
  });
  const { agent } = await claimRun(servers.main, asked.runId);
  await agent.remember({
    changes: [
      {
        op: 'add',
        name: `lead:transect-${CITED}`,
        text: `Transect ${CITED}'s depth, from the log.`,
        data: { source: { documentId, page: CITED, quote } },
      },
    ],
  });

  // What the browser asks for from the click to the passage: never the whole text, only the page.
  let opening = false;
  const sent: Array<{ url: string; bytes: Promise<number> }> = [];
  page.on('request', (request) => {
    if (!opening || !request.url().includes('/trpc/')) return;
    sent.push({
      url: request.url(),
      // Read while the page is still there (each opening waits for it); a request the page gave up
      // on has no body to read.
      bytes: request
        .response()
        .then(async (response) =>
          // A live stream (the panel's subscriptions) never ends: it sends events, not the text.
          !response || response.headers()['content-type']?.startsWith('text/event-stream')
            ? 0
            : (await response.body()).length,
        )
        .catch(() => 0),
    });
  });
  const figures: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(panelPath(documentId, asked.sessionId ?? undefined));
    const propose = panelSections(page)
      .notes.getByRole('listitem')
      .filter({ hasText: `lead:transect-${CITED}` })
      .getByRole('button', { name: 'Propose for review' });
    await expect(propose).toBeVisible();
    opening = true;
    await propose.click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText(`✓ passage found in the source (p. ${CITED})`)).toBeVisible();
    await expect(dialog.locator('.source-text mark.quoted')).toHaveText(quote);
    const ms = await page.evaluate(
      () => performance.getEntriesByName('review:open-to-passage', 'measure')[0]?.duration ?? null,
    );
    opening = false;
    expect(ms, 'the dialog measured its opening').not.toBeNull();
    for (const { url, bytes } of sent) expect(await bytes, url).toBeLessThan(50_000);
    figures.push(Math.round(ms!));
  }
  const line = `review dialog, click → page ${CITED} of ${PAGES} shown and checked: ${figures.join(', ')} ms`;
  console.log(line);
  testInfo.annotations.push({ type: 'measured', description: line });
  for (const ms of figures) expect(ms).toBeLessThan(3_000);

  expect(sent.map((a) => a.url).join(' ')).toContain('documents.page');
  // Its indexing stops with it: the 1.1 million characters are not left for later tests' time.
  await ownerMutation(page, 'documents.remove', { documentId });
});
