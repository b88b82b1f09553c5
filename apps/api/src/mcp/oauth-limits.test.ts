/**
 * The OAuth authorization server's own limits (registration: 5 a minute per client) are counted
 * per real client and shared by every API process on the same databases (mcp/oauth.ts, SPEC §6c,
 * issue 37 point 8): two API processes, real ones (the library's default store is one per
 * process), behind a trusted proxy whose X-Forwarded-For names the client.
 */
import { request } from 'node:http';
import { startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess } from '@sponge/testing/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const tmp = tempDataDir('oauth-limits');
const apis: ApiProcess[] = [];

beforeAll(async () => {
  const env = { SIGNUP: 'open', TRUSTED_PROXIES: '127.0.0.1' };
  apis.push(await startApi({ from: 'source', dataDir: tmp.dir, env }));
  apis.push(await startApi({ from: 'source', dataDir: tmp.dir, env }));
});

afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  tmp.remove();
});

const registration = JSON.stringify({
  client_name: 'Limits Test',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

/** A registration through the proxy (this machine) for the client `forwardedFor`: its status. */
function register(api: ApiProcess, forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: api.port,
        path: '/oauth/oauth2/register',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        agent: false,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end(registration);
  });
}

describe('OAuth limits', () => {
  it('counts one client’s registrations in every process, and another client apart', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await register(apis[i % 2]!, '203.0.113.7'));
    expect(
      statuses.slice(0, 5).every((s) => s === 201),
      statuses.join(' '),
    ).toBe(true);
    expect(
      statuses.slice(5).every((s) => s === 429),
      statuses.join(' '),
    ).toBe(true);
    // Behind the same proxy, another client has its own count.
    expect(await register(apis[1]!, '203.0.113.8')).toBe(201);
    expect(await register(apis[0]!, '198.51.100.1, 203.0.113.9')).toBe(201);
  });
});
