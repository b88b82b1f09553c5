/**
 * Upload places (SPEC §6b, §6c; issue 37 point 2): a place is taken only once the caller is
 * known, places are counted per owner as well as overall, by every API on the same databases, and
 * a body that stops arriving is ended with a clear answer instead of holding its place until the
 * request times out.
 *
 * Stalled uploads are raw sockets that declare a 100 kB body and send a few bytes of it. The
 * minimum rate is judged on a clock the test turns (`tick`), never by waiting.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { until, upload } from '../testing/uploads.ts';

interface Stalled {
  socket: Socket;
  /** Everything the server sent back. */
  received: () => string;
  /** Settles when the server closed the connection. */
  closed: Promise<void>;
}

/** The head of a POST /trpc/documents.upload declaring `length` bytes of body; the body is the caller's to send. */
function stalledUploadOf(
  s: TestServer,
  token: string | undefined,
  boundary: string,
  length: number,
): Stalled {
  const socket = connect(s.port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    'POST /trpc/documents.upload HTTP/1.1\r\n' +
      `Host: 127.0.0.1:${s.port}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${length}\r\n` +
      (token ? `Authorization: Bearer ${token}\r\n` : '') +
      '\r\n',
  );
  return { socket, received: () => text, closed };
}

/** POST /trpc/documents.upload declaring a 100 kB body, of which only the first bytes are sent. */
function stalledUpload(s: TestServer, token?: string): Stalled {
  const boundary = 'stalled';
  const x = stalledUploadOf(s, token, boundary, 100_000);
  x.socket.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n` +
      'Content-Type: text/plain\r\n\r\nA few bytes',
  );
  return x;
}

/** A short text file, uploaded. */
const uploadNote = (s: TestServer, token: string, text: string) =>
  upload(s, token, text, 'note.txt', { type: 'text/plain' });

const taken = (s: TestServer) => s.app.uploadPlaces.taken();

/** The pace watcher's clock: each `tick` is one window gone by. */
function manualTicker() {
  const runs = new Set<() => void>();
  return {
    ticker: (_ms: number, run: () => void) => {
      runs.add(run);
      return () => void runs.delete(run);
    },
    tick: () => {
      for (const run of [...runs]) run();
    },
    watching: () => runs.size,
  };
}

/** The status line and the JSON body of a raw HTTP answer (chunked or not: one JSON value). */
function parseAnswer(raw: string): { status: number; body: Json } {
  const [head = '', rest = ''] = raw.split('\r\n\r\n', 2);
  return {
    status: Number(head.split(' ')[1]),
    body: JSON.parse(rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1)),
  };
}

/** Whether a whole answer came back. */
function answered(x: Stalled): boolean {
  try {
    parseAnswer(x.received());
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns once the server has read what was written to `socket` before: loopback hands written
 * bytes to the other end at once, so a later request answered means the earlier bytes were
 * polled too.
 */
async function serverRead(s: TestServer, socket: Socket, bytes: Buffer): Promise<void> {
  await new Promise<void>((resolve) => socket.write(bytes, () => resolve()));
  await fetch(`${s.url}/trpc/health`);
}

const open: Array<Stalled> = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) x.socket.destroy();
  for (const s of servers.splice(0).reverse()) await s.close();
});

async function server(
  env: Record<string, string> = {},
  overrides: Parameters<typeof startTestServer>[1] = {},
) {
  const s = await startTestServer(env, overrides);
  servers.push(s);
  return s;
}

function stall(s: TestServer, token?: string): Stalled {
  const x = stalledUpload(s, token);
  open.push(x);
  return x;
}

describe('upload places', () => {
  it('are not taken by callers nobody knows: four stalled anonymous uploads, then an owner’s is accepted', async () => {
    const s = await server();
    const ada = await s.login('user-ada');
    const anonymous = [stall(s), stall(s), stall(s), stall(s)];
    // Each is answered (401) at once, or — before the fix — sat on a place.
    await until(async () => anonymous.every((x) => x.received() !== '') || (await taken(s)) >= 4);
    for (const x of anonymous) expect(x.received()).toMatch(/^HTTP\/1\.1 401/);
    const mine = await uploadNote(s, ada, 'Reef notes, uploaded while strangers stall.');
    expect([mine.status, mine.body.result?.data?.title]).toEqual([200, 'note']);
  });
});

describe('a body that stops arriving', () => {
  it('is ended with a clear answer once a window passes under the minimum, and its place is free again', async () => {
    const clock = manualTicker();
    const s = await server(
      { UPLOADS_IN_FLIGHT_PER_OWNER: '1' },
      { uploadPace: { minBytes: 1024, windowMs: 10_000, ticker: clock.ticker } },
    );
    const ada = await s.login('user-ada');
    const stalled = stall(s, ada);
    await until(async () => clock.watching() === 1 && (await taken(s)) === 1);
    // Ada's one place is taken: her next upload waits for it.
    const refused = await uploadNote(s, ada, 'Second file.');
    expect([refused.status, refused.body.error?.data?.reason]).toEqual([429, 'busy']);
    expect(refused.body.error.message).toMatch(/You are sending 1 upload already/);

    clock.tick();
    await stalled.closed;
    const answer = parseAnswer(stalled.received());
    expect([answer.status, answer.body.error.data.reason]).toEqual([408, 'too_slow']);
    expect(answer.body.error.message).toMatch(/stopped arriving: less than 1 KiB in 10 s/);
    await until(async () => (await taken(s)) === 0);
    const again = await uploadNote(s, ada, 'Second file, once the first gave up.');
    expect(again.status).toBe(200);
  });

  it('leaves a body alone while it keeps arriving', async () => {
    const clock = manualTicker();
    const s = await server({}, { uploadPace: { minBytes: 1024, windowMs: 10_000, ticker: clock.ticker } });
    const ada = await s.login('user-ada');
    const boundary = 'steady';
    const text = 'Steady reef notes. '.repeat(300);
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="steady.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`,
    );
    const x = stalledUploadOf(s, ada, boundary, body.length);
    open.push(x);
    x.socket.write(body.subarray(0, 1500));
    await until(() => clock.watching() === 1);
    // Each window brings more than the minimum.
    for (const [from, to] of [
      [1500, 3000],
      [3000, 4600],
    ] as const) {
      await serverRead(s, x.socket, body.subarray(from, to));
      clock.tick();
      expect(x.received()).toBe('');
    }
    x.socket.write(body.subarray(4600));
    await until(() => answered(x));
    expect(parseAnswer(x.received())).toMatchObject({
      status: 200,
      body: { result: { data: { title: 'steady' } } },
    });
  });
});

