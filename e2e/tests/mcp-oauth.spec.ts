// Flow: an MCP client signs the owner in with OAuth (SPEC §7d, issue 29). The client registers,
// sends the owner's browser to the authorization request, the owner reads on the consent page who
// asks and what it gets, allows it, and the browser returns to the client with a code; the code
// and its PKCE verifier give a token that opens /mcp for this owner's library, read-only.
import { createHash, randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import {
  keepScreenshot,
  newPerson,
  originOf,
  servers,
  signInWithPassword,
  signUpInBrowser,
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
function authorizePath(origin: string, clientId: string, verifier: string): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'e2e-state',
    scope: 'library:read',
    resource: `${origin}/mcp`,
  });
  return `/oauth/oauth2/authorize?${query.toString()}`;
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
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await keepScreenshot(page, testInfo, 'mcp-oauth-consent');

  await page.getByRole('button', { name: 'Allow read-only access' }).click();
  await page.waitForURL((url) => url.href.startsWith(CALLBACK));
  const back = new URL(page.url());
  expect(back.searchParams.get('state')).toBe('e2e-state');
  const code = back.searchParams.get('code');
  expect(code).toBeTruthy();

  const token = await fetch(`${origin}/oauth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code!,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: CALLBACK,
      resource: `${origin}/mcp`,
    }),
  });
  expect(token.status).toBe(200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };

  const listed = await fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_documents', arguments: {} },
    }),
  });
  expect(listed.status).toBe(200);
  // A new owner's library: empty, and only theirs.
  expect(
    ((await listed.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
  ).toEqual({
    documents: [],
  });
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
