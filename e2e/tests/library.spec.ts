// Flow: your own library (SPEC §6b). Add a two-page PDF through the Add document dialog (the
// file picker, a progress bar while it uploads) → it becomes ready in the library, listed first →
// a question in the library search finds it, on its page → its document page shows "Page 1" and
// "Page 2" → a passage selected there is kept with "Cite in a review" → in the Memory panel of
// another document a working note is proposed for review with the PDF as source and that passage,
// accepted, and recorded. And the refusals: a binary ".txt", an encrypted PDF and an oversize
// file, each with its plain-words reason in the dialog (the oversize one never sent).
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Locator, Page } from '@playwright/test';
import { makeEncryptedPdf, makePdf } from '@sponge/testing/pdf-fixtures';
import {
  ADA,
  REEF_TITLE,
  documentTitled,
  keepScreenshot,
  literal,
  login,
  panelPath,
  panelSections,
  signInBrowser,
  startChatRun,
  unique,
} from './support.ts';

/** The cited sentence: on page 2, short enough to stay on one line of the PDF. */
const CITED = 'The kelp canopy shrank by 62 percent at the warmest sites.';
const PAGES = [
  'Kelp canopy loss after the 2019 heatwave\nSurveys of the northern kelp forests began in 2014 along twelve transects.',
  `Results\n${CITED}\nRecovery was slow where urchin densities stayed high after 2021.`,
];

async function seriousViolations(page: Page, include?: string) {
  let builder = new AxeBuilder({ page }).withTags([
    'wcag2a',
    'wcag2aa',
    'wcag21a',
    'wcag21aa',
    'best-practice',
  ]);
  if (include) builder = builder.include(include);
  const results = await builder.analyze();
  expect(results.passes.length).toBeGreaterThan(10);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * Selects `text` inside one paragraph of `box`, as a person would with the mouse; the paragraph
 * may be cut by a highlighted passage's `<mark>`.
 */
async function selectText(box: Locator, text: string): Promise<void> {
  await box.evaluate((el, wanted) => {
    const p = [...el.querySelectorAll('p')].find((node) => node.textContent?.includes(wanted));
    if (!p) throw new Error(`"${wanted}" is not in the text`);
    const start = (p.textContent ?? '').indexOf(wanted);
    // The text node and offset at a character of the paragraph's text.
    const at = (offset: number): [Node, number] => {
      const walker = el.ownerDocument.createTreeWalker(p, NodeFilter.SHOW_TEXT);
      let seen = 0;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const length = n.textContent?.length ?? 0;
        if (offset <= seen + length) return [n, offset - seen];
        seen += length;
      }
      throw new Error(`offset ${offset} is past the paragraph`);
    };
    const range = el.ownerDocument.createRange();
    range.setStart(...at(start));
    range.setEnd(...at(start + wanted.length));
    const selection = el.ownerDocument.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
  }, text);
}

