/**
 * Vocabulary profiles over real HTTP: the shipped packs, a preview, installing one on a document
 * (recorded with its version and digest in the application database), and who may do what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { errorOf } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';

let s: TestServer;
let ada: string;
let grace: string;
let rosalind: string;

beforeAll(
  async () => ([s, ada, grace, rosalind] = await startSignedIn('user-ada', 'user-grace', 'user-rosalind')),
);
afterAll(() => s?.close());

describe('profiles.list and profiles.preview', () => {
  it('lists the three shipped packs with name, version, digest, title and kinds', async () => {
    const packs = await s.client(ada).profiles.list.query();
    expect(packs.map((p) => p.name)).toEqual(['finance', 'language', 'research']);
    for (const p of packs) {
      expect(p.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(p.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(p.title.length).toBeGreaterThan(0);
      expect(p.installed).toBeNull();
    }
    const research = packs.find((p) => p.name === 'research')!;
    expect(research.title).toBe('Research');
    expect(research.kinds).toEqual(['correction', 'finding', 'method', 'publication', 'sample', 'study']);
    expect(packs.find((p) => p.name === 'language')!.kinds).toEqual([
      'sense',
      'term',
      'translation',
      'usage-example',
    ]);
  });

  it('with a document, says what is installed there (the demo seed installed Research on the reef document)', async () => {
    const packs = await s.client(ada).profiles.list.query({ documentId: REEF_DOCUMENT_ID });
    const research = packs.find((p) => p.name === 'research')!;
    expect(research.installed).toMatchObject({
      version: research.version,
      digest: research.digest,
      current: true,
    });
    expect(research.installed!.installedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(packs.find((p) => p.name === 'finance')!.installed).toBeNull();
  });

  it('previews a pack: kinds, fields with codec summaries, relations and a valid example record', async () => {
    const preview = await s.client(ada).profiles.preview.query({ name: 'research' });
    expect(preview).toMatchObject({ name: 'research', title: 'Research' });
    expect(preview.kinds.map((k) => k.name)).toEqual([
      'correction',
      'finding',
      'method',
      'publication',
      'sample',
      'study',
    ]);
    const finding = preview.kinds.find((k) => k.name === 'finding')!;
    // Required fields first.
    expect(finding.fields.slice(0, 2).map((f) => [f.name, f.required])).toEqual([
      ['statement', true],
      ['study', true],
    ]);
    const effect = finding.fields.find((f) => f.name === 'effect')!;
    expect(effect.codec.spec).toEqual({ type: 'quantity' });
    expect(effect.codec.summary).toMatch(/quantity/);
    expect(finding.relations.map((r) => r.name)).toEqual(['from_study', 'in_sample']);
    expect(preview.example.kind).toBe('finding');
    expect(preview.example.fields).toMatchObject({
      statement: expect.any(String),
      study: expect.stringMatching(/^study:/),
    });

    const finance = await s.client(ada).profiles.preview.query({ name: 'finance' });
    const metric = finance.kinds.find((k) => k.name === 'metric')!;
    expect(metric.fields.find((f) => f.name === 'value')!.codec.summary).toMatch(/money/);
  });

  it('an unknown pack is NOT_FOUND, naming the packs there are; bad input is invalid_input', async () => {
    const e = await errorOf(s.client(ada).profiles.preview.query({ name: 'astrology' }));
    expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
    expect(e.message).toMatch(/finance, language, research/);
    // Names that are properties of every object are not packs either.
    for (const name of ['constructor', '__proto__', 'toString']) {
      expect((await errorOf(s.client(ada).profiles.preview.query({ name }))).reason).toBe('not_found');
    }
    const r = await s.call('query', 'profiles.preview', { name: 'research', extra: 1 }, ada);
    expect([r.status, r.error?.data.reason]).toEqual([400, 'invalid_input']);
  });
});

describe('profiles.install and profiles.installed', () => {
  it('installs a pack on the owner’s document, recording its version and digest; installing again changes nothing', async () => {
    const c = s.client(ada);
    const finance = (await c.profiles.list.query()).find((p) => p.name === 'finance')!;
    const first = await c.profiles.install.mutate({ documentId: REEF_DOCUMENT_ID, name: 'finance' });
    expect(first).toMatchObject({
      documentId: REEF_DOCUMENT_ID,
      name: 'finance',
      version: finance.version,
      digest: finance.digest,
    });
    const again = await c.profiles.install.mutate({ documentId: REEF_DOCUMENT_ID, name: 'finance' });
    expect(again).toEqual(first);

    const installed = await c.profiles.installed.query({ documentId: REEF_DOCUMENT_ID });
    expect(installed.map((p) => p.name)).toEqual(['finance', 'research']);
    expect(installed.find((p) => p.name === 'finance')).toMatchObject({
      title: 'Finance',
      version: finance.version,
      digest: finance.digest,
      current: true,
      kinds: ['event', 'filing', 'instrument', 'metric'],
    });
    // Other documents are untouched.
    expect(await c.profiles.installed.query({ documentId: 'doc-survey-methods' })).toEqual([]);

    // On record in the application database, under the API's second migration.
    const rows = await s.app.app.execute({
      sql: 'SELECT profile, version, digest, installed_by FROM document_profiles WHERE document_id = ? ORDER BY profile',
      args: [REEF_DOCUMENT_ID],
    });
    expect(rows.rows.map((r) => [r.profile, r.version, r.digest, r.installed_by])).toEqual([
      ['finance', finance.version, finance.digest, 'user-ada'],
      ['research', installed[1]!.version, installed[1]!.digest, 'user-ada'],
    ]);
    const migration = await s.app.app.execute(
      "SELECT name FROM _migrations WHERE namespace = 'app' ORDER BY id",
    );
    expect(migration.rows.map((r) => r.name)).toContain('002_document_profiles');
  });

  it('installing an unknown pack is NOT_FOUND and writes nothing', async () => {
    const e = await errorOf(
      s.client(ada).profiles.install.mutate({ documentId: 'doc-survey-methods', name: 'astrology' }),
    );
    expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
    expect(await s.client(ada).profiles.installed.query({ documentId: 'doc-survey-methods' })).toEqual([]);
  });

  it('only the owner installs or sees what is installed: others get NOT_FOUND, other credentials are refused', async () => {
    const key = (await s.client(ada).auth.createApiKey.mutate({ label: 'profiles test' })).apiKey;
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const doc = 'doc-sea-surface-temperature';
    await s.client(ada).documents.share.mutate({ documentId: doc, userId: 'user-rosalind' });
    for (const token of [grace, rosalind]) {
      const install = await s.call(
        'mutation',
        'profiles.install',
        { documentId: doc, name: 'language' },
        token,
      );
      expect([install.status, install.error?.data.reason]).toEqual([404, 'not_found']);
      const installed = await s.call('query', 'profiles.installed', { documentId: REEF_DOCUMENT_ID }, token);
      expect([installed.status, installed.error?.data.reason]).toEqual([404, 'not_found']);
      const list = await s.call('query', 'profiles.list', { documentId: REEF_DOCUMENT_ID }, token);
      expect([list.status, list.error?.data.reason]).toEqual([404, 'not_found']);
    }
    for (const [token, status, reason] of [
      [key, 403, 'forbidden'],
      [run.runToken, 403, 'forbidden'],
      [undefined, 401, 'unauthenticated'],
    ] as const) {
      const r = await s.call('mutation', 'profiles.install', { documentId: doc, name: 'language' }, token);
      expect([r.status, r.error?.data.reason]).toEqual([status, reason]);
    }
    // Nothing was installed by any of them.
    expect(await s.client(ada).profiles.installed.query({ documentId: doc })).toEqual([]);
    // A removed document is gone for its owner too.
    await s.client(ada).documents.remove.mutate({ documentId: 'doc-survey-methods' });
    const gone = await errorOf(
      s.client(ada).profiles.install.mutate({ documentId: 'doc-survey-methods', name: 'language' }),
    );
    expect(gone.reason).toBe('not_found');
  });
});
