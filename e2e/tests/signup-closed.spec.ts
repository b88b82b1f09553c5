// Flow: a server with SIGNUP=closed (SPEC §6c). The sign-in page offers no sign-up, the sign-up
// page has no form and the endpoint refuses; the operator makes an account with the users CLI,
// and that account signs in.
import { expect, test } from '@playwright/test';
import { newPerson, openAccountMenu, originOf, servers, signInWithPassword, usersCli } from './support.ts';

const server = servers.closed;
const origin = originOf(server);

test('sign-up closed: no sign-up anywhere, and an account made with the users CLI signs in', async ({
  page,
}) => {
  const person = newPerson('Dorothy Crowfoot');
  const made = await usersCli(server, [
    'add',
    '--email',
    person.email,
    '--name',
    person.name,
    '--password',
    person.password,
  ]);
  expect(made.code, made.output).toBe(0);

  await page.goto(`${origin}/`);
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Sign in as / })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Create an account' })).toHaveCount(0);

  // The sign-up page says so and has no form; the endpoint refuses.
  await page.goto(`${origin}/signup`);
  await expect(page.getByText('This server does not take new accounts.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create account' })).toHaveCount(0);
  await expect(page.getByLabel('Password')).toHaveCount(0);
  // Sent as the page would send it (same origin, so only the sign-up rule can refuse it).
  const refused = await page.evaluate(async (input) => {
    const response = await fetch('/trpc/auth.signUp', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as { error?: { data?: { code?: string; reason?: string } } };
    return { status: response.status, code: body.error?.data?.code, reason: body.error?.data?.reason };
  }, newPerson('Nobody Else'));
  expect(refused).toEqual({ status: 403, code: 'FORBIDDEN', reason: 'forbidden' });

  // The CLI-made account signs in and lands in its (empty) library.
  await page.getByRole('link', { name: 'sign in' }).click();
  await signInWithPassword(page, person);
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();
  await expect(page.getByText('Your library is empty')).toBeVisible();
  const menu = await openAccountMenu(page, person.name);
  await expect(menu).toContainText(person.email);
});
