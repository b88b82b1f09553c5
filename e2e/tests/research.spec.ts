// Flow, on the server with the hosted runtime beside it (scripted research agent, offline): the
// owner asks about a document (Shift+Enter for a second line, Enter to send); while the page is
// open, the agent's library cards (searched, read) and its memory card appear; its reply cites
// what it read as chips; a chip opens the document at the quoted passage, highlighted; the note
// the agent kept from that passage, proposed for review, arrives with its source and passage
// filled in and checked (issue 28).
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import {
  ADA,
  REEF_TITLE,
  keepScreenshot,
  literal,
  originOf,
  panelSections,
  servers,
  unique,
} from './support.ts';

test.use({ baseURL: originOf(servers.chat) });

/** What the scripted agent's replies begin with (packages/agent/src/runtime/scripted-agent.ts). */
const SCRIPTED = 'Scripted agent (no model configured';

/** Whitespace as the quote check folds it. */
const folded = (s: string): string => s.replace(/\s+/g, ' ').trim();

test('ask in a document: live library and memory cards, a cited reply, the passage highlighted, the note proposed from its source', async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await page.getByRole('button', { name: `Sign in as ${ADA}` }).click();
  await page.getByRole('link', { name: REEF_TITLE }).click();
  await expect(page.getByRole('heading', { level: 1, name: REEF_TITLE })).toBeVisible();
  const documentId = decodeURIComponent(/\/documents\/([^/?#]+)/.exec(page.url())![1]!);

  // Two lines: Shift+Enter breaks the line, Enter sends.
  const runs = page.getByRole('region', { name: 'Runs' });
  const box = runs.getByRole('textbox', { name: 'Ask about this document' });
  const first = 'Which survey method measured coral cover at the reef sites?';
  const second = `Answer with the page, please (${unique()}).`;
  await box.click();
  await page.keyboard.type(first);
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type(second);
  await expect(box).toHaveValue(`${first}\n${second}`);
  // An input method's Enter only confirms what it composed: nothing is sent.
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('chat.ask')) asked.push(request.url());
  });
  await box.dispatchEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true });
  await page.waitForTimeout(300);
  expect(asked, 'an Enter while composing sends nothing').toEqual([]);
  await page.keyboard.press('Enter');

  const run = runs.getByRole('article').filter({ hasText: second });
  await expect(run.getByRole('listitem').filter({ hasText: second })).toHaveText(`you: ${first}\n${second}`);
  const transcript = run.getByRole('list', { name: 'Transcript' });
  const items = transcript.locator(':scope > li');

  // The agent's work arrives on the open page, no reload: its searches, what it read, what it kept.
  const searched = items.filter({ hasText: /^Searched (the library|“.+”) for “.+” — \d+ hits?$/ });
  await expect(searched.first()).toBeVisible({ timeout: 30_000 });
  const reads = run.getByRole('link', { name: new RegExp(`^Read p\\. \\d+ of “${literal(REEF_TITLE)}”$`) });
  await expect(reads.first()).toBeVisible();
  await expect(items.filter({ hasText: /^Remembered \d+ notes?: lead:/ })).toHaveCount(1);

  // The reply, and what it cites: the passage it read as a chip that says the quote was found on
  // its page (and, without a model, that its support was not checked), its note as a note.
  const reply = items.filter({ hasText: /^agent:/ });
  await expect(reply).toHaveCount(1);
  await expect(reply).toContainText(SCRIPTED);
  const citations = reply.getByRole('list', { name: 'Citations' });
  const chip = citations.getByRole('link', {
    name: new RegExp(`^\\[1\\] ${literal(REEF_TITLE)} · quote found on p\\. \\d+ · support not checked$`),
  });
  await expect(chip).toBeVisible();
  await expect(
    citations.getByRole('listitem').filter({ hasText: 'working note — not evidence' }),
  ).toHaveCount(1);
  await expect(citations).not.toContainText('unverified');
  const href = (await chip.getAttribute('href')) ?? '';
  const cited = new URL(href, page.url()).searchParams;
  const quote = cited.get('quote') ?? '';
  const citedPage = Number(cited.get('page'));
  expect(quote.length, 'the chip carries its quote').toBeGreaterThan(10);
  // Keyboard users reach the chip.
  await chip.focus();
  await expect(chip).toBeFocused();

  const axe = await new AxeBuilder({ page })
    .include('[aria-label="Runs"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
    [],
  );
  await keepScreenshot(page, testInfo, 'research-cited-reply');

  // The chip opens the document at the quoted passage, highlighted and in view.
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(
    new RegExp(`/documents/${literal(encodeURIComponent(documentId))}\\?page=${citedPage}&quote=`),
  );
  const mark = page.getByRole('article', { name: 'Document' }).locator('mark.quoted');
  await expect(mark.first()).toBeInViewport();
  expect(folded((await mark.allTextContents()).join(' ')).toLowerCase()).toBe(folded(quote).toLowerCase());
  await expect(page.getByText('The quoted passage was not found on this page')).toHaveCount(0);
  await keepScreenshot(page, testInfo, 'research-quote-highlighted');

  // A quote the page does not hold: the page opens with a notice, nothing marked.
  await page.goto(
    `/documents/${encodeURIComponent(documentId)}?page=1&quote=${encodeURIComponent('no such words here at all')}`,
  );
  await expect(page.getByText(/^The quoted passage was not found on this page/)).toBeVisible();
  await expect(page.locator('mark.quoted')).toHaveCount(0);
  await page.goBack();
  await expect(mark.first()).toBeVisible();

  // The note the agent kept from that passage, cited as a note: it opens the Memory panel, where
  // Propose for review arrives with the note's source.
  const noteLink = run
    .getByRole('list', { name: 'Citations' })
    .getByRole('link', { name: /^lead:[a-z0-9-]+$/ });
  const lead = (await noteLink.textContent()) ?? '';
  await expect(run.getByText(new RegExp(`^Remembered \\d+ notes?: ${literal(lead)}`))).toBeVisible();
  await noteLink.click();
  await expect(page).toHaveURL(/\/memory\?session=ses_/);
  const { notes } = panelSections(page);
  await notes
    .getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: new RegExp(literal(lead)) }) })
    .getByRole('button', { name: 'Propose for review' })
    .click();
  // Titled by what the note found, not by the question that led to it.
  const dialog = page.getByRole('dialog', { name: /^Propose for review: “/ });
  await expect(dialog).toBeVisible();
  await expect(dialog).not.toHaveAccessibleName(/Asked/);
  await expect(dialog.getByRole('combobox', { name: 'Source' })).toHaveValue(documentId);
  await expect(dialog.getByRole('textbox', { name: 'Passage' })).toHaveValue(quote);
  await expect(dialog.getByText('✓ passage found in the source')).toBeVisible();
  await expect(
    dialog.getByText(`Filled in from the note’s source: p. ${citedPage} of “${REEF_TITLE}”.`),
  ).toBeVisible();
  const source = dialog.getByRole('region', { name: `Source text: ${REEF_TITLE}` });
  // The source box has scrolled itself to the passage, marked there.
  await source.scrollIntoViewIfNeeded();
  await expect(source.locator('mark.quoted').first()).toBeInViewport();
  await keepScreenshot(page, testInfo, 'research-proposed-from-source');

  // Changed, the passage is checked as any other; put back, it is the note's again.
  const passage = dialog.getByRole('textbox', { name: 'Passage' });
  await passage.fill(`${quote} And more words the document never said.`);
  await expect(dialog.getByText('✗ passage not found in the source')).toBeVisible();
  await expect(dialog.getByText(/^Filled in from the note’s source/)).toHaveCount(0);
  await passage.fill(quote);
  await expect(dialog.getByText('✓ passage found in the source')).toBeVisible();
});
