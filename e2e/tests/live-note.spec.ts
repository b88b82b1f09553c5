// Flow: the owner watches the Memory panel of a running session while a scripted agent
// (@sponge/agent) remembers notes; they appear without a reload.
import { expect, test } from '@playwright/test';
import {
  adaRunOnReef,
  literal,
  panelPath,
  panelSections,
  shortDigest,
  signInBrowser,
  unique,
} from './support.ts';

test('a note the agent remembers shows up in the open panel without a reload', async ({ page, context }) => {
  const { ada, reef, run } = await adaRunOnReef('live note');
  const loaded = await run.agent.load();
  expect(loaded.session.version).toBe(0);

  await signInBrowser(context, ada);
  await page.goto(panelPath(reef.id, run.sessionId));
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  await expect(page.getByLabel('Session')).toHaveValue(run.sessionId);
  const { notes, reviewed } = panelSections(page);
  await expect(notes).toContainText('0 notes');
  await expect(notes).toContainText('The agent has not remembered anything in this session yet.');
  // Reviewed knowledge is in view from the start; only the working notes change.
  await expect(reviewed.getByRole('button', { name: /finding:bleaching-threshold/ })).toBeVisible();

  // A marker that a reload or a new navigation would wipe.
  await page.evaluate(() => Object.assign(globalThis, { __e2eSamePage: true }));

  const lead = `lead:live-${unique()}`;
  const first = await run.agent.remember({
    changes: [{ op: 'add', name: lead, text: 'site table lists 112 sites; the map shows 108' }],
  });
  expect(first.version).toBe(1);
  const leadRow = notes.getByRole('button', { name: new RegExp(literal(lead)) });
  await expect(leadRow).toBeVisible();
  await expect(leadRow).toContainText(shortDigest(first.applied[0]!.digest!));
  await expect(notes).toContainText('1 note');

  // A second write, a replace and an add in one call, shows up the same way.
  const todo = `todo:live-${unique()}`;
  const second = await run.agent.remember({
    changes: [
      { op: 'replace', name: lead, text: 'site table lists 112 sites; the map shows 108 (4 merged)' },
      {
        op: 'add',
        name: todo,
        text: 'ask which four sites were merged',
        links: [{ rel: 'depends_on', to: lead }],
      },
    ],
  });
  expect(second.version).toBe(2);
  await expect(notes.getByRole('button', { name: new RegExp(literal(todo)) })).toBeVisible();
  await expect(leadRow).toContainText(shortDigest(second.applied[0]!.digest!));
  await expect(notes).toContainText('2 notes');

  await leadRow.click();
  await expect(page.locator(`#${await leadRow.getAttribute('aria-controls')}`)).toContainText('(4 merged)');

  expect(await page.evaluate(() => (globalThis as { __e2eSamePage?: boolean }).__e2eSamePage)).toBe(true);
});
