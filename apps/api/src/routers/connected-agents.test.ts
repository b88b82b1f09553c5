/**
 * The owner's *Connected agents* (SPEC §6c, issue 37 point 7) over real HTTP: their API keys and
 * the MCP clients they signed in with OAuth, each with when it was last used (recorded at most once
 * a minute per credential, by the API's clock), and revocation that ends an agent's tokens at once —
 * a revoked client's access token gets 401 on `/mcp` and its refresh token is refused. Another
 * owner's agent answers NOT_FOUND and stays as it was. Refresh tokens live 14 days at most.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import {
  authorizeAs,
  pingMcp,
  pkce,
  registerClient,
  signInClient,
  tokenRequest,
} from '../testing/oauth-client.ts';
import { PUBLIC_CLIENT_PATH } from '../mcp/oauth.ts';

/** How often a credential's use is written at most. */
const LAST_USED_PRECISION_MS = 60_000;
/** The refresh tokens' lifetime (mcp/oauth.ts says why). */
const REFRESH_TOKEN_SECONDS = 14 * 24 * 3600;

/**
 * The API's clock, moved by hand. It starts at the real time: the OAuth library stamps tokens with
 * the real clock, and an access token must not look expired to `/mcp`.
 */
let t = Date.now();
const now = () => new Date(t);

// Five clients register in this file: the registration route takes 5 a minute per address.
let s: TestServer;
let ada: { token: string; cookie: string };
let grace: { token: string; cookie: string };

beforeAll(async () => {
  s = await startTestServer({ SIGNUP: 'open' }, { now });
  ada = await s.loginCookie('user-ada');
  grace = await s.loginCookie('user-grace');
});

afterAll(async () => {
  await s?.close();
});

