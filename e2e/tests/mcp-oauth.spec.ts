// Flow: an MCP client signs the owner in with OAuth (SPEC §7d, issue 29). The client registers,
// sends the owner's browser to the authorization request, the owner reads on the consent page who
// asks (an unverified, self-registered agent), where the browser goes back to, and what it gets,
// allows it, and the browser returns to the client with a code; the code and its PKCE verifier give
// a token that opens /mcp for this owner's library, read-only. The owner then finds the agent on
// Connected agents beside their API keys, and revokes it (SPEC §6c, issue 37).
import { createHash, randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import {
  keepScreenshot,
  newPerson,
  openAccountMenu,
  originOf,
  servers,
  signInWithPassword,
  signUpInBrowser,
  unique,
} from './support.ts';

const server = servers.accounts;
const CALLBACK = 'http://127.0.0.1:45873/callback';

/** An MCP client registering itself, as clients do (no credential): its client_id. */
async function registerAgent(origin: string, name: string): Promise<string> {
  const registered = await fetch(`${origin}/oauth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  expect(registered.status).toBeLessThan(300);
  return ((await registered.json()) as { client_id: string }).client_id;
}

/** An authorization request's path for `clientId`, as a client builds it. */
function authorizePath(origin: string, clientId: string, verifier: string, scope = 'library:read'): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'e2e-state',
    scope,
    resource: `${origin}/mcp`,
  });
  return `/oauth/oauth2/authorize?${query.toString()}`;
}

/** The client's side of the code exchange: the token endpoint's status and answer. */
async function exchangeCode(origin: string, clientId: string, code: string, verifier: string) {
  const token = await fetch(`${origin}/oauth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: CALLBACK,
      resource: `${origin}/mcp`,
    }),
  });
  return {
    status: token.status,
    body: (await token.json()) as { access_token: string; refresh_token?: string },
  };
}

/** A tools/call of list_documents on /mcp with a bearer token. */
function listDocuments(origin: string, token: string) {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_documents', arguments: {} },
    }),
  });
}

