// Flow: what a reply's citation chips claim (SPEC §7b, "What a chip claims"; issue 40). The test
// plays the hosted runtime after its support checks: it posts a reply citing four passages with
// what the checks found, as the runtime does with its run token. In the browser each chip says
// only what was checked — "quote found on p. 1", never "quote verified" — and whether the passage
// supports its sentence, a warning when it does not; a quote not on the page claims no support
// whatever the runtime said.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { REEF_TITLE, adaRunOnReef, apiClient, keepScreenshot, signInBrowser } from './support.ts';

test('citation chips say what was checked: the quote on its page, and whether the passage supports the sentence', async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('support chips');
  const cite = (quote: string, support?: 'supported' | 'unsupported' | 'unchecked') => ({
    documentId: reef.id,
    page: 1,
    quote,
    ...(support ? { support } : {}),
  });
  const runtime = apiClient(ada.server, run.runToken);
  const said = await runtime.agent.say.mutate({
    text:
      'Over 90 percent of the most exposed sites bleached [1]. Isolated sites recovered fastest [2]. ' +
      'Branching corals regained most of the cover [3]. Every site recovered within two years [4].',
    citations: [
      cite('bleached in over 90 percent of surveyed sites', 'supported'),
      cite('Larval supply limited recovery at isolated sites', 'unsupported'),
      cite('Fast-growing branching corals accounted for most of the regained cover'),
      cite('every site recovered fully within two years', 'supported'),
    ],
  });
  expect(said.citations.map((c) => ('support' in c ? [c.status, c.support] : null))).toEqual([
    ['verified', 'supported'],
    ['verified', 'unsupported'],
    ['verified', 'unchecked'],
    ['unverified', 'unchecked'],
  ]);

  await signInBrowser(context, ada);
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  const ourRun = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('article')
    .filter({ hasText: run.label });
  const citations = ourRun.getByRole('list', { name: 'Citations' });
  await expect(citations.getByRole('listitem')).toHaveCount(4);
  const chip = (name: string) => citations.getByRole('link', { name, exact: true });
  await expect(chip(`[1] ${REEF_TITLE} · quote found on p. 1 · supports this sentence`)).toBeVisible();
  await expect(
    chip(`[2] ${REEF_TITLE} · quote found on p. 1 · does not support this sentence`),
  ).toBeVisible();
  await expect(chip(`[3] ${REEF_TITLE} · quote found on p. 1 · support not checked`)).toBeVisible();
  // Seen, the warning carries its sign and the check mark says what was found.
  await expect(citations.getByRole('listitem').nth(1)).toHaveText(
    `[2] ${REEF_TITLE} · ✓ quote found on p. 1 · ⚠ does not support this sentence`,
  );
  const fourth = citations.getByRole('listitem').nth(3);
  await expect(fourth).toContainText('unverified — the quote was not found on that page');
  await expect(fourth).not.toContainText('support');
  await expect(fourth.getByRole('link')).toHaveCount(0);
  await expect(citations).not.toContainText('quote verified');

  // The warning looks like one: not the green of a passage that stands.
  const background = (n: number) =>
    citations
      .getByRole('link')
      .nth(n)
      .evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await background(1)).not.toBe(await background(0));

  const axe = await new AxeBuilder({ page })
    .include('[aria-label="Citations"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
    [],
  );
  await citations.scrollIntoViewIfNeeded();
  const path = testInfo.outputPath('citation-support-chips.png');
  await ourRun.screenshot({ path, animations: 'disabled' });
  await testInfo.attach('citation-support-chips', { path, contentType: 'image/png' });
  await keepScreenshot(page, testInfo, 'citation-support');

  // A chip that does not support its sentence still opens the passage: the reader can judge.
  await chip(`[2] ${REEF_TITLE} · quote found on p. 1 · does not support this sentence`).click();
  await expect(page).toHaveURL(/\?page=1&quote=Larval/);
  await expect(
    page.getByRole('article', { name: 'Document' }).locator('mark.quoted').first(),
  ).toBeInViewport();
});
