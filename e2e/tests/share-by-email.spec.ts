// Flow: sharing a document by email (SPEC §6c). Nothing proves who signs up with an address, so a
// share waits: the colleague who signs up with it sees nothing until the owner, seeing the name
// the account signed up with, gives it access. Or the owner copies a one-use invitation link and
// sends it: whoever opens it first, signed in, reads the document; the next person is refused.
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import {
  keepScreenshot,
  newPerson,
  originOf,
  seriousViolations,
  servers,
  signUpInBrowser,
  unique,
} from './support.ts';

const server = servers.accounts;

/** Signs up, adds a pasted document and opens it; returns its path. */
async function ownerWithDocument(page: Page, owner: ReturnType<typeof newPerson>, title: string) {
  await signUpInBrowser(page, server, owner);
  await page.getByRole('button', { name: 'Add document' }).click();
  const add = page.getByRole('dialog', { name: 'Add a document' });
  await add.getByRole('radio', { name: 'Paste text' }).check();
  await add.getByLabel('Title', { exact: true }).fill(title);
  await add.getByLabel('Text', { exact: true }).fill('Transect 4 recovered fastest.');
  await add.getByRole('button', { name: 'Add text' }).click();
  await add.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  return new URL(page.url()).pathname;
}

async function openShareDialog(page: Page) {
  await page.getByRole('button', { name: 'Document actions' }).click();
  await page.getByRole('menuitem', { name: 'Share…' }).click();
  return page.getByRole('dialog', { name: 'Share this document' });
}

async function shareWith(page: Page, email: string) {
  const dialog = await openShareDialog(page);
  await dialog.getByLabel('Email of the person').fill(email);
  await dialog.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(dialog.getByRole('status').last()).toHaveText(
    `Shared with ${email.toLowerCase()}: it waits for you to give access, or for an invitation link.`,
  );
  return dialog;
}

test('whoever signs up with the shared address sees nothing until the owner gives that account access', async ({
  page,
  browser,
}, testInfo) => {
  const owner = newPerson('Marie Sklodowska');
  const bob = newPerson('Bob Smith');
  const title = `Reef recovery (${unique()})`;
  const documentPath = await ownerWithDocument(page, owner, title);

  // Shared before anyone has the address, typed with capitals: it waits.
  let dialog = await shareWith(page, bob.email.toUpperCase());
  const shares = dialog.getByRole('list', { name: 'Shared with' });
  await expect(shares.getByRole('listitem')).toContainText(
    `${bob.email}: waiting — no one has signed up with this address yet.`,
  );
  await expect(shares.getByRole('button', { name: `Invitation link for ${bob.email}` })).toBeVisible();
  await expect(shares.getByRole('button', { name: /^Give access/ })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Done' }).click();

  // Someone signs up with the address: nothing is theirs to read yet.
  const bobContext = await browser.newContext();
  const bobPage = await bobContext.newPage();
  await signUpInBrowser(bobPage, server, bob);
  await expect(bobPage.getByRole('list', { name: 'Documents' }).getByText(title)).toHaveCount(0);
  await bobPage.goto(`${originOf(server)}${documentPath}`);
  await expect(bobPage.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();

  // The owner sees who signed up with the address, and decides.
  dialog = await openShareDialog(page);
  const line = `${bob.name} signed up as ${bob.email} — give access to “${title}”?`;
  await expect(dialog.getByRole('listitem').filter({ hasText: line })).toBeVisible();
  await keepScreenshot(page, testInfo, 'share-dialog-confirm');
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: `Give access to ${bob.name}` }).click();
  await expect(dialog.getByRole('status').last()).toHaveText(`${bob.name} can read it now.`);
  await expect(dialog.getByRole('listitem')).toHaveText(
    `${bob.name} can read it (shared with ${bob.email}).`,
  );

  // Now Bob finds it, shared by the owner, and reads it.
  await bobPage.goto(`${originOf(server)}/`);
  const row = bobPage
    .getByRole('list', { name: 'Documents' })
    .getByRole('listitem')
    .filter({ hasText: title });
  await expect(row).toContainText(`shared by ${owner.name}`);
  await row.getByRole('link', { name: title }).click();
  await expect(bobPage.getByRole('heading', { level: 1, name: title })).toBeVisible();
  expect(new URL(bobPage.url()).pathname).toBe(documentPath);
  await expect(bobPage.getByText('Transect 4 recovered fastest.')).toBeVisible();
  await bobContext.close();
});

