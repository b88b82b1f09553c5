/**
 * Sharing by email proves nothing about who signs up (SPEC §6c, issue 37 point 1): a share to an
 * address waits until the owner confirms the account that holds the address, or until someone
 * opens the one-use, expiring invitation link the owner sent. Over real HTTP, with sign-up open,
 * as a stranger would try it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';

const PASSWORD = 'sharing passphrase';
const DAY_MS = 86_400_000;

let s: TestServer;
let clock = new Date('2026-03-02T09:00:00.000Z');
let ada: string;
let grace: string;

/** Signs up as a browser does and returns the session's token (from its cookie) as a bearer. */
async function signUp(name: string, email: string): Promise<string> {
  const res = await fetch(`${s.url}/trpc/auth.signUp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password: PASSWORD }),
  });
  const value = /sponge_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!res.ok || !value) throw new Error(`sign-up ${email}: ${res.status} ${await res.text()}`);
  return decodeURIComponent(value).split('.')[0]!;
}

async function newDocument(owner: string, title: string): Promise<string> {
  return (await s.client(owner).documents.add.mutate({ title, text: `${title}: transect 4 recovered.` })).id;
}

/** What a caller can see of a document: in their list, and by get. */
async function sees(token: string, documentId: string) {
  const c = s.client(token);
  const listed = (await c.documents.list.query()).some((d) => d.id === documentId);
  const got = await c.documents.get.query({ documentId }).then(
    (d) => d.access,
    (e: { data?: { code?: string } }) => e.data?.code ?? 'error',
  );
  return { listed, got };
}

const NOTHING = { listed: false, got: 'NOT_FOUND' };
const SHARED = { listed: true, got: 'shared' };

/** The token of an invitation path, `/invite/<token>`. */
const tokenOf = (path: string) => path.replace(/^\/invite\//, '');

beforeAll(async () => {
  s = await startTestServer(
    { SIGNUP: 'open' },
    {
      now: () => clock,
      authLimits: {
        failuresPerAccount: 5,
        failuresPerAddress: 20,
        signUpsPerAddress: 100,
        windowSeconds: 900,
      },
    },
  );
  ada = await s.login('user-ada');
  grace = await s.login('user-grace');
});
afterAll(async () => {
  await s?.close();
});

describe('a share by email waits for the owner', () => {
  it('a stranger who signs up with the shared address sees nothing until the owner confirms', async () => {
    const doc = await newDocument(ada, 'Reef recovery');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'bob@example.org' });
    const stranger = await signUp('Bob Smith', 'bob@example.org');

    expect(await sees(stranger, doc)).toEqual(NOTHING);
    const waiting = await s.client(ada).documents.shares.query({ documentId: doc });
    expect(waiting).toEqual([
      { email: 'bob@example.org', state: 'waiting', account: { name: 'Bob Smith' }, invite: null },
    ]);

    await s.client(ada).documents.confirmShare.mutate({ documentId: doc, email: 'bob@example.org' });
    expect(await sees(stranger, doc)).toEqual(SHARED);
    expect(await s.client(ada).documents.shares.query({ documentId: doc })).toEqual([
      { email: 'bob@example.org', state: 'granted', account: { name: 'Bob Smith' }, invite: null },
    ]);
    // Confirming again changes nothing.
    await s.client(ada).documents.confirmShare.mutate({ documentId: doc, email: 'bob@example.org' });
    expect(await sees(stranger, doc)).toEqual(SHARED);
  });

  it('an address that already has an account waits for the confirmation too', async () => {
    // Whoever signed up first with the address holds it: the order of sign-up and share proves nothing.
    const early = await signUp('Early Bird', 'early@example.org');
    const doc = await newDocument(ada, 'Seagrass carbon');
    const answer = await s
      .client(ada)
      .documents.share.mutate({ documentId: doc, email: 'early@example.org' });
    expect(answer.documentId).toBe(doc);
    expect(await sees(early, doc)).toEqual(NOTHING);
    expect(await s.client(ada).documents.shares.query({ documentId: doc })).toEqual([
      { email: 'early@example.org', state: 'waiting', account: { name: 'Early Bird' }, invite: null },
    ]);
    await s.client(ada).documents.confirmShare.mutate({ documentId: doc, email: 'early@example.org' });
    expect(await sees(early, doc)).toEqual(SHARED);
  });

  it('confirming an address no account holds is refused in words, and grants nothing', async () => {
    const doc = await newDocument(ada, 'Larval supply');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'nobody-yet@example.org' });
    const e = await errorOf(
      s.client(ada).documents.confirmShare.mutate({ documentId: doc, email: 'nobody-yet@example.org' }),
    );
    expect([e.code, e.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(e.message).toMatch(/no account has nobody-yet@example\.org yet/i);
    const later = await signUp('Later', 'nobody-yet@example.org');
    expect(await sees(later, doc)).toEqual(NOTHING);
    // An address the owner never shared with: nothing to confirm.
    const never = await errorOf(
      s.client(ada).documents.confirmShare.mutate({ documentId: doc, email: 'early@example.org' }),
    );
    expect([never.code, never.reason]).toEqual(['NOT_FOUND', 'not_found']);
    expect(await s.client(ada).documents.shares.query({ documentId: doc })).toEqual([
      { email: 'nobody-yet@example.org', state: 'waiting', account: { name: 'Later' }, invite: null },
    ]);
  });

  it("the owner's own address is refused", async () => {
    const doc = await newDocument(ada, 'Own address');
    const e = await errorOf(
      s.client(ada).documents.share.mutate({ documentId: doc, email: 'user-ada@demo.invalid' }),
    );
    expect([e.code, e.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(await s.client(ada).documents.shares.query({ documentId: doc })).toEqual([]);
  });
});

describe('the invitation link', () => {
  it('works once, for whoever opens it, and only for its document', async () => {
    const doc = await newDocument(ada, 'Survey methods');
    const other = await newDocument(ada, 'Not in the invitation');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'carol@example.org' });
    const link = await s
      .client(ada)
      .documents.inviteLink.mutate({ documentId: doc, email: 'carol@example.org' });
    expect(link.path).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(link.expiresAt).toBe(new Date(clock.getTime() + 7 * DAY_MS).toISOString());
    // The token itself is never stored, only its hash.
    const stored = await s.app.app.execute('SELECT * FROM share_invites');
    expect(JSON.stringify(stored.rows)).not.toContain(tokenOf(link.path));
    expect((await s.client(ada).documents.shares.query({ documentId: doc }))[0]).toMatchObject({
      state: 'waiting',
      account: null,
      invite: { expiresAt: link.expiresAt },
    });

    // Carol keeps her mail elsewhere: she opens the link signed in with another address.
    const carol = await signUp('Carol Reef', 'carol@lab.example.org');
    expect(await sees(carol, doc)).toEqual(NOTHING);
    const accepted = await s.client(carol).documents.acceptInvite.mutate({ token: tokenOf(link.path) });
    expect(accepted).toEqual({ documentId: doc });
    expect(await sees(carol, doc)).toEqual(SHARED);
    expect(await sees(carol, other)).toEqual(NOTHING);
    expect(await s.client(ada).documents.shares.query({ documentId: doc })).toEqual([
      { email: 'carol@example.org', state: 'granted', account: { name: 'Carol Reef' }, invite: null },
    ]);
    // Opening it again herself lands on the document; anyone else is refused.
    expect(await s.client(carol).documents.acceptInvite.mutate({ token: tokenOf(link.path) })).toEqual({
      documentId: doc,
    });
    const eve = await signUp('Eve', 'eve@example.org');
    const used = await errorOf(s.client(eve).documents.acceptInvite.mutate({ token: tokenOf(link.path) }));
    expect([used.code, used.reason]).toEqual(['NOT_FOUND', 'not_found']);
    expect(used.message).toMatch(/already been used/);
    expect(await sees(eve, doc)).toEqual(NOTHING);
    // The share is granted now: no new link for it.
    const granted = await errorOf(
      s.client(ada).documents.inviteLink.mutate({ documentId: doc, email: 'carol@example.org' }),
    );
    expect([granted.code, granted.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
  });

  it('an expired link is refused and grants nothing; a new link replaces the old one', async () => {
    const doc = await newDocument(ada, 'Sea surface temperature');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'dan@example.org' });
    const first = await s
      .client(ada)
      .documents.inviteLink.mutate({ documentId: doc, email: 'dan@example.org' });
    const dan = await signUp('Dan', 'dan@lab.example.org');
    const start = clock;
    try {
      clock = new Date(start.getTime() + 7 * DAY_MS + 1);
      const expired = await errorOf(
        s.client(dan).documents.acceptInvite.mutate({ token: tokenOf(first.path) }),
      );
      expect([expired.code, expired.reason]).toEqual(['NOT_FOUND', 'not_found']);
      expect(expired.message).toMatch(/expired/);
      expect(await sees(dan, doc)).toEqual(NOTHING);
      expect((await s.client(ada).documents.shares.query({ documentId: doc }))[0]?.invite).toBeNull();

      const second = await s
        .client(ada)
        .documents.inviteLink.mutate({ documentId: doc, email: 'dan@example.org' });
      const third = await s
        .client(ada)
        .documents.inviteLink.mutate({ documentId: doc, email: 'dan@example.org' });
      expect(third.path).not.toBe(second.path);
      const replaced = await errorOf(
        s.client(dan).documents.acceptInvite.mutate({ token: tokenOf(second.path) }),
      );
      expect([replaced.code, replaced.reason]).toEqual(['NOT_FOUND', 'not_found']);
      expect(await sees(dan, doc)).toEqual(NOTHING);
      await s.client(dan).documents.acceptInvite.mutate({ token: tokenOf(third.path) });
      expect(await sees(dan, doc)).toEqual(SHARED);
    } finally {
      clock = start;
    }
  });

  it("unknown, malformed and the owner's own use are refused and change nothing", async () => {
    const doc = await newDocument(ada, 'Own link');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'fay@example.org' });
    const link = await s
      .client(ada)
      .documents.inviteLink.mutate({ documentId: doc, email: 'fay@example.org' });
    const own = await errorOf(s.client(ada).documents.acceptInvite.mutate({ token: tokenOf(link.path) }));
    expect([own.code, own.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    const fay = await signUp('Fay', 'fay@lab.example.org');
    const unknown = await errorOf(s.client(fay).documents.acceptInvite.mutate({ token: 'A'.repeat(43) }));
    expect([unknown.code, unknown.reason]).toEqual(['NOT_FOUND', 'not_found']);
    const empty = await errorOf(s.client(fay).documents.acceptInvite.mutate({ token: '' }));
    expect([empty.code, empty.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    // The owner's try did not use it up.
    await s.client(fay).documents.acceptInvite.mutate({ token: tokenOf(link.path) });
    expect(await sees(fay, doc)).toEqual(SHARED);
  });

  it('a removed document: its link opens nothing', async () => {
    const doc = await newDocument(ada, 'Removed later');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'gil@example.org' });
    const link = await s
      .client(ada)
      .documents.inviteLink.mutate({ documentId: doc, email: 'gil@example.org' });
    await s.client(ada).documents.remove.mutate({ documentId: doc });
    const gil = await signUp('Gil', 'gil@example.org');
    const e = await errorOf(s.client(gil).documents.acceptInvite.mutate({ token: tokenOf(link.path) }));
    expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
  });
});

describe('only the owner lists, confirms and makes links', () => {
  it('another owner, the person it is shared with and the invited account get NOT_FOUND', async () => {
    const doc = await newDocument(ada, 'Owner only');
    await s.client(ada).documents.share.mutate({ documentId: doc, email: 'hal@example.org' });
    const hal = await signUp('Hal', 'hal@example.org');
    // Grace's own document and link: it opens her document only, never Ada's.
    const hers = await newDocument(grace, "Grace's notes");
    await s.client(grace).documents.share.mutate({ documentId: hers, email: 'hal@example.org' });
    for (const token of [grace, hal]) {
      const c = s.client(token);
      for (const e of [
        await errorOf(c.documents.shares.query({ documentId: doc })),
        await errorOf(c.documents.confirmShare.mutate({ documentId: doc, email: 'hal@example.org' })),
        await errorOf(c.documents.inviteLink.mutate({ documentId: doc, email: 'hal@example.org' })),
      ])
        expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
    }
    expect(await sees(hal, doc)).toEqual(NOTHING);
    const link = await s
      .client(grace)
      .documents.inviteLink.mutate({ documentId: hers, email: 'hal@example.org' });
    expect(await s.client(hal).documents.acceptInvite.mutate({ token: tokenOf(link.path) })).toEqual({
      documentId: hers,
    });
    expect(await sees(hal, hers)).toEqual(SHARED);
    expect(await sees(hal, doc)).toEqual(NOTHING);
    expect((await s.client(ada).documents.shares.query({ documentId: doc }))[0]?.state).toBe('waiting');
  });
});
