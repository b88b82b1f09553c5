// Flow: an upload in view while its text is extracted (issue 27 point 6, SPEC §6b). A slow PDF sent
// over the API holds its owner's one extraction for its server's time limit (12 s,
// UPLOAD_READ_SECONDS in playwright.config.ts); its row in the library
// says "extracting the text, page n of 2000" as the thread reads. A second PDF, added in another
// tab's Add document dialog, waits behind it: the first tab's library lists it "extracting the
// text…" and its document page says the text is being extracted → the slow one is refused (too
// slow) and leaves the library → the second is read, its page shows its text, and it is ready.
// The wait is the queue's own (one extraction per owner), never a guessed sleep.
import { expect, test } from '@playwright/test';
import { makePdf, makeSlowPdf } from '@sponge/testing/pdf-fixtures';
import { ROSALIND, keepScreenshot, login, originOf, servers, signInBrowser, unique } from './support.ts';

test('an upload is listed as extracting, with its pages counted, until it is read or refused', async ({
  page,
  context,
}, testInfo) => {
  test.setTimeout(120_000);
  const owner = await login(ROSALIND, servers.chat);
  const origin = originOf(servers.chat);
  const slowName = `slow-survey-${unique()}`;
  const slow = new FormData();
  slow.append('file', new Blob([Buffer.from(makeSlowPdf())], { type: 'application/pdf' }), `${slowName}.pdf`);
  const slowAnswer = fetch(`${origin}/trpc/documents.upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: slow,
  }).then(async (res) => ({
    status: res.status,
    body: (await res.json()) as { error?: { message: string } },
  }));
  // The API has the slow one's document once its file is in.
  await expect
    .poll(
      async () => (await owner.api.documents.list.query()).find((d) => d.title === slowName)?.index?.state,
    )
    .toBe('extracting');

  await signInBrowser(context, owner);
  await page.goto(`${origin}/`);
  const rows = page.getByRole('list', { name: 'Documents' }).getByRole('listitem');
  const slowRow = rows.filter({ hasText: slowName });
  await expect(slowRow).toContainText(/extracting the text, page \d+ of 2000/);

  // Another tab adds a PDF: it waits for the owner's one extraction, so it is listed, extracting.
  const title = `Estuary silt ${unique()}`;
  const other = await context.newPage();
  await other.goto(`${origin}/`);
  await other.getByRole('button', { name: 'Add document' }).click();
  const dialog = other.getByRole('dialog', { name: 'Add a document' });
  await dialog.getByLabel('Choose files').setInputFiles({
    name: 'estuary-notes.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from(await makePdf(['Mangrove roots trap the silt of the estuary.'], { title })),
  });
  await expect(dialog.getByRole('listitem').filter({ hasText: 'estuary-notes.pdf' })).toContainText(
    'Extracting the text…',
  );
  // Under the file's name until the PDF's own title is read.
  const waitingRow = rows.filter({ hasText: 'estuary-notes' });
  await expect(waitingRow).toContainText('extracting the text…');
  await keepScreenshot(page, testInfo, 'library-extracting');

  // Its document page says so instead of showing an empty text, and takes no question yet.
  await waitingRow.getByRole('link', { name: 'estuary-notes' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'estuary-notes' })).toBeVisible();
  const body = page.getByRole('article', { name: 'Document' });
  await expect(body).toContainText('The text is being extracted from the file');
  await expect(page.getByRole('status').filter({ hasText: 'extracting the text' })).toBeVisible();
  await expect(page.getByText('Questions open once the text has been extracted.')).toBeVisible();
  await keepScreenshot(page, testInfo, 'document-extracting');

  // The slow one is refused at its time limit; then this one is read, and the page follows it.
  const refused = await slowAnswer;
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toMatch(/took too long to read/);
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible({ timeout: 30_000 });
  await expect(body).toContainText('Mangrove roots trap the silt of the estuary.');
  await expect(page.getByRole('textbox', { name: 'Ask about this document' })).toBeVisible();

  await page.goto(`${origin}/`);
  await expect(rows.filter({ hasText: title })).toBeVisible();
  await expect(rows.filter({ hasText: slowName })).toHaveCount(0);
  await expect(rows.filter({ hasText: title })).not.toContainText('extracting');
  await expect(rows.filter({ hasText: title })).not.toContainText('indexing', { timeout: 20_000 });
});