test('an invitation link the owner copies works once, for whoever opens it first', async ({
  page,
  browser,
}, testInfo) => {
  const owner = newPerson('Lise Meitner');
  const carol = newPerson('Carol Reef');
  const title = `Survey methods (${unique()})`;
  const documentPath = await ownerWithDocument(page, owner, title);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: originOf(server) });

  const invited = `carol.${unique()}@example.org`;
  const dialog = await shareWith(page, invited);
  await dialog.getByRole('button', { name: `Invitation link for ${invited}` }).click();
  const field = dialog.getByRole('textbox', { name: 'Invitation link', exact: true });
  await expect(field).toHaveValue(new RegExp(`^${originOf(server)}/invite/[A-Za-z0-9_-]{43}$`));
  await expect(dialog.getByRole('status').first()).toContainText(`Invitation link for ${invited}.`);
  await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(dialog.getByText('Copied to the clipboard.')).toBeVisible();
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toBe(await field.inputValue());
  await keepScreenshot(page, testInfo, 'share-dialog-invitation-link');
  expect(await seriousViolations(page)).toEqual([]);

  // Carol opens it signed out, signs up with an address of her own, and accepts.
  const carolContext = await browser.newContext();
  const carolPage = await carolContext.newPage();
  await carolPage.goto(url);
  await expect(carolPage.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  await carolPage.getByRole('link', { name: 'Create an account' }).click();
  await carolPage.getByLabel('Name').fill(carol.name);
  await carolPage.getByLabel('Email').fill(carol.email);
  await carolPage.getByLabel('Password').fill(carol.password);
  await carolPage.getByRole('button', { name: 'Create account' }).click();
  await expect(
    carolPage.getByRole('heading', { level: 1, name: 'An invitation to read a document' }),
  ).toBeVisible();
  await expect(carolPage.getByText(`${carol.name} (${carol.email})`)).toBeVisible();
  await keepScreenshot(carolPage, testInfo, 'invitation-page');
  expect(await seriousViolations(carolPage)).toEqual([]);
  await carolPage.getByRole('button', { name: 'Accept and open the document' }).click();
  await expect(carolPage.getByRole('heading', { level: 1, name: title })).toBeVisible();
  expect(new URL(carolPage.url()).pathname).toBe(documentPath);
  await expect(carolPage.getByText('Transect 4 recovered fastest.')).toBeVisible();

  // The second person to open it is refused, in words.
  const eve = newPerson('Eve Later');
  const eveContext = await browser.newContext();
  const evePage = await eveContext.newPage();
  await signUpInBrowser(evePage, server, eve);
  await evePage.goto(url);
  await evePage.getByRole('button', { name: 'Accept and open the document' }).click();
  await expect(
    evePage.getByRole('heading', { level: 1, name: 'This invitation link cannot be used' }),
  ).toBeVisible();
  await expect(evePage.getByRole('alert')).toHaveText(
    'This invitation link has already been used. Ask the person who sent it for a new link.',
  );
  await keepScreenshot(evePage, testInfo, 'invitation-used');
  await evePage.goto(`${originOf(server)}${documentPath}`);
  await expect(evePage.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();

  // The owner's list: Carol reads it.
  await page.reload();
  const again = await openShareDialog(page);
  await expect(again.getByRole('listitem')).toHaveText(`${carol.name} can read it (shared with ${invited}).`);
  await carolContext.close();
  await eveContext.close();
});
