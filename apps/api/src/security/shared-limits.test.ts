/**
 * Two API processes on one DATA_DIR (issue 37, point 5): limits, queues and upload places are
 * kept in the application database, so what one process counted the other counts too — failed
 * sign-ins, upload places, an API key's /mcp calls — and neither can be got round by sending
 * to the other process.
 *
 * The sign-in waits here are real (1 s, then 2 s: the default turns past an account's limit);
 * the test asserts they were at least that long, never at most.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginOwner, mutate, request, startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess } from '@sponge/testing/api';
import { DEFAULT_AUTH_LIMITS } from '../accounts/limits.ts';

const PASSWORD = 'correct horse battery';

describe('two API processes, one application database', () => {
  const data = tempDataDir('shared-limits');
  let a: ApiProcess;
  let b: ApiProcess;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const env = { SIGNUP: 'open', UPLOADS_IN_FLIGHT: '1' };
    // The first process creates the files, the schema and the secrets; the second reuses them.
    a = await startApi({ from: 'source', dataDir: data.dir, env });
    b = await startApi({ from: 'source', dataDir: data.dir, env });
  }, 180_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([a?.stop(), b?.stop()]);
    data.remove();
  });

  /** Rows of the shared application database, read beside the two processes. */
  async function count(sql: string): Promise<number> {
    const db = createClient({ url: `file:${join(data.dir, 'sponge.db')}` });
    try {
      return Number((await db.execute(sql)).rows[0]?.n ?? 0);
    } finally {
      db.close();
    }
  }

  it('count the same failed sign-ins: past the limit on either, the right password waits its turn and gets in', async () => {
    const email = 'shared-limits@example.org';
    expect((await mutate(a.port, 'auth.signUp', { name: 'Owner', email, password: PASSWORD })).status).toBe(
      200,
    );
    for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAccount; i++) {
      const r = await mutate(i % 2 === 0 ? a.port : b.port, 'auth.signIn', { email, password: `typo ${i}` });
      expect([r.status, r.error?.message]).toEqual([401, 'Wrong email or password.']);
    }
    // Three failures on one process and two on the other: the sixth, on either, is past the limit.
    let t0 = performance.now();
    const sixth = await mutate(b.port, 'auth.signIn', { email, password: 'typo 5' });
    expect(sixth.status).toBe(401);
    expect(sixth.error?.message).toMatch(/waits its turn/);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(DEFAULT_AUTH_LIMITS.slowDownSeconds * 1000 - 50);
    t0 = performance.now();
    const right = await mutate(a.port, 'auth.signIn', { email, password: PASSWORD });
    expect(right.status, right.text).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(
      2 * DEFAULT_AUTH_LIMITS.slowDownSeconds * 1000 - 50,
    );
    // Signed in on one: the count starts again on both.
    const next = await mutate(b.port, 'auth.signIn', { email, password: 'typo again' });
    expect([next.status, next.error?.message]).toEqual([401, 'Wrong email or password.']);
  }, 30_000);

  it('share upload places: one process’s stalled upload holds the place the other would give', async () => {
    const ada = await loginOwner(a.port, 0);
    const grace = await loginOwner(b.port, 1);
    // Ada's upload on A declares 100 kB and sends a few bytes: it holds the one place.
    const socket = connect(a.port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    socket.write(
      'POST /trpc/documents.upload HTTP/1.1\r\n' +
        `Host: 127.0.0.1:${a.port}\r\n` +
        'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n' +
        `Authorization: Bearer ${ada.token}\r\n\r\n` +
        '--b\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n\r\nA few',
    );
    while ((await count('SELECT count(*) AS n FROM upload_places')) < 1)
      await new Promise((r) => setTimeout(r, 20));

    const upload = async (text: string) => {
      const form = new FormData();
      form.append('file', new Blob([text], { type: 'text/plain' }), 'note.txt');
      const res = await fetch(`http://127.0.0.1:${b.port}/trpc/documents.upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${grace.token}` },
        body: form,
      });
      const body = await res.text();
      return { status: res.status, text: body, json: JSON.parse(body) as unknown };
    };
    const refused = await upload('Grace, on the other process.');
    expect(refused.status).toBe(429);
    expect((refused.json as { error: { data: { reason: string } } }).error.data.reason).toBe('busy');

    // Ada's connection gone, A gives the place back, and B has it to give.
    socket.destroy();
    while ((await count('SELECT count(*) AS n FROM upload_places')) > 0)
      await new Promise((r) => setTimeout(r, 20));
    const accepted = await upload('Grace, once the place is free.');
    expect(accepted.status, accepted.text).toBe(200);
  }, 30_000);

  it('hold an API key to one /mcp rate, whichever process its calls reach', async () => {
    const owner = await loginOwner(a.port, 0);
    const key = (await mutate(a.port, 'auth.createApiKey', { label: 'shared' }, owner.token)).data as {
      apiKey: string;
    };
    const ping = (port: number) =>
      request(port, {
        method: 'POST',
        path: '/mcp',
        headers: {
          authorization: `Bearer ${key.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const statuses: number[] = [];
    // 80 calls, half to each process: alone, each would let its 40 through (a burst is 60).
    const t0 = performance.now();
    for (let i = 0; i < 80; i++) statuses.push((await ping(i % 2 === 0 ? a.port : b.port)).status);
    // Together, the burst once, and what refilled meanwhile (one call every 250 ms).
    const refilled = Math.ceil((performance.now() - t0) / 250);
    const passed = statuses.filter((s) => s === 200).length;
    expect(passed).toBeLessThanOrEqual(60 + refilled);
    expect(passed).toBeLessThan(80);
    expect(statuses.filter((s) => s === 429).length).toBe(80 - passed);
  }, 30_000);
});
