// Flow: sharing a document by email (SPEC §6c). The owner shares with a colleague's address; the
// colleague finds it in their library, shared by the owner, and can read it. An address with no
// account gets the very same answer: the page tells no one whether an account exists.
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import { literal, newPerson, originOf, servers, signUpInBrowser, unique } from './support.ts';

const server = servers.accounts;

async function shareWith(page: Page, email: string) {
  await page.getByRole('button', { name: 'Document actions' }).click();
  await page.getByRole('menuitem', { name: 'Share…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share this document' });
  await dialog.getByLabel('Email of the person').fill(email);
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(dialog.getByRole('status')).toHaveText(`Shared with ${email.toLowerCase()}.`);
  return dialog;
}

test('share a document by email; the colleague reads it, and an unknown address is answered alike', async ({
  page,
  browser,
}) => {
  const owner = newPerson('Marie Sklodowska');
  const colleague = newPerson('Lise Meitner');
  const colleagueContext = await browser.newContext();
  const colleaguePage = await colleagueContext.newPage();
  await signUpInBrowser(colleaguePage, server, colleague);

  await signUpInBrowser(page, server, owner);
  const title = `Shared survey notes (${unique()})`;
  await page.getByRole('button', { name: 'Add document' }).click();
  const add = page.getByRole('dialog', { name: 'Add a document' });
  await add.getByRole('radio', { name: 'Paste text' }).check();
  await add.getByLabel('Title', { exact: true }).fill(title);
  await add.getByLabel('Text', { exact: true }).fill('Transect 4 recovered fastest.');
  await add.getByRole('button', { name: 'Add text' }).click();
  await add.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  const documentPath = new URL(page.url()).pathname;

  // An address with no account: the same words as for a real one.
  const nobody = `nobody.${unique()}@example.org`;
  let dialog = await shareWith(page, nobody);
  await dialog.getByRole('button', { name: 'Done' }).click();

  // The colleague's address, typed with capitals. The dialog lists both by address as stored,
  // never by who is behind it.
  dialog = await shareWith(page, colleague.email.toUpperCase());
  const both = [nobody, colleague.email].map(literal);
  await expect(dialog).toContainText(
    new RegExp(`Shared with (${both.join(', ')}|${both.reverse().join(', ')})\\.`),
  );
  await expect(dialog).not.toContainText(colleague.name);

  // The colleague finds it in their library, shared by the owner, and reads it.
  await colleaguePage.goto(`${originOf(server)}/`);
  const row = colleaguePage
    .getByRole('list', { name: 'Documents' })
    .getByRole('listitem')
    .filter({ hasText: title });
  await expect(row).toContainText(`shared by ${owner.name}`);
  await row.getByRole('link', { name: title }).click();
  await expect(colleaguePage.getByRole('heading', { level: 1, name: title })).toBeVisible();
  expect(new URL(colleaguePage.url()).pathname).toBe(documentPath);
  await expect(colleaguePage.getByText('Transect 4 recovered fastest.')).toBeVisible();
  await colleagueContext.close();
});