interface Agent {
  id: string;
  kind: 'api_key' | 'oauth';
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

async function agentsOf(token: string): Promise<Agent[]> {
  const r = await s.call('query', 'auth.connectedAgents', undefined, token);
  if (!r.ok) throw new Error(`auth.connectedAgents: ${r.text}`);
  return r.data as Agent[];
}

async function agentNamed(token: string, name: string): Promise<Agent | undefined> {
  return (await agentsOf(token)).find((a) => a.name === name);
}

async function newKey(token: string, label: string): Promise<{ id: string; apiKey: string }> {
  const r = await s.call('mutation', 'auth.createApiKey', { label }, token);
  if (!r.ok) throw new Error(r.text);
  return r.data as { id: string; apiKey: string };
}

const revoke = (id: string, token: string) => s.call('mutation', 'auth.revokeConnectedAgent', { id }, token);

/** A call of the public API with an API key: its HTTP status. */
const listWithKey = async (apiKey: string) =>
  (await s.call('query', 'documents.list', undefined, apiKey)).status;

async function oauthRows(clientId: string): Promise<{ access: number; refresh: number; consents: number }> {
  const rs = await s.app.app.execute({
    sql: `SELECT (SELECT COUNT(*) FROM oauth_access_tokens WHERE client_id = ?1 AND user_id = 'user-ada') AS access,
                 (SELECT COUNT(*) FROM oauth_refresh_tokens WHERE client_id = ?1 AND user_id = 'user-ada') AS refresh,
                 (SELECT COUNT(*) FROM oauth_consents WHERE client_id = ?1 AND user_id = 'user-ada') AS consents`,
    args: [clientId],
  });
  const r = rs.rows[0]!;
  return { access: Number(r.access), refresh: Number(r.refresh), consents: Number(r.consents) };
}

describe('auth.connectedAgents', () => {
  it("lists the owner's API keys and OAuth clients, with when each was last used", async () => {
    const key = await newKey(ada.token, 'laptop agent');
    const client = await signInClient(s.url, ada.cookie, 'Reading agent');
    const before = await agentsOf(ada.token);
    expect(before.find((a) => a.id === key.id)).toMatchObject({
      kind: 'api_key',
      name: 'laptop agent',
      lastUsedAt: null,
    });
    const oauth = before.find((a) => a.name === 'Reading agent');
    expect(oauth).toMatchObject({ kind: 'oauth', lastUsedAt: null });
    // Connected when the owner consented: a moment ago, by the real clock the library keeps.
    expect(Math.abs(Date.parse(oauth!.createdAt) - Date.now())).toBeLessThan(60_000);
    expect(new Date(oauth!.createdAt).toISOString()).toBe(oauth!.createdAt);
    // Nothing of another owner's.
    expect((await agentsOf(grace.token)).map((a) => a.id)).not.toContain(key.id);
    expect((await agentsOf(grace.token)).map((a) => a.id)).not.toContain(oauth!.id);

    const first = now().toISOString();
    expect(await listWithKey(key.apiKey)).toBe(200);
    expect(await pingMcp(s.url, client.accessToken)).toBe(200);
    expect((await agentNamed(ada.token, 'laptop agent'))?.lastUsedAt).toBe(first);
    expect((await agentNamed(ada.token, 'Reading agent'))?.lastUsedAt).toBe(first);

    // Within the minute, a use is not written again: the hot path reads, it does not write.
    t += LAST_USED_PRECISION_MS / 2;
    expect(await pingMcp(s.url, key.apiKey)).toBe(200);
    expect(await pingMcp(s.url, client.accessToken)).toBe(200);
    expect((await agentNamed(ada.token, 'laptop agent'))?.lastUsedAt).toBe(first);
    expect((await agentNamed(ada.token, 'Reading agent'))?.lastUsedAt).toBe(first);

    // Past it, the next use is: a key on /mcp counts as on tRPC.
    t += LAST_USED_PRECISION_MS;
    const later = now().toISOString();
    expect(await pingMcp(s.url, key.apiKey)).toBe(200);
    expect(await pingMcp(s.url, client.accessToken)).toBe(200);
    expect((await agentNamed(ada.token, 'laptop agent'))?.lastUsedAt).toBe(later);
    expect((await agentNamed(ada.token, 'Reading agent'))?.lastUsedAt).toBe(later);
  });

  it('revoking an OAuth client ends its access and refresh tokens at once, and its consent', async () => {
    const client = await signInClient(s.url, ada.cookie, 'Citation agent');
    expect(await pingMcp(s.url, client.accessToken)).toBe(200);
    const agent = await agentNamed(ada.token, 'Citation agent');
    expect(agent).toBeDefined();

    const revoked = await revoke(agent!.id, ada.token);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.data).toEqual({ id: agent!.id, revoked: true });

    expect(await pingMcp(s.url, client.accessToken)).toBe(401);
    const refreshed = await tokenRequest(s.url, {
      grant_type: 'refresh_token',
      refresh_token: client.refreshToken,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(await oauthRows(client.clientId)).toEqual({ access: 0, refresh: 0, consents: 0 });
    expect(await agentNamed(ada.token, 'Citation agent')).toBeUndefined();
    // Revoked twice: nothing left to revoke.
    expect((await revoke(agent!.id, ada.token)).error?.data).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'not_found',
    });

    // The client has to ask the owner again.
    const { challenge } = pkce();
    expect((await authorizeAs(s.url, client.clientId, challenge, ada.cookie)).asked).toBe(true);
  });

  it('revoking an API key through it refuses the key at once, on tRPC and /mcp', async () => {
    const key = await newKey(ada.token, 'script key');
    expect(await listWithKey(key.apiKey)).toBe(200);
    const revoked = await revoke(key.id, ada.token);
    expect(revoked.status, revoked.text).toBe(200);
    expect(await listWithKey(key.apiKey)).toBe(401);
    expect(await pingMcp(s.url, key.apiKey)).toBe(401);
    expect((await agentsOf(ada.token)).map((a) => a.id)).not.toContain(key.id);
    const keys = await s.call('query', 'auth.apiKeys', undefined, ada.token);
    expect((keys.data as Json[]).map((k) => k.id)).not.toContain(key.id);
  });

  it("answers NOT_FOUND for another owner's agent and changes nothing", async () => {
    const key = await newKey(ada.token, 'kept key');
    const client = await signInClient(s.url, ada.cookie, 'Kept agent');
    const oauth = await agentNamed(ada.token, 'Kept agent');
    for (const id of [key.id, oauth!.id, 'key_nosuchkey', 'no-such-agent']) {
      const refused = await revoke(id, grace.token);
      expect(refused.status).toBe(404);
      expect(refused.error?.data).toMatchObject({ code: 'NOT_FOUND', reason: 'not_found' });
    }
    expect(await listWithKey(key.apiKey)).toBe(200);
    expect(await pingMcp(s.url, client.accessToken)).toBe(200);
    expect(await oauthRows(client.clientId)).toMatchObject({ consents: 1, refresh: 1 });
    const ids = (await agentsOf(ada.token)).map((a) => a.id);
    expect(ids).toEqual(expect.arrayContaining([key.id, oauth!.id]));
  });

  it('is for a signed-in person only: an API key cannot list or revoke', async () => {
    // (An OAuth token opens /mcp alone: the API answers it as no credential, oauth.test.ts.)
    const key = await newKey(ada.token, 'curious key');
    const listed = await s.call('query', 'auth.connectedAgents', undefined, key.apiKey);
    expect(listed.error?.data).toMatchObject({ code: 'FORBIDDEN', reason: 'forbidden' });
    const revokedByKey = await revoke(key.id, key.apiKey);
    expect(revokedByKey.error?.data).toMatchObject({ code: 'FORBIDDEN', reason: 'forbidden' });
    expect(await listWithKey(key.apiKey)).toBe(200);
  });
});

describe('OAuth grants', () => {
  it('gives refresh tokens 14 days at most, also after a refresh', async () => {
    const client = await signInClient(s.url, ada.cookie, 'Refreshing agent');
    const lifetimes = async () => {
      const rs = await s.app.app.execute({
        sql: `SELECT created_at, expires_at FROM oauth_refresh_tokens
               WHERE client_id = ? AND revoked IS NULL`,
        args: [client.clientId],
      });
      return rs.rows.map((r) => (Date.parse(String(r.expires_at)) - Date.parse(String(r.created_at))) / 1000);
    };
    expect(await lifetimes()).toEqual([REFRESH_TOKEN_SECONDS]);
    const refreshed = await tokenRequest(s.url, {
      grant_type: 'refresh_token',
      refresh_token: client.refreshToken,
      client_id: client.clientId,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await lifetimes()).toEqual([REFRESH_TOKEN_SECONDS]);
    // The refreshed access token is the same connection: still listed once.
    expect(await pingMcp(s.url, refreshed.body.access_token as string)).toBe(200);
    expect((await agentsOf(ada.token)).filter((a) => a.name === 'Refreshing agent')).toHaveLength(1);
  });

  it('tells the consent page that a client registered itself', async () => {
    const clientId = await registerClient(s.url, 'Self-made agent');
    const r = await fetch(`${s.url}${PUBLIC_CLIENT_PATH}?client_id=${encodeURIComponent(clientId)}`, {
      headers: { accept: 'application/json', cookie: `sponge_session=${ada.cookie}` },
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({
      client_id: clientId,
      client_name: 'Self-made agent',
      self_registered: true,
    });
  });
});
