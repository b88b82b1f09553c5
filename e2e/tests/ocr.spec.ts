// Flow: a scanned PDF (issue 27, SPEC §6b). Add a two-page scan without a text layer through the
// Add document dialog → its row says "recognizing text, page n of 2" while OCR reads it in the
// background, then "ready" → its document page marks each page as recognised by OCR → a sentence
// of its second page, searched in the library, is found on page 2.
import { expect, test } from '@playwright/test';
import { makeScannedPdf } from '@sponge/testing/pdf-fixtures';
import { ADA, keepScreenshot, login, signInBrowser } from './support.ts';

test('a scanned PDF is read by OCR, with its progress shown, then marked and found by search', async ({
  page,
  context,
}, testInfo) => {
  test.setTimeout(90_000);
  const ada = await login(ADA);
  const pdf = Buffer.from(await makeScannedPdf(['page-1', 'page-2']));
  await signInBrowser(context, ada);
  await page.goto('/');

  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });
  await dialog
    .getByLabel('Choose files')
    .setInputFiles({ name: 'otter-bay-scan.pdf', mimeType: 'application/pdf', buffer: pdf });
  const row = dialog.getByRole('listitem').filter({ hasText: 'otter-bay-scan.pdf' });
  // The upload answers with the (empty) text layer at once; OCR goes on in the background.
  await expect(row).toContainText(/recognizing text, page [12] of 2: otter-bay-scan/, { timeout: 20_000 });
  await keepScreenshot(page, testInfo, 'library-ocr-progress');
  await expect(row).toContainText('ready: otter-bay-scan (2 pages,', { timeout: 60_000 });
  await row.getByRole('link', { name: 'otter-bay-scan' }).click();

  // The document page: each page's text marked as recognised, to be checked against the scan.
  await expect(page.getByRole('heading', { level: 1, name: 'otter-bay-scan' })).toBeVisible();
  const text = page.getByRole('article', { name: 'Document' });
  await expect(text.getByText('Text recognised by OCR — check it against the scan.')).toHaveCount(2);
  await expect(text).toContainText('Sea otters returned to the sheltered bay in late summer.');
  await keepScreenshot(page, testInfo, 'document-ocr');

  // Search finds a sentence of the second page, on that page.
  await page.goto('/');
  await page
    .getByRole('searchbox', { name: 'Search your documents' })
    .fill('young kelp recruited on the cleared rock');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const hit = page
    .getByRole('list', { name: 'Search results' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: 'otter-bay-scan' }) })
    .first();
  await expect(hit).toContainText('p. 2');
  await expect(hit).toContainText('cleared rock');
});