describe('upload places per owner and across APIs', () => {
  it('one owner’s stalled uploads hold their own places, never another owner’s', async () => {
    const s = await server({ UPLOADS_IN_FLIGHT_PER_OWNER: '2' });
    const [ada, grace] = [await s.login('user-ada'), await s.login('user-grace')];
    stall(s, ada);
    stall(s, ada);
    await until(async () => (await taken(s)) === 2);
    const third = await uploadNote(s, ada, 'A third at once.');
    expect([third.status, third.body.error?.data?.reason]).toEqual([429, 'busy']);
    const other = await uploadNote(s, grace, 'Grace uploads meanwhile.');
    expect(other.status).toBe(200);
  });

  it('are shared by two APIs on the same databases', async () => {
    const a = await server({ UPLOADS_IN_FLIGHT: '1' });
    const b = await server({ UPLOADS_IN_FLIGHT: '1' }, { sameDataAs: a });
    const [ada, grace] = [await a.login('user-ada'), await a.login('user-grace')];
    const stalled = stall(a, ada);
    await until(async () => (await taken(b)) === 1);
    const refused = await uploadNote(b, grace, 'On the other API.');
    expect([refused.status, refused.body.error?.data?.reason]).toEqual([429, 'busy']);
    expect(refused.body.error.message).toMatch(/1 upload is being received already/);
    // Its connection gone, its place is free on both.
    stalled.socket.destroy();
    await until(async () => (await taken(b)) === 0);
    expect((await uploadNote(b, grace, 'On the other API, again.')).status).toBe(200);
  });

  it('a place its process never gave back lapses', async () => {
    const s = await server({ UPLOADS_IN_FLIGHT: '1' });
    const grace = await s.login('user-grace');
    const nowMs = Date.now();
    // A place of a process that died mid-upload: still within its lease, then past it.
    await s.app.app.execute({
      sql: 'INSERT INTO upload_places (id, owner_id, until_ms) VALUES (?, ?, ?)',
      args: ['upl_dead', 'user-ada', nowMs + 60_000],
    });
    expect((await uploadNote(s, grace, 'While it holds.')).status).toBe(429);
    await s.app.app.execute({
      sql: 'UPDATE upload_places SET until_ms = ? WHERE id = ?',
      args: [nowMs - 1, 'upl_dead'],
    });
    expect((await uploadNote(s, grace, 'Once it lapsed.')).status).toBe(200);
  });
});
