// Flow, on the server with the hosted runtime beside it (`pnpm --filter @sponge/agent runtime`,
// scripted agent, offline): the owner asks about a document on its page and sees the question at
// once, then the agent's reply and its memory card; the card opens the panel at the run's
// session; after Forget now the run takes no more questions and its reply names no forgotten
// note, and a question asked then starts a new run, which the runtime answers.
// And on the usual server, where no runtime runs: a question that cannot be sent says why, and
// one nobody answers shows "Working…", then, after a minute, that the runtime has not answered.
import { expect, test } from '@playwright/test';
import {
  ADA,
  REEF_TITLE,
  documentTitled,
  keepScreenshot,
  literal,
  login,
  originOf,
  panelSections,
  servers,
  signInBrowser,
  unique,
} from './support.ts';

const server = servers.chat;
test.use({ baseURL: originOf(server) });

/** What the scripted agent's replies begin with (packages/agent/src/runtime/scripted-agent.ts). */
const SCRIPTED = 'Scripted agent (no model configured';
/** A run token as the API mints them: `rt_` and 32 random bytes in base64url. */
const RUN_TOKEN = /rt_[A-Za-z0-9_-]{43}/;

test('the owner asks, the runtime answers; after Forget now the run takes no question and names no note', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  // The browser never holds a run token: not in any answer of the API it calls.
  const leaked: string[] = [];
  page.on('response', async (response) => {
    if (!response.url().includes('/trpc/')) return;
    const body = await response.text().catch(() => '');
    if (RUN_TOKEN.test(body) || body.includes('runToken')) leaked.push(response.url());
  });

  // Sign in as a person does, and open the document from the library.
  await page.goto('/');
  await page.getByRole('button', { name: `Sign in as ${ADA}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();
  await page.getByRole('link', { name: REEF_TITLE }).click();
  await expect(page.getByRole('heading', { level: 1, name: REEF_TITLE })).toBeVisible();

  const runs = page.getByRole('region', { name: 'Runs' });
  const question = `Which survey method measured coral cover at the reef sites? (${unique()})`;
  const box = runs.getByRole('textbox', { name: 'Ask about this document' });
  await box.fill(question);
  await runs.getByRole('button', { name: 'Ask', exact: true }).click();

  // The question shows in a new chat run, which the page now looks at.
  const run = runs.getByRole('article').filter({ hasText: question });
  await expect(run).toHaveCount(1);
  await expect(run).toHaveAttribute('aria-current', 'true');
  await expect(run.getByRole('heading', { level: 3 })).toHaveText(/^Chat run · .+ · open$/);
  await expect(run.getByRole('listitem').filter({ hasText: question })).toHaveText(`you: ${question}`);
  await expect(page).toHaveURL(/[?&]run=run_/);
  // The question box went along into the run, with the focus, for a follow-up.
  const followUp = run.getByRole('textbox', { name: 'Ask a follow-up' });
  await expect(followUp).toBeFocused();
  await expect(runs.getByRole('textbox', { name: 'Ask about this document' })).toHaveCount(0);

  // The runtime answers: the scripted agent says so, and its memory card names the lead it kept.
  const replies = run.getByRole('listitem').filter({ hasText: /^agent:/ });
  await expect(replies).toHaveCount(1, { timeout: 30_000 });
  await expect(replies.first()).toContainText(SCRIPTED);
  await expect(replies.first()).toContainText('Working memory: remembered lead:');
  const card = run.getByRole('listitem').filter({ hasText: /Remembered \d+ notes?: lead:/ });
  await expect(card).toHaveCount(1);
  await expect(run.getByText('Working…')).toHaveCount(0);
  const lead = /Remembered \d+ notes?: (lead:[a-z0-9-]+)/.exec((await card.textContent()) ?? '')?.[1];
  expect(lead, 'the card names the lead note').toBeTruthy();
  await keepScreenshot(page, testInfo, 'chat-answered');

  // The card opens the panel at this run's session, where the note is; Forget now.
  await card.getByRole('link', { name: 'View in Memory' }).click();
  await expect(page).toHaveURL(/\/memory\?session=ses_/);
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  const { notes } = panelSections(page);
  await expect(notes.getByRole('button', { name: new RegExp(literal(lead ?? '')) })).toBeVisible();
  await page.getByRole('button', { name: 'Forget now' }).click();
  const dialog = page.getByRole('dialog', { name: 'Forget this session now?' });
  await dialog.getByRole('button', { name: 'Forget now' }).click();
  await expect(
    page.getByText(/^Forgotten at \d{2}:\d{2} today\. Nothing from this session is kept\.$/),
  ).toBeVisible();

  // Back on the document, the same run is still the one looked at; its card now names nothing.
  await page.goBack();
  await expect(page).toHaveURL(/[?&]run=run_/);
  await expect(run).toHaveAttribute('aria-current', 'true');
  await expect(run.getByRole('listitem').filter({ hasText: 'Memory forgotten' })).toHaveCount(1);
  await expect(run.getByRole('listitem').filter({ hasText: /(Remembered|Recalled) \d+ note/ })).toHaveCount(
    0,
  );

  // The run's memory is gone for good, so it takes no more question (the API would refuse it):
  // no follow-up box, no Continue this chat, a line saying why. Its reply names no forgotten note:
  // the server reads it with "a forgotten note" in the name's place.
  await expect(run.getByRole('textbox', { name: 'Ask a follow-up' })).toHaveCount(0);
  await expect(run.getByRole('button', { name: 'Continue this chat' })).toHaveCount(0);
  await expect(run).toContainText(
    'This chat’s working memory was forgotten, so it takes no more questions. Ask below to start a new run.',
  );
  await expect(replies.first()).toContainText('Working memory: remembered a forgotten note');
  await expect(run).not.toContainText(lead ?? 'lead:');
  await keepScreenshot(page, testInfo, 'chat-after-forget');

  // The question box under the runs starts a new run, which the runtime answers.
  const second = `And which sites were surveyed again in 2017? (${unique()})`;
  await expect(box).toBeVisible();
  await box.fill(second);
  await runs.getByRole('button', { name: 'Ask', exact: true }).click();
  const next = runs.getByRole('article').filter({ hasText: second });
  await expect(next).toHaveCount(1);
  await expect(next).toHaveAttribute('aria-current', 'true');
  await expect(run).not.toContainText(second);
  await expect(next.getByRole('listitem').filter({ hasText: /^agent:/ })).toHaveCount(1, { timeout: 30_000 });
  await expect(next).toContainText(SCRIPTED);

  expect(leaked).toEqual([]);
});

test('a question that cannot be sent says why; one nobody answers waits visibly, then says so', async ({
  page,
  context,
}) => {
  // The usual server: the tests play the runtime there, so nothing answers a question asked here.
  const ada = await login(ADA, servers.main);
  const reef = await documentTitled(ada, REEF_TITLE);
  await signInBrowser(context, ada);
  await page.clock.install();
  await page.goto(`${originOf(servers.main)}/documents/${encodeURIComponent(reef.id)}`);
  const runs = page.getByRole('region', { name: 'Runs' });
  const box = runs.getByRole('textbox', { name: 'Ask about this document' });
  const question = `e2e unanswered ${unique()}: how many sites were resurveyed?`;
  await box.fill(question);

  // The network fails: the question stays in the box, and the alert says what happened.
  const askCall = (url: URL) => url.pathname.includes('chat.ask');
  await page.route(askCall, (route) => route.abort('internetdisconnected'));
  await runs.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(runs.getByRole('alert')).toHaveText(
    /^Could not reach the server \(.+\)\. Check the connection/,
  );
  await expect(box).toHaveValue(question);
  await expect(box).toHaveAccessibleDescription(/^Could not reach the server/);
  await expect(runs.getByRole('article').filter({ hasText: question })).toHaveCount(0);

  // Sent again: the question shows in its run at once, with the agent at work.
  await page.unroute(askCall);
  await runs.getByRole('button', { name: 'Ask', exact: true }).click();
  const run = runs.getByRole('article').filter({ hasText: question });
  await expect(run.getByRole('listitem').filter({ hasText: question })).toHaveText(`you: ${question}`);
  await expect(runs.getByRole('alert')).toHaveCount(0);
  const status = run.getByRole('status').filter({ hasText: /\S/ });
  await expect(status).toHaveText('Working…');

  // A minute without a reply: the page says the runtime has not answered, and how it is started.
  await page.clock.fastForward('01:01');
  await expect(status).toHaveText(
    /^The agent runtime has not answered yet\. Is it running\? npm start starts it/,
  );
});