test('add a PDF, find it by a question, cite a passage of it, and accept a note with it', async ({
  page,
  context,
}, testInfo) => {
  test.setTimeout(90_000);
  const ada = await login(ADA);
  const title = `Kelp canopy loss after the 2019 heatwave (${unique()})`;
  const pdf = Buffer.from(await makePdf(PAGES, { title }));
  await signInBrowser(context, ada);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();

  // Hold the upload's answer a moment, so the progress bar can be seen while it is under way.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/trpc/documents.upload', async (route) => {
    await held;
    await route.continue();
  });

  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });
  await dialog
    .getByLabel('Choose files')
    .setInputFiles({ name: 'kelp-2019.pdf', mimeType: 'application/pdf', buffer: pdf });
  const row = dialog.getByRole('listitem').filter({ hasText: 'kelp-2019.pdf' });
  const bar = row.getByRole('progressbar', { name: 'Uploading kelp-2019.pdf' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuemin', '0');
  await expect(bar).toHaveAttribute('aria-valuemax', '100');
  await expect(bar).toHaveAttribute('aria-valuenow', /^(\d|[1-9]\d|100)$/);
  release();

  // Added, then indexed in the background: the row follows it to "ready".
  await expect(bar).toBeHidden();
  await expect(row.getByRole('status')).toHaveText('Added');
  await expect(row).toContainText(`ready: ${title} (2 pages,`, { timeout: 20_000 });
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await keepScreenshot(page, testInfo, 'library-add-document');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  // The library: the new document first (most recently active), added just now, quietly ready.
  const rows = page.getByRole('list', { name: 'Documents' }).getByRole('listitem');
  await expect(rows.first()).toContainText(title);
  await expect(rows.first()).toContainText('added just now');
  await expect(rows.first()).not.toContainText('indexing');
  // The demo document with a finished run shows its memory, linked to the panel.
  const reefRow = rows.filter({ has: page.getByRole('link', { name: REEF_TITLE, exact: true }) });
  const memoryLink = reefRow.getByRole('link', { name: /^(agent memory|expired|forgotten|purged)/ });
  await expect(memoryLink).toHaveAttribute('href', /\/memory\?session=/);
  await expect(memoryLink).toHaveAccessibleDescription(REEF_TITLE);
  expect(await seriousViolations(page)).toEqual([]);
  await keepScreenshot(page, testInfo, 'library');

  // A question finds it, on the page that answers it.
  await page
    .getByRole('searchbox', { name: 'Search your documents' })
    .fill('How much did the kelp canopy shrink at the warm sites?');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const hit = page
    .getByRole('list', { name: 'Search results' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: title }) })
    .first();
  await expect(hit).toContainText('p. 2');
  await expect(hit).toContainText('62 percent');
  // The question's words the passage holds are marked (hybrid search, issue 27).
  await expect(hit.locator('mark', { hasText: /^canopy$/i })).toBeVisible();
  await hit.getByRole('link', { name: title }).click();

  // The document page: the text with its page markers; a selected passage is kept for review.
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  // At the passage, highlighted, by the link a citation chip uses (issue 40).
  await expect(page).toHaveURL(/\?page=2&quote=/);
  const text = page.getByRole('article', { name: 'Document' });
  await expect(text.getByRole('heading', { name: 'Page 1' })).toBeVisible();
  await expect(text.getByRole('heading', { name: 'Page 2' })).toBeVisible();
  await selectText(text, CITED);
  await text.getByRole('button', { name: 'Cite in a review' }).click();
  await expect(text.getByRole('status')).toContainText(
    'Passage kept: propose a working note for review in Memory to use it.',
  );
  const pdfDoc = await documentTitled(ada, title);
  expect(pdfDoc).toMatchObject({ source: 'pdf', pages: 2 });
  await keepScreenshot(page, testInfo, 'library-document-pages');

  // In the Memory panel of the reef document, a working note cites the PDF.
  const reef = await documentTitled(ada, REEF_TITLE);
  const run = await startChatRun(ada, reef.id, 'library cite');
  const lead = `lead:kelp-${unique()}`;
  const statement = 'Kelp canopy shrank by about two thirds at the warm sites.';
  await run.agent.remember({ changes: [{ op: 'add', name: lead, text: statement }] });
  await page.goto(panelPath(reef.id, run.sessionId));
  await panelSections(page)
    .notes.getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: new RegExp(literal(lead)) }) })
    .getByRole('button', { name: 'Propose for review' })
    .click();
  const workbench = page.getByRole('dialog', { name: `Propose for review: “${statement}”` });
  await expect(workbench.getByRole('radio', { name: 'Finding' })).toBeChecked();
  // A finding's study, picked from the document's reviewed records by its title.
  await workbench
    .getByRole('combobox', { name: 'From study (required)' })
    .selectOption({ label: 'Resurvey of the northern reef, 2015–2020' });
  // The kept passage is offered for its own document: choose the PDF, then use it on its page.
  await expect(
    workbench.getByRole('button', { name: `Use the passage you selected in “${title}”` }),
  ).toBeVisible();
  await workbench.getByRole('combobox', { name: 'Source' }).selectOption({ label: title });
  await expect(workbench.getByRole('region', { name: `Source text: ${title}, page 1` })).toBeVisible();
  await workbench.getByRole('button', { name: 'Use the passage you selected on the document page' }).click();
  await expect(workbench.getByRole('textbox', { name: 'Passage' })).toHaveValue(CITED);
  await expect(workbench.getByRole('region', { name: `Source text: ${title}, page 2` })).toBeVisible();
  await expect(workbench.getByText('✓ passage found in the source (p. 2)')).toBeVisible();
  await workbench.getByRole('radio', { name: 'Accept' }).check();
  await workbench.getByRole('textbox', { name: 'Comment' }).fill('Page 2 of the survey report.');
  await workbench.getByRole('button', { name: 'Record decision' }).click();
  await expect(workbench.getByText(/^Revision \d+ created\./)).toBeVisible();

  const decision = (await ada.api.review.history.query({ documentId: reef.id })).decisions.find(
    (d) => d.text === statement,
  );
  expect(decision).toMatchObject({
    decision: 'accept',
    name: expect.stringMatching(/^finding:kelp-canopy-shrank-by-about-two-thirds/),
    passage: CITED,
    source: { documentId: pdfDoc.id, title },
  });
});

