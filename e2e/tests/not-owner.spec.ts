// Flow: only the owner sees working memory. Another owner, a user the document is shared with,
// and a reader of a published document all get the plain not-found page for the panel URL (with
// or without ?session=), though the last two can read the document itself.
import { expect, test } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import {
  ADA,
  GRACE,
  REEF_TITLE,
  ROSALIND,
  documentTitled,
  errorCodeOf,
  login,
  panelPath,
  signInBrowser,
  startChatRun,
  unique,
} from './support.ts';
import type { User } from './support.ts';

/** A browser page signed in as the user, in a context of its own (cookies are per user). */
async function pageAs(browser: Browser, user: User): Promise<Page> {
  const context = await browser.newContext();
  await signInBrowser(context, user);
  return context.newPage();
}

/** The plain not-found page, with nothing of the panel and nothing of the session's notes. */
async function expectNotFoundPage(page: Page, path: string, secret: string) {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Working notes' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Forget now' })).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(secret);
}

test('another owner, a shared-with user and a public reader get not-found for the panel', async ({
  browser,
  context,
  page,
}) => {
  const ada = await login(ADA);
  const grace = await login(GRACE);
  const rosalind = await login(ROSALIND);

  // Ada's document, shared with Rosalind (not with Grace), with a session holding a note.
  const reef = await documentTitled(ada, REEF_TITLE);
  await ada.api.documents.share.mutate({ documentId: reef.id, userId: rosalind.id });
  const run = await startChatRun(ada, reef.id, 'not owner');
  const secret = `lead:private-${unique()}`;
  await run.agent.remember({ changes: [{ op: 'add', name: secret, text: 'only Ada may read this' }] });
  expect((await rosalind.api.documents.list.query()).find((d) => d.id === reef.id)?.access).toBe('shared');
  expect((await grace.api.documents.list.query()).some((d) => d.id === reef.id)).toBe(false);

  // Grace's own document, published, with a session of hers: Ada is only a public reader there.
  const graceDoc = (await grace.api.documents.list.query()).find((d) => d.access === 'owner');
  if (!graceDoc) throw new Error('Grace owns no document in the demo library');
  await grace.api.documents.publish.mutate({ documentId: graceDoc.id });
  expect((await ada.api.documents.list.query()).find((d) => d.id === graceDoc.id)?.access).toBe('public');
  const graceRun = await startChatRun(grace, graceDoc.id, 'public doc');
  const graceSecret = `lead:grace-${unique()}`;
  await graceRun.agent.remember({
    changes: [{ op: 'add', name: graceSecret, text: 'only Grace may read this' }],
  });

  // The API says NOT_FOUND to all of them, for the document's panel and for the exact session.
  for (const [user, documentId, sessionId] of [
    [grace, reef.id, run.sessionId],
    [rosalind, reef.id, run.sessionId],
    [ada, graceDoc.id, graceRun.sessionId],
  ] as const) {
    expect(await errorCodeOf(user.api.memory.panel.query({ documentId }))).toBe('NOT_FOUND');
    expect(await errorCodeOf(user.api.memory.panel.query({ documentId, sessionId }))).toBe('NOT_FOUND');
    expect(await errorCodeOf(user.api.memory.forget.mutate({ sessionId }))).toBe('NOT_FOUND');
  }

  // Another owner: neither the document nor its memory.
  const asGrace = await pageAs(browser, grace);
  await expectNotFoundPage(asGrace, `/documents/${encodeURIComponent(reef.id)}`, secret);
  await expectNotFoundPage(asGrace, panelPath(reef.id), secret);
  await expectNotFoundPage(asGrace, panelPath(reef.id, run.sessionId), secret);
  await asGrace.context().close();

  // Shared with: the document reads fine, without its runs or actions; the memory is not found.
  const asRosalind = await pageAs(browser, rosalind);
  await asRosalind.goto(`/documents/${encodeURIComponent(reef.id)}`);
  await expect(asRosalind.getByRole('heading', { level: 1, name: REEF_TITLE })).toBeVisible();
  await expect(asRosalind.getByRole('button', { name: 'Document actions' })).toHaveCount(0);
  await expect(asRosalind.getByRole('region', { name: 'Runs' })).toHaveCount(0);
  await expectNotFoundPage(asRosalind, panelPath(reef.id), secret);
  await expectNotFoundPage(asRosalind, panelPath(reef.id, run.sessionId), secret);
  await asRosalind.context().close();

  // Public reader: the same.
  await signInBrowser(context, ada);
  await page.goto(`/documents/${encodeURIComponent(graceDoc.id)}`);
  await expect(page.getByRole('heading', { level: 1, name: graceDoc.title })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Document actions' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Runs' })).toHaveCount(0);
  await expectNotFoundPage(page, panelPath(graceDoc.id), graceSecret);
  await expectNotFoundPage(page, panelPath(graceDoc.id, graceRun.sessionId), graceSecret);

  // It is the same page a document that does not exist gets.
  await expectNotFoundPage(page, panelPath(`doc-missing-${unique()}`), secret);

  // And the owners still see their own.
  const own = await ada.api.memory.panel.query({ documentId: reef.id, sessionId: run.sessionId });
  expect(own.workingNotes.map((n) => n.name)).toEqual([secret]);
});
