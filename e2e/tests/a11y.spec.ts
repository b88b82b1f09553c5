// Flow: an axe check (WCAG 2.x A and AA rules) of the Memory panel with both lists, an opened
// row and a conflict, and of the open Forget now dialog: no serious or critical violations.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import type { Page, TestInfo } from '@playwright/test';
import { adaRunOnReef, literal, panelPath, panelSections, signInBrowser, unique } from './support.ts';

async function seriousViolations(page: Page, testInfo: TestInfo, name: string) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  // Guards against checking a blank or half-loaded page: real content was examined.
  expect(results.passes.length).toBeGreaterThan(10);
  await testInfo.attach(`axe-${name}.json`, {
    body: JSON.stringify(results.violations, null, 2),
    contentType: 'application/json',
  });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
}

test('the Memory panel and its Forget now dialog pass axe', async ({ page, context }, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('a11y');
  const lead = `lead:a11y-${unique()}`;
  await run.agent.remember({
    changes: [
      {
        op: 'add',
        name: lead,
        text: 'cover estimates differ between the two survey methods',
        data: { sites: 112, method: 'transect' },
      },
      // Same name as the reviewed finding, other content: a conflict marked on both rows.
      {
        op: 'add',
        name: 'finding:bleaching-threshold',
        text: 'the threshold looks closer to 6 degree heating weeks',
        links: [{ rel: 'depends_on', to: lead }],
      },
    ],
  });

  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  const { notes, reviewed } = panelSections(page);
  const row = notes.getByRole('button', { name: new RegExp(literal(lead)) });
  await expect(row).toBeVisible();
  await expect(reviewed.getByRole('button', { name: /finding:bleaching-threshold/ })).toContainText(
    '⚠ conflicts with',
  );
  await expect(page.getByText(/^Forgets in /)).toBeVisible();
  await row.click();
  await expect(row).toHaveAttribute('aria-expanded', 'true');
  // The reviewed record too: its detail has the longest content (data, cited passage, decision).
  const reviewedRow = reviewed.getByRole('button', { name: /finding:bleaching-threshold/ });
  await reviewedRow.click();
  await expect(reviewedRow).toHaveAttribute('aria-expanded', 'true');

  // Landmarks and labelled controls a screen-reader user navigates by.
  await expect(page.getByRole('main')).toHaveCount(1);
  await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Session' })).toBeVisible();

  expect(await seriousViolations(page, testInfo, 'panel')).toEqual([]);

  await page.getByRole('button', { name: 'Forget now' }).click();
  const dialog = page.getByRole('dialog', { name: 'Forget this session now?' });
  await expect(dialog).toBeVisible();
  expect(await seriousViolations(page, testInfo, 'forget-dialog')).toEqual([]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toBeVisible();
});
