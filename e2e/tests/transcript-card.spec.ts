// Flow: on the document page, the run transcript's memory card ("Remembered N notes: …") opens
// the Memory panel at that run's session.
import { expect, test } from '@playwright/test';
import { adaRunOnReef, literal, panelSections, signInBrowser, startChatRun, unique } from './support.ts';

test("the transcript's memory card opens the panel at that session", async ({ page, context }) => {
  const { ada, reef, run } = await adaRunOnReef('transcript card');
  const lead = `lead:card-${unique()}`;
  const ruledOut = `ruled-out:card-${unique()}`;
  await run.agent.remember({
    changes: [
      { op: 'add', name: lead, text: 'recovery figures in the abstract and table 3 disagree' },
      { op: 'add', name: ruledOut, text: 'the 2017 tiles are a different site set' },
    ],
  });
  // Another session on the same document, newer than ours: the card must not just open "the newest".
  const other = await startChatRun(ada, reef.id, 'newer run');
  const otherNote = `lead:other-${unique()}`;
  await other.agent.remember({ changes: [{ op: 'add', name: otherNote, text: 'not this one' }] });

  await signInBrowser(context, ada);
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  const runs = page.getByRole('region', { name: 'Runs' });
  const ourRun = runs.getByRole('article').filter({ hasText: run.label });
  await expect(ourRun).toHaveCount(1);
  const card = ourRun.getByRole('listitem').filter({ hasText: /Remembered 2 notes/ });
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(`Remembered 2 notes: ${lead}, ${ruledOut}`);
  // A call that only removed notes says so, and a mixed call says both.
  await run.agent.remember({ changes: [{ op: 'remove', name: ruledOut }] });
  const later = `lead:later-${unique()}`;
  await run.agent.remember({
    changes: [
      { op: 'add', name: later, text: 'check table 4' },
      { op: 'remove', name: lead },
    ],
  });
  await page.reload();
  await expect(ourRun.getByRole('listitem').filter({ hasText: /Removed 1 note\b/ })).toHaveCount(1);
  await expect(ourRun.getByRole('listitem').filter({ hasText: /Remembered 1 note · removed 1/ })).toHaveCount(
    1,
  );

  await card.getByRole('link', { name: 'View in Memory' }).click();
  await expect(page).toHaveURL(
    new RegExp(
      `/documents/${literal(encodeURIComponent(reef.id))}/memory\\?session=${literal(run.sessionId)}$`,
    ),
  );
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  const picker = page.getByLabel('Session');
  await expect(picker).toHaveValue(run.sessionId);
  await expect(picker.locator('option:checked')).toHaveText(/^Chat run · .+ · open$/);
  const { notes } = panelSections(page);
  await expect(notes.getByRole('button', { name: new RegExp(literal(later)) })).toBeVisible();
  await expect(notes).not.toContainText(otherNote);
  await expect(notes).toContainText('1 note');
});