test('an MCP client is allowed read-only access on the consent page, and its token opens /mcp', async ({
  page,
}, testInfo) => {
  const origin = originOf(server);
  const owner = newPerson('Dorothy Vaughan');
  await signUpInBrowser(page, server, owner);

  const clientId = await registerAgent(origin, 'Reading agent');

  // The client's own page, where the browser comes back with the code.
  await page.route(`${CALLBACK}**`, (route) => route.fulfill({ contentType: 'text/plain', body: 'back' }));
  const verifier = randomBytes(32).toString('base64url');
  await page.goto(`${origin}${authorizePath(origin, clientId, verifier)}`);

  await expect(page.getByRole('heading', { level: 1, name: 'Connect an agent' })).toBeVisible();
  await expect(page.getByText('Reading agent asks for read-only access to your library.')).toBeVisible();
  await expect(page.getByText('it never sees working memory')).toBeVisible();
  // A client that registered itself is said to be unverified, and the full return address shown.
  await expect(page.getByText('Unverified agent.')).toBeVisible();
  await expect(
    page.getByText('This agent registered itself; Sponge has not checked who made it.', { exact: false }),
  ).toBeVisible();
  await expect(page.getByText('After you answer, your browser goes back to')).toContainText(CALLBACK);
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await keepScreenshot(page, testInfo, 'mcp-oauth-consent');

  await page.getByRole('button', { name: 'Allow read-only access' }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  const back = new URL(page.url());
  expect(back.searchParams.get('state')).toBe('e2e-state');
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();

  const token = await exchangeCode(origin, clientId, code!, verifier);
  expect(token.status).toBe(200);

  const listed = await listDocuments(origin, token.body.access_token);
  expect(listed.status).toBe(200);
  // A new owner's library: empty, and only theirs.
  expect(
    ((await listed.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
  ).toEqual({ documents: [], total: 0, nextOffset: null });
});

test('a broken authorization request ends on a page that says why, before any sign-in', async ({ page }) => {
  const origin = originOf(server);
  // An agent whose registration is gone: nothing to send the browser back to, so the app explains.
  await page.goto(`${origin}${authorizePath(origin, 'no-such-agent', 'v'.repeat(43))}`);
  await expect(page).toHaveURL(/\/connect\/error\?/);
  await expect(page.getByRole('heading', { level: 1, name: 'Could not connect the agent' })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText('not registered with this server');
  await expect(page.getByText('invalid_client: client not found')).toBeVisible();
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
});

test('a signed-out owner signs in and comes back to the same authorization request', async ({ page }) => {
  const origin = originOf(server);
  const owner = newPerson('Katherine Johnson');
  await signUpInBrowser(page, server, owner);
  await page.context().clearCookies();
  const request = authorizePath(origin, await registerAgent(origin, 'Citation agent'), 'w'.repeat(43));

  await page.goto(`${origin}${request}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible();
  await signInWithPassword(page, owner);
  await expect(page.getByText('Citation agent asks for read-only access to your library.')).toBeVisible();

  // Signed in already, the sign-in page sends the browser on to the request by itself.
  await page.goto(`${origin}/signin?next=${encodeURIComponent(request)}`);
  await expect(page.getByText('Citation agent asks for read-only access to your library.')).toBeVisible();
});

test('Connected agents lists an API key and an OAuth sign-in, and revoking the sign-in ends its access', async ({
  page,
}, testInfo) => {
  const origin = originOf(server);
  const owner = newPerson('Mary Jackson');
  await signUpInBrowser(page, server, owner);

  // An API key, made on the page.
  await page.goto(`${origin}/account/agents`);
  const keyLabel = `desk script ${unique()}`;
  await page.getByLabel('Label').fill(keyLabel);
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('status')).toContainText(`Key “${keyLabel}” created.`);

  // An MCP client the owner lets in, with a refresh token (offline_access).
  const clientId = await registerAgent(origin, 'Survey agent');
  await page.route(`${CALLBACK}**`, (route) => route.fulfill({ contentType: 'text/plain', body: 'back' }));
  const verifier = randomBytes(32).toString('base64url');
  await page.goto(`${origin}${authorizePath(origin, clientId, verifier, 'library:read offline_access')}`);
  await page.getByRole('button', { name: 'Allow read-only access' }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  const token = await exchangeCode(origin, clientId, new URL(page.url()).searchParams.get('code')!, verifier);
  expect(token.status).toBe(200);
  expect((await listDocuments(origin, token.body.access_token)).status).toBe(200);

  // Both on one page, in words, from the account menu.
  await page.goto(origin);
  const menu = await openAccountMenu(page, owner.name);
  await menu.getByRole('menuitem', { name: 'Connected agents' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Connected agents' })).toBeVisible();
  const rows = page.getByRole('table').getByRole('row');
  const keyRow = rows.filter({ hasText: keyLabel });
  const agentRow = rows.filter({ hasText: 'Survey agent' });
  await expect(keyRow.getByRole('cell').nth(1)).toHaveText('API key');
  await expect(keyRow.getByRole('cell').nth(3)).toHaveText('never used');
  await expect(agentRow.getByRole('cell').nth(1)).toHaveText('Signed in with OAuth');
  // When it was connected and last used, in the one style of a moment.
  await expect(agentRow.getByRole('cell').nth(2)).toHaveText(/^\d\d:\d\d (today|yesterday)$/);
  await expect(agentRow.getByRole('cell').nth(3)).toHaveText(/^\d\d:\d\d (today|yesterday)$/);
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await keepScreenshot(page, testInfo, 'connected-agents');

  // Revoke the sign-in: a confirmation that says what ends, then it is gone and refused.
  await agentRow.getByRole('button', { name: 'Revoke Survey agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke “Survey agent”?' });
  await expect(dialog).toContainText('signed out at once');
  await keepScreenshot(page, testInfo, 'connected-agents-revoke');
  await dialog.getByRole('button', { name: 'Revoke access' }).click();
  await expect(dialog).toBeHidden();
  await expect(agentRow).toHaveCount(0);
  await expect(keyRow).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'Your agents' })).toBeFocused();
  expect((await listDocuments(origin, token.body.access_token)).status).toBe(401);
  const refreshed = await fetch(`${origin}/oauth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token!,
      client_id: clientId,
    }),
  });
  expect(refreshed.status).toBe(400);
});
