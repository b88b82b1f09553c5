// Flow: real accounts on a server that is not a demo (DEMO off, SIGNUP open; SPEC §6c). Sign up
// → the library → add a document → sign out → the document's address leads to the sign-in page →
// a wrong password is refused in words → the right one leads back to the document. And a second
// account gets the plain not-found page for the first one's document.
import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import {
  keepScreenshot,
  newPerson,
  openAccountMenu,
  originOf,
  seriousViolations,
  servers,
  signInWithPassword,
  signUpInBrowser,
  unique,
} from './support.ts';

const server = servers.accounts;
const origin = originOf(server);

/** Pastes a short text into the library through Add document; returns the document's path. */
async function addDocument(page: Page, title: string): Promise<string> {
  await page.getByRole('button', { name: 'Add document' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a document' });
  await dialog.getByRole('radio', { name: 'Paste text' }).check();
  await dialog.getByLabel('Title', { exact: true }).fill(title);
  await dialog
    .getByLabel('Text', { exact: true })
    .fill('Field notes from the northern transects.\n\nCover rose.');
  await dialog.getByRole('button', { name: 'Add text' }).click();
  await dialog.getByRole('link', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  return new URL(page.url()).pathname;
}

test('sign up, add a document, sign out, a wrong password, sign in, and the document again', async ({
  page,
}, testInfo) => {
  const ada = newPerson('Ada Byron');

  // Signed out, the library sends you to sign in; with DEMO off there are no demo owners.
  await page.goto(`${origin}/`);
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Create an account' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Demo' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Sign in as / })).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  await keepScreenshot(page, testInfo, 'accounts-sign-in');

  // The sign-up page states the password rules and checks them before sending.
  await page.getByRole('link', { name: 'Create an account' }).click();
  const password = page.getByLabel('Password');
  await expect(password).toHaveAttribute('autocomplete', 'new-password');
  await expect(password).toHaveAccessibleDescription(/At least 10 characters \(at most 128\)/);
  await page.getByLabel('Name').fill(ada.name);
  await page.getByLabel('Email').fill(ada.email);
  await password.fill('too short');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(password).toHaveAttribute('aria-invalid', 'true');
  await expect(password).toHaveAccessibleDescription(
    /A password has at least 10 characters; this one has 9\./,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await keepScreenshot(page, testInfo, 'accounts-sign-up');
  await password.fill(ada.password);
  await page.getByRole('button', { name: 'Create account' }).click();

  // Signed in at once, in an empty library of one's own.
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();
  await expect(page.getByText('Your library is empty')).toBeVisible();
  const title = `Northern transects (${unique()})`;
  const documentPath = await addDocument(page, title);

  // The account menu names the account; Sign out ends the session.
  const menu = await openAccountMenu(page, ada.name);
  await expect(menu).toContainText(ada.email);
  await expect(menu.getByRole('menuitem', { name: 'Connected agents' })).toBeVisible();
  await menu.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin$/);

  // The document's address, signed out: the sign-in page, which will come back to it.
  await page.goto(`${origin}${documentPath}`);
  await expect(page).toHaveURL(new RegExp(`/signin\\?next=${encodeURIComponent(documentPath)}$`));
  await expect(page.getByRole('heading', { level: 1, name: title })).toHaveCount(0);

  // A wrong password: refused in words, still signed out.
  await signInWithPassword(page, { email: ada.email, password: `${ada.password} wrong` });
  await expect(page.getByRole('alert')).toContainText('Wrong email or password');
  await expect(page).toHaveURL(/\/signin\?next=/);
  await keepScreenshot(page, testInfo, 'accounts-wrong-password');

  // The right one (the address typed as people do, with capitals): the document.
  await signInWithPassword(page, { email: ada.email.toUpperCase(), password: ada.password });
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  expect(new URL(page.url()).pathname).toBe(documentPath);
});

test("a second account gets not-found for the first one's document", async ({ browser }) => {
  const first = await browser.newContext();
  const ownerPage = await first.newPage();
  await signUpInBrowser(ownerPage, server, newPerson('Grace Brewster'));
  const title = `Private field notes (${unique()})`;
  const documentPath = await addDocument(ownerPage, title);

  const second = await browser.newContext();
  const otherPage = await second.newPage();
  await signUpInBrowser(otherPage, server, newPerson('Rosalind Elsie'));
  await otherPage.goto(`${origin}${documentPath}`);
  await expect(otherPage.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
  await expect(otherPage.locator('body')).not.toContainText(title);
  // Nor in the second account's library.
  await otherPage.goto(`${origin}/`);
  await expect(otherPage.getByText('Your library is empty')).toBeVisible();
  await first.close();
  await second.close();
});

test('a next that resolves to another origin leads to the library, signed in or signing in', async ({
  page,
}) => {
  const crashes: string[] = [];
  page.on('pageerror', (e) => crashes.push(e.message));
  const mary = newPerson('Mary Somerville');
  await signUpInBrowser(page, server, mary);
  // Each resolves to another origin as the browser reads it (tabs and line breaks dropped, a
  // backslash read as a slash, dot segments removed), or is no address of this site at all.
  const elsewhere = [
    '/\t/evil.example',
    '/\n/evil.example',
    '/\\evil.example',
    '//evil.example',
    '/.//evil.example',
    'https://evil.example',
    'javascript:alert(1)',
  ];
  const signInWith = (next: string) => `${origin}/signin?next=${encodeURIComponent(next)}`;
  for (const next of elsewhere) {
    // Signed in already: the page goes on at once.
    await page.goto(signInWith(next));
    await expect(page.getByRole('heading', { level: 1, name: 'Library' }), next).toBeVisible();
    expect([next, page.url()]).toEqual([next, `${origin}/`]);
  }
  // An escaped tab is part of a path here: this site's not-found page, not another host.
  await page.goto(signInWith('/%09/evil.example'));
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(origin);

  // Signing in on the way: the form, then the library.
  await page.goto(`${origin}/`);
  await (await openAccountMenu(page, mary.name)).getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.goto(signInWith('/\t/evil.example'));
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  await signInWithPassword(page, mary);
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();
  expect(page.url()).toBe(`${origin}/`);
  expect(crashes).toEqual([]);
});
