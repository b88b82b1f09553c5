/**
 * Which origins the OAuth authorization server answers for without PUBLIC_URL (mcp/oauth.ts,
 * issue 37 point 8): the address and port the server listens on, by a loopback name when the
 * connection came over loopback. Any other `Host` (another port, another loopback name) is a
 * clear 421, never a new issuer: so no run of made-up Hosts can crowd out the real one, and a
 * client's registrations are counted once, whatever Host it names.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ SIGNUP: 'open' });
});

afterAll(async () => {
  await s?.close();
});

const METADATA = '/.well-known/oauth-authorization-server/oauth';
const REGISTER = '/oauth/oauth2/register';

/** A request to the test server with the `Host` given (fetch would not send a made-up one). */
function send(
  path: string,
  host: string,
  options: { method?: string; body?: string; localAddress?: string } = {},
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: s.port,
        path,
        method: options.method ?? 'GET',
        headers: {
          host,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => {
          let body: Json = text;
          try {
            body = JSON.parse(text);
          } catch {
            // left as text
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

const registration = JSON.stringify({
  client_name: 'Origins Test',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
});

describe('OAuth origins without PUBLIC_URL', () => {
  it('answers the listening port under its loopback names after any number of made-up Hosts', async () => {
    const fakes = [
      ...Array.from({ length: 20 }, (_, i) => `localhost:${40_000 + i}`),
      `127.0.0.2:${s.port}`,
      `app.localhost:${s.port}`,
      '127.0.0.1',
    ];
    const refused = [];
    for (const host of fakes) refused.push({ host, ...(await send(METADATA, host)) });
    // The server's own origins still answer after them all.
    for (const name of ['localhost', '127.0.0.1', '[::1]', 'LOCALHOST']) {
      const r = await send(METADATA, `${name}:${s.port}`);
      expect(r.status, name).toBe(200);
      expect(r.body.issuer).toBe(`http://${name.toLowerCase()}:${s.port}/oauth`);
    }
    for (const r of refused) {
      expect(r.status, r.host).toBe(421);
      // Says which origins it answers for, and what to set for another.
      expect(r.body.error_description, r.host).toContain(`http://localhost:${s.port}`);
      expect(r.body.error_description, r.host).toContain('PUBLIC_URL');
    }
  });

  it('counts registrations per client address, whichever Host names the server', async () => {
    const hosts = ['localhost', '127.0.0.1', '[::1]'].map((name) => `${name}:${s.port}`);
    const answers: number[] = [];
    const fakes: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Made-up Hosts in between: refused, and they open no bucket of their own either.
      const fake = await send(REGISTER, `localhost:${41_000 + i}`, { method: 'POST', body: registration });
      fakes.push(fake.status);
      answers.push(
        (await send(REGISTER, hosts[i % hosts.length]!, { method: 'POST', body: registration })).status,
      );
    }
    // The plugin's limit: 5 registrations a minute per client address.
    expect(answers.filter((status) => status < 300)).toHaveLength(5);
    expect(answers.slice(5).every((status) => status === 429)).toBe(true);
    expect(fakes.every((status) => status === 421)).toBe(true);
    // Another client (another address) has its own count.
    const other = await send(REGISTER, hosts[0]!, {
      method: 'POST',
      body: registration,
      localAddress: '127.0.0.2',
    });
    expect(other.status, JSON.stringify(other.body)).toBeLessThan(300);
  });
});
