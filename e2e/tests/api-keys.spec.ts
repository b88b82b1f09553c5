// Flow: API keys on the account menu's Connected agents page (SPEC §6c, UI.md). A key is created
// with a label and shown once; it lets the owner's own agent list the library, and the page says
// when it was last used; revoked after a confirmation, it is gone from the list and refused.
import { expect, test } from '@playwright/test';
import {
  apiClient,
  errorCodeOf,
  keepScreenshot,
  newPerson,
  openAccountMenu,
  originOf,
  servers,
  signUpInBrowser,
  unique,
} from './support.ts';

const server = servers.accounts;

test('create an API key, see it once, use it, and revoke it', async ({ page }, testInfo) => {
  const owner = newPerson('Katherine Coleman');
  await signUpInBrowser(page, server, owner);
  const menu = await openAccountMenu(page, owner.name);
  await menu.getByRole('menuitem', { name: 'Connected agents' }).click();
  await expect(page).toHaveURL(/\/account\/agents$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Connected agents' })).toBeVisible();
  await expect(page.getByText('No agent is connected')).toBeVisible();

  // A key needs a label, said next to the input.
  const label = page.getByLabel('Label');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(label).toHaveAccessibleDescription(/Give the key a label/);

  const name = `laptop agent ${unique()}`;
  await label.fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('status').filter({ hasText: 'shown only this once' });
  await expect(shown).toContainText(`Key “${name}” created.`);
  const key = await shown.getByLabel('New API key').inputValue();
  expect(key).toMatch(/^ak_/);
  const rows = page.getByRole('table').getByRole('row');
  await expect(rows.filter({ hasText: name })).toHaveCount(1);
  const row = rows.filter({ hasText: name });
  await expect(row.getByRole('cell').nth(1)).toHaveText('API key');
  await expect(row.getByRole('cell').nth(3)).toHaveText('never used');
  await keepScreenshot(page, testInfo, 'api-keys-created');

  // The owner's own agent lists the library with it.
  const agent = apiClient(server, key);
  expect(await agent.documents.list.query()).toEqual([]);

  // The page names the MCP endpoint; an MCP client reaches it with the key (SPEC §7d).
  const mcp = page.getByRole('region', { name: 'Use with an MCP client' });
  const endpoint = `${originOf(server)}/mcp`;
  await expect(mcp).toContainText(endpoint);
  await expect(mcp.getByLabel('MCP client configuration')).toContainText(`"url": "${endpoint}"`);
  const listDocuments = () =>
    fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-06-18',
        Authorization: `Bearer ${key}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_documents', arguments: {} },
      }),
    });
  const listed = await listDocuments();
  expect(listed.status).toBe(200);
  expect(
    ((await listed.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
  ).toEqual({ documents: [], total: 0, nextOffset: null });

  // Leaving the page forgets the key: it is never shown again. The page says it was used.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Connected agents' })).toBeVisible();
  await expect(rows.filter({ hasText: name })).toHaveCount(1);
  await expect(row.getByRole('cell').nth(3)).toHaveText(/^\d\d:\d\d (today|yesterday)$/);
  await expect(page.getByText(key)).toHaveCount(0);
  await expect(page.getByLabel('New API key')).toHaveCount(0);

  // Revoke: a confirmation first; Cancel keeps the key.
  const revoke = page.getByRole('button', { name: `Revoke ${name}` });
  await revoke.click();
  let dialog = page.getByRole('dialog', { name: `Revoke “${name}”?` });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(revoke).toBeFocused();
  await revoke.click();
  dialog = page.getByRole('dialog', { name: `Revoke “${name}”?` });
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('No agent is connected')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Your agents' })).toBeFocused();
  expect(await errorCodeOf(agent.documents.list.query())).toBe('UNAUTHORIZED');
  expect((await listDocuments()).status).toBe(401);
});
