// Flow: Forget now → confirm in the dialog, by keyboard → the lists are empty, the state says
// forgotten (also after a reload), the transcript's card reads "Memory forgotten", the run no
// longer offers Continue this chat, its reply names no note and its note chip says once what it
// was; and the agent's next write is refused with session_closed.
import { expect, test } from '@playwright/test';
import {
  adaRunOnReef,
  apiClient,
  expectToolRefusal,
  keepScreenshot,
  literal,
  panelPath,
  panelSections,
  servers,
  signInBrowser,
  unique,
} from './support.ts';

test('Forget now empties the session for good and the agent can no longer write', async ({
  page,
  context,
}, testInfo) => {
  const { ada, reef, run } = await adaRunOnReef('forget');
  const lead = `lead:forget-${unique()}`;
  const todo = `todo:forget-${unique()}`;
  const written = await run.agent.remember({
    changes: [
      { op: 'add', name: lead, text: 'the northern transect was resurveyed twice' },
      {
        op: 'add',
        name: todo,
        text: 'find out which of the two surveys table 2 uses',
        links: [{ rel: 'depends_on', to: lead }],
      },
    ],
  });

  // The agent's reply names both notes and cites the lead.
  const said = unique();
  await apiClient(servers.main, run.runToken).agent.say.mutate({
    text: `I remembered ${lead} and ${todo} (${said}).`,
    citations: [{ note: lead }],
  });

  await signInBrowser(context, ada);
  // Before: the run, not the one looked at, offers Continue this chat, and its chip names the note.
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  const ourRun = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('article')
    .filter({ hasText: run.label });
  await expect(ourRun.getByRole('button', { name: 'Continue this chat' })).toBeVisible();
  const chip = ourRun.getByRole('list', { name: 'Citations' }).getByRole('listitem');
  await expect(chip).toHaveText(`[1] ${lead} working note — not evidence`);
  await expect(ourRun).toContainText(`I remembered ${lead} and ${todo} (${said}).`);

  await page.goto(panelPath(reef.id, run.sessionId));
  const { notes, reviewed } = panelSections(page);
  await expect(notes.getByRole('button', { name: new RegExp(literal(lead)) })).toBeVisible();
  await expect(notes.getByRole('button', { name: new RegExp(literal(todo)) })).toBeVisible();
  await expect(page.getByText(/^Forgets in /)).toBeVisible();

  // Keyboard only. Escape cancels and hands focus back to the button.
  const forgetButton = page.getByRole('button', { name: 'Forget now' });
  await forgetButton.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Forget this session now?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAccessibleDescription(
    "The agent's working notes, their history and their search index are deleted at once. Reviewed knowledge is not affected.",
  );
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(forgetButton).toBeFocused();
  await expect(notes.getByRole('button', { name: new RegExp(literal(lead)) })).toBeVisible();

  // Cancel by button leaves everything as it was too.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Enter'); // Cancel has the focus
  await expect(dialog).toBeHidden();
  expect(
    (await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId })).session?.state,
  ).toBe('open');

  // Now for real: open, Tab to the dialog's own "Forget now", Enter.
  await forgetButton.focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Forget now' })).toBeFocused();
  // Focus stays inside the dialog.
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(dialog.getByRole('button', { name: 'Forget now' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();

  const forgottenLine = page.getByText(
    /^Forgotten at \d{2}:\d{2} today\. Nothing from this session is kept\.$/,
  );
  await expect(forgottenLine).toBeVisible();
  await expect(page.getByRole('button', { name: 'Forget now' })).toHaveCount(0);
  await expect(page.getByText(/^Forgets in /)).toHaveCount(0);
  await expect(notes.getByRole('button')).toHaveCount(0);
  await expect(notes).toContainText('0 notes');
  await expect(notes).toContainText('Nothing from this session is kept.');
  await expect(reviewed.getByRole('button')).toHaveCount(0);
  await expect(page.getByLabel('Session').locator('option:checked')).toHaveText(/ · forgotten$/);

  // The server agrees, and a reload shows the same forgotten state.
  const after = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId });
  expect(after.session?.state).toBe('forgotten');
  expect(after.workingNotes).toEqual([]);
  await page.reload();
  await expect(forgottenLine).toBeVisible();
  await expect(panelSections(page).notes.getByRole('button')).toHaveCount(0);
  await keepScreenshot(page, testInfo, 'memory-panel-forgotten');

  // The transcript names nothing any more: not the card, not the reply (the server reads it with
  // "a forgotten note" in each name's place), not the chip, which says once what it was. The run
  // is forgotten in the same word as the panel's and takes no question: no Continue this chat.
  await page.goto(`/documents/${encodeURIComponent(reef.id)}`);
  await expect(ourRun).toHaveCount(1);
  await expect(ourRun).toContainText('Memory forgotten');
  await expect(ourRun.getByRole('heading', { level: 3 })).toHaveText(/^Chat run · .+ · forgotten$/);
  await expect(ourRun).toContainText(`I remembered a forgotten note and a forgotten note (${said}).`);
  await expect(ourRun).not.toContainText(lead);
  await expect(ourRun).not.toContainText(todo);
  await expect(ourRun).not.toContainText(/Remembered \d+ note/);
  await expect(chip).toHaveText('[1] a forgotten note — not evidence');
  await expect(ourRun).not.toContainText(/working note|note working/);
  await expect(ourRun.getByRole('button', { name: 'Continue this chat' })).toHaveCount(0);
  const cardLink = ourRun.getByRole('link', { name: 'View in Memory' });
  await expect(cardLink).toHaveAttribute('href', panelPath(reef.id, run.sessionId));
  await keepScreenshot(page, testInfo, 'transcript-forgotten');

  // The agent's next write is refused, and so is every other tool.
  const refused = await expectToolRefusal(
    run.agent.remember({
      basedOn: written.version,
      changes: [{ op: 'add', name: `lead:late-${unique()}`, text: 'too late' }],
    }),
    'session_closed',
  );
  expect(refused.code).toBe('PRECONDITION_FAILED');
  await expectToolRefusal(run.agent.load(), 'session_closed');
  await expectToolRefusal(run.agent.read({ name: lead }), 'session_closed');
});
