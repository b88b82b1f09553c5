/**
 * Explain tokens are bound to session, answer, question, version and revision, signed, and short
 * lived. Over real HTTP: a token with any character changed (every position: header, payload,
 * signature), cut short, extended, re-assembled from two tokens, forged with another key, used by
 * another run's session, or used after its TTL is refused with `explain_token_invalid`; the
 * untouched token keeps working for its own session even after memory moved on.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptChatRun, loginOwner, must, mutate, query, startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess, Owner, RunHandle } from '@sponge/testing/api';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The token with the character at `i` changed so that the bytes it encodes change too: in base64
 * flipping the 6-bit value's top bit always changes a significant bit, even in the last
 * character whose low bits are padding (a plain swap there could decode to the same bytes).
 */
function flipAt(token: string, i: number): string {
  const c = token[i]!;
  let replacement: string;
  const u = B64URL.indexOf(c);
  const s = B64.indexOf(c);
  if (u >= 0) replacement = B64URL[u ^ 32]!;
  else if (s >= 0) replacement = B64[s ^ 32]!;
  else if (/[0-9a-f]/.test(c)) replacement = (parseInt(c, 16) ^ 8).toString(16);
  else replacement = c === 'A' ? 'B' : 'A';
  return token.slice(0, i) + replacement + token.slice(i + 1);
}

async function explain(api: ApiProcess, token: string, row: number, runToken: string) {
  return query(api.port, 'agent.explain', { token, row }, runToken);
}

async function writeNotes(api: ApiProcess, run: RunHandle, prefix: string): Promise<void> {
  const changes = [
    { op: 'add', name: `lead:${prefix}-a`, text: 'a' },
    { op: 'add', name: `lead:${prefix}-b`, text: 'b', links: [{ rel: 'supports', to: `lead:${prefix}-a` }] },
    {
      op: 'add',
      name: `lead:${prefix}-c`,
      text: 'c',
      links: [{ rel: 'contradicts', to: `lead:${prefix}-a` }],
    },
  ];
  must(
    await mutate(api.port, 'agent.remember', { basedOn: 0, requestId: `${prefix}-1`, changes }, run.runToken),
    'remember',
  );
}

