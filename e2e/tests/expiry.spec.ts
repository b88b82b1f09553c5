// Flow, on the server whose sessions live SESSION_TTL_SECONDS=4: a session past its time shows
// "Expired — waiting to be purged" (and the agent is refused at once, by the clock), then a purge
// pass (`pnpm --filter @sponge/api purge -- --once`, a separate process with the purge key) turns
// it into "Purged at 14:02 today, after it expired. Nothing from this session is kept." — and the
// run's transcript says purged too, and takes no question.
import { expect, test } from '@playwright/test';
import {
  ADA,
  REEF_TITLE,
  documentTitled,
  expectToolRefusal,
  literal,
  login,
  originOf,
  panelPath,
  panelSections,
  purgeOnce,
  servers,
  signInBrowser,
  startChatRun,
  unique,
} from './support.ts';

const server = servers.shortTtl;
const origin = originOf(server);

test('a short-lived session shows as expired, and as purged after a purge pass', async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const ada = await login(ADA, server);
  const reef = await documentTitled(ada, REEF_TITLE);
  const run = await startChatRun(ada, reef.id, 'expiry');
  const lead = `lead:expiry-${unique()}`;
  await run.agent.remember({
    changes: [{ op: 'add', name: lead, text: 'written just before the session ends' }],
  });
  const opened = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId });
  const forgetsAt = Date.parse(opened.session!.forgetsAt);
  expect(forgetsAt - Date.parse(opened.session!.startedAt)).toBe(server.ttlSeconds * 1000);

  await signInBrowser(context, ada);
  await page.goto(`${origin}${panelPath(reef.id, run.sessionId)}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  const { notes } = panelSections(page);
  const row = notes.getByRole('button', { name: new RegExp(literal(lead)) });
  await expect(row).toBeVisible();

  // Past forgetsAt: expired, still waiting for the purge worker, so the note is still listed.
  const expired = page.getByText('Expired — waiting to be purged', { exact: true });
  await expect(expired).toBeVisible({ timeout: server.ttlSeconds * 1000 + 10_000 });
  expect(Date.now()).toBeGreaterThanOrEqual(forgetsAt);
  await expect(page.getByText(/^Forgets in /)).toHaveCount(0);
  await expect(row).toBeVisible();

  // The clock alone closes the session to the agent, before any purge.
  await expectToolRefusal(
    run.agent.remember({
      basedOn: 1,
      changes: [{ op: 'add', name: `lead:late-${unique()}`, text: 'too late' }],
    }),
    'session_closed',
  );

  const pass = await purgeOnce(server);
  expect(pass.code, pass.output).toBe(0);

  // The panel refreshes on its own: purged, and nothing left to list.
  await expect(
    page.getByText(
      /^Purged at \d{2}:\d{2} (today|yesterday), after it expired\. Nothing from this session is kept\.$/,
    ),
  ).toBeVisible();
  await expect(expired).toHaveCount(0);
  await expect(notes.getByRole('button')).toHaveCount(0);
  await expect(notes).toContainText('0 notes');
  await expect(page.getByRole('button', { name: 'Forget now' })).toHaveCount(0);
  await expect(page.getByLabel('Session').locator('option:checked')).toHaveText(/ · purged$/);

  const purged = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId });
  expect(purged.session?.state).toBe('purged');
  expect(purged.workingNotes).toEqual([]);
  await expectToolRefusal(run.agent.load(), 'session_closed');

  // The document's run says purged in the same word, and offers no question for a memory gone.
  await page.goto(`${origin}/documents/${encodeURIComponent(reef.id)}`);
  const ourRun = page
    .getByRole('region', { name: 'Runs' })
    .getByRole('article')
    .filter({ hasText: run.label });
  await expect(ourRun.getByRole('heading', { level: 3 })).toHaveText(/^Chat run · .+ · purged$/);
  await expect(ourRun).toContainText('Memory purged');
  await expect(ourRun).not.toContainText('forgotten');
  await expect(ourRun).not.toContainText(lead);
  await expect(ourRun.getByRole('button', { name: 'Continue this chat' })).toHaveCount(0);
});