test('the dialog says in plain words why a file was refused, and never sends one over the limit', async ({
  page,
  context,
}) => {
  const ada = await login(ADA);
  await signInBrowser(context, ada);
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/trpc/documents.upload')) sent.push(request.url());
  });
  await page.goto('/');
  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });

  // Bytes no text file holds (NULs, control characters): a ".txt" that is really binary.
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37 + 11) % 256));
  await dialog.getByLabel('Choose files').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: binary },
    { name: 'locked.pdf', mimeType: 'application/pdf', buffer: Buffer.from(makeEncryptedPdf()) },
    { name: 'huge.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(21 * 1024 * 1024, 0x25) },
  ]);
  const rowOf = (name: string) => dialog.getByRole('listitem').filter({ hasText: name });
  await expect(rowOf('huge.pdf')).toContainText('This file is 21 MB; a file can be at most 20 MB.');
  await expect(rowOf('notes.txt')).toContainText('This file is not a PDF, plain text or Markdown document.');
  await expect(rowOf('locked.pdf')).toContainText(
    'This PDF is password-protected; remove the password and upload it again.',
  );
  // One request per file the browser let through, one after the other; nothing was added.
  expect(sent).toHaveLength(2);
  const titles = (await ada.api.documents.list.query()).map((d) => d.title);
  expect(titles.some((t) => /notes|locked|huge/.test(t))).toBe(false);
});

test('a pasted Markdown text is added, and its page has no page markers', async ({ page, context }) => {
  const ada = await login(ADA);
  await signInBrowser(context, ada);
  await page.goto('/');
  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });
  await dialog.getByRole('radio', { name: 'Paste text' }).check();

  // Nothing filled in: said next to each input, nothing sent.
  await dialog.getByRole('button', { name: 'Add text' }).click();
  await expect(dialog.getByLabel('Title', { exact: true })).toHaveAccessibleDescription(
    'Give the document a title.',
  );
  await expect(dialog.getByLabel('Text', { exact: true })).toHaveAccessibleDescription(
    'Paste the text of the document.',
  );

  const title = `Urchin barrens, field notes (${unique()})`;
  await dialog.getByLabel('Title', { exact: true }).fill(title);
  await dialog
    .getByLabel('Text', { exact: true })
    .fill(
      '# Urchin barrens\n\nBarrens spread where sea otters were absent.\n\nKelp returned within two years of culling.',
    );
  await dialog.getByRole('radio', { name: 'Markdown' }).check();
  await dialog.getByRole('button', { name: 'Add text' }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Added:' })).toContainText(title);
  await dialog.getByRole('link', { name: title }).click();

  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  const text = page.getByRole('article', { name: 'Document' });
  await expect(text.getByText('Kelp returned within two years of culling.')).toBeVisible();
  await expect(text.getByRole('heading', { name: /^Page \d+$/ })).toHaveCount(0);
  expect(await documentTitled(ada, title)).toMatchObject({ source: 'markdown' });
});