describe('explain tokens over HTTP', () => {
  const data = tempDataDir('explain');
  let api: ApiProcess;
  let owner: Owner;
  let other: Owner;
  let run: RunHandle;
  let sibling: RunHandle;
  let foreign: RunHandle;
  let token = '';
  let token2 = '';

  beforeAll(async () => {
    api = await startApi({ from: 'source', dataDir: data.dir });
    owner = await loginOwner(api.port, 0);
    other = await loginOwner(api.port, 1);
    run = await acceptChatRun(api.port, owner);
    sibling = await acceptChatRun(api.port, owner); // same owner, same document, another session
    foreign = await acceptChatRun(api.port, other);
    await writeNotes(api, run, 'x');
    await writeNotes(api, sibling, 'x'); // same names and versions: only the binding tells them apart
    await writeNotes(api, foreign, 'x');
    token = must<{ explainToken: string }>(
      await query(api.port, 'agent.query', { question: 'current_notes' }, run.runToken),
      'query',
    ).explainToken;
    token2 = must<{ explainToken: string }>(
      await query(api.port, 'agent.query', { question: 'related_to', name: 'lead:x-a' }, run.runToken),
      'query',
    ).explainToken;
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    data.remove();
  });

  it('the untouched token explains its rows, also after memory moved on', async () => {
    const ok = await explain(api, token, 0, run.runToken);
    expect(ok.ok, ok.text).toBe(true);
    must(
      await mutate(
        api.port,
        'agent.remember',
        { basedOn: 1, requestId: 'x-2', changes: [{ op: 'remove', name: 'lead:x-c' }] },
        run.runToken,
      ),
      'remember',
    );
    const later = await explain(api, token, 0, run.runToken);
    expect(later.ok, later.text).toBe(true);
    expect((later.data as { basis: { version: number } }).basis.version).toBe(1);
  });

  it('refuses the token with any single character changed, at every position', async () => {
    const accepted: number[] = [];
    const wrongReason: string[] = [];
    for (let i = 0; i < token.length; i++) {
      const tampered = flipAt(token, i);
      expect(tampered).not.toBe(token);
      const r = await explain(api, tampered, 0, run.runToken);
      if (r.ok) accepted.push(i);
      else if (r.reason !== 'explain_token_invalid' || r.status !== 400)
        wrongReason.push(`${i}: ${r.status} ${r.reason}`);
    }
    expect(accepted, `token (${token.length} chars) accepted with a change at these positions`).toEqual([]);
    expect(wrongReason).toEqual([]);
  }, 120_000);

  it('refuses non-canonical spellings of the same bytes (the padding bits of the last base64url character)', async () => {
    // A base64url string of 43 characters carries 258 bits for 256: the last character's two
    // low bits are padding, so four spellings decode to the same signature. Only the one the
    // server issued may be accepted, or a token can be altered without the MAC noticing.
    const accepted: string[] = [];
    for (const [i, part] of token.split('.').entries()) {
      const last = part.at(-1)!;
      const idx = B64URL.indexOf(last);
      for (const low of [1, 2, 3]) {
        const variant = token
          .split('.')
          .map((p, j) => (j === i ? p.slice(0, -1) + B64URL[idx ^ low]! : p))
          .join('.');
        if (variant === token) continue;
        const r = await explain(api, variant, 0, run.runToken);
        if (r.ok || r.reason !== 'explain_token_invalid')
          accepted.push(
            `part ${i}, last character ${last} -> ${B64URL[idx ^ low]}: ${r.status} ${r.reason ?? 'accepted'}`,
          );
      }
    }
    expect(accepted).toEqual([]);
  });

  it('refuses truncated, extended, spliced and forged tokens', async () => {
    const variants = new Map<string, string>();
    for (const n of [1, 2, 4, 8, 16, Math.floor(token.length / 2), token.length - 1]) {
      variants.set(`cut ${n}`, token.slice(0, token.length - n));
      variants.set(`cut front ${n}`, token.slice(n));
    }
    for (const extra of ['A', '=', '.', '..', '.x', ' ', '\u0000', token])
      variants.set(`extended ${JSON.stringify(extra)}`, token + extra);
    const parts = token.split('.');
    const parts2 = token2.split('.');
    if (parts.length > 1 && parts.length === parts2.length) {
      // The payload of one answer with the signature of another, and every other mix of the two.
      for (let i = 0; i < parts.length; i++) {
        const mixed = parts.map((p, j) => (j === i ? parts2[j]! : p)).join('.');
        if (mixed !== token && mixed !== token2) variants.set(`part ${i} from another answer`, mixed);
      }
      const signature = parts.at(-1)!;
      const body = parts.slice(0, -1).join('.');
      variants.set(
        'signature with another key',
        `${body}.${createHmac('sha256', randomBytes(32)).update(body).digest('base64url')}`,
      );
      variants.set('empty signature', `${body}.`);
      variants.set('signature only', signature);
      // Decoded JSON payloads, edited and re-encoded with the original signature.
      for (const [i, p] of parts.entries()) {
        let decoded: unknown;
        try {
          decoded = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
        } catch {
          continue;
        }
        if (decoded && typeof decoded === 'object') {
          for (const key of Object.keys(decoded)) {
            const value = (decoded as Record<string, unknown>)[key];
            const edited = {
              ...decoded,
              [key]: typeof value === 'number' ? value + 1 : typeof value === 'string' ? `${value}x` : null,
            };
            const encoded = Buffer.from(JSON.stringify(edited)).toString('base64url');
            variants.set(
              `payload field ${key} edited`,
              parts.map((q, j) => (j === i ? encoded : q)).join('.'),
            );
          }
        }
      }
    }
    variants.set('random', randomBytes(96).toString('base64url'));
    variants.set(
      'random dotted',
      `${randomBytes(64).toString('base64url')}.${randomBytes(32).toString('base64url')}`,
    );
    variants.set('upper-cased', token.toUpperCase());
    variants.set('reversed', [...token].reverse().join(''));
    const wrong: string[] = [];
    for (const [what, t] of variants) {
      if (t === token || t.length === 0) continue;
      const r = await explain(api, t, 0, run.runToken);
      const fine =
        !r.ok &&
        r.status === 400 &&
        (r.reason === 'explain_token_invalid' ||
          // Over the token's length limit, or a NUL, which no text input may hold (SPEC §6c).
          (r.reason === 'invalid_input' && (t.length > 4_000 || t.includes('\u0000'))));
      if (!fine) wrong.push(`${what}: ${r.status} ${r.reason ?? 'accepted'}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it("refuses the token when another run's session presents it (same owner, or another owner)", async () => {
    for (const otherRun of [sibling, foreign]) {
      for (const row of [0, 1, 2]) {
        const r = await explain(api, token, row, otherRun.runToken);
        expect(r.ok, r.text).toBe(false);
        expect(r.reason).toBe('explain_token_invalid');
        expect(r.status).toBe(400);
      }
    }
    // …and the token still works where it belongs.
    expect((await explain(api, token, 0, run.runToken)).ok).toBe(true);
  });

  it('refuses every token once the session is forgotten, as session_closed', async () => {
    const victim = await acceptChatRun(api.port, owner);
    await writeNotes(api, victim, 'v');
    const t = must<{ explainToken: string }>(
      await query(api.port, 'agent.query', { question: 'current_notes' }, victim.runToken),
      'query',
    ).explainToken;
    must(await mutate(api.port, 'memory.forget', { sessionId: victim.sessionId }, owner.token), 'forget');
    const r = await explain(api, t, 0, victim.runToken);
    expect(r.ok).toBe(false);
    expect(r.reason).toBe('session_closed');
  });
});

describe('explain tokens expire (EXPLAIN_TOKEN_TTL_SECONDS=1)', () => {
  const data = tempDataDir('explain-ttl');
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApi({ from: 'source', dataDir: data.dir, env: { EXPLAIN_TOKEN_TTL_SECONDS: '1' } });
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    data.remove();
  });

  it('a token works within its TTL and is refused after it', async () => {
    const owner = await loginOwner(api.port, 0);
    const run = await acceptChatRun(api.port, owner);
    await writeNotes(api, run, 'e');
    const answer = must<{ explainToken: string; explainExpiresAt: string }>(
      await query(api.port, 'agent.query', { question: 'current_notes' }, run.runToken),
      'query',
    );
    const lifetime = Date.parse(answer.explainExpiresAt) - Date.now();
    expect(lifetime).toBeLessThanOrEqual(1_000);
    expect((await explain(api, answer.explainToken, 0, run.runToken)).ok).toBe(true);
    await new Promise((r) =>
      setTimeout(r, Math.max(0, Date.parse(answer.explainExpiresAt) - Date.now()) + 1_100),
    );
    const late = await explain(api, answer.explainToken, 0, run.runToken);
    expect(late.ok).toBe(false);
    expect(late.status).toBe(400);
    expect(late.reason).toBe('explain_token_invalid');
  }, 30_000);
});
