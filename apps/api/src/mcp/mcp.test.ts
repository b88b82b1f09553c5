/**
 * `/mcp` (SPEC §7d, issue 29) through the official SDK's client over a real HTTP server: exactly
 * the contract's read-only tools, the key owner's own documents only, the library tools' limits as
 * tool errors in words, `search` and `fetch` as ChatGPT reads them (issue 41), and who is refused
 * before any tool runs (no key, a foreign Origin, a revoked key, any other credential, a key past
 * its rate limit).
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOL_NAMES, READ_PASSAGE_MAX, passageOccursIn } from '@sponge/contract';
import { insertDocument, shareDocument } from '@sponge/library';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { TEST_RUNTIME_KEY, startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';

let s: TestServer;
let ada: string;
let grace: string;
let adaKey: string;
let graceKey: string;

/** A unique term, so that searches find only this file's documents. */
const TERM = `mcpwrasse${randomBytes(3).toString('hex')}`;
const ADA_DOC = 'doc-mcp-ada';
const ADA_LONG = 'doc-mcp-ada-long';
const GRACE_DOC = 'doc-mcp-grace';
const ADA_ABSTRACT = 'doc-mcp-ada-abstract';
/** A term only the abstract of ADA_ABSTRACT holds. */
const ABSTRACT_TERM = `${TERM}abs`;
const LONG_TEXT = Array.from({ length: 400 }, (_, i) => `Line ${i} of the long ${TERM} report.`).join('\n');

async function must(path: string, input: unknown, token: string): Promise<Json> {
  const r = await s.call(path.startsWith('documents.list') ? 'query' : 'mutation', path, input, token);
  if (!r.ok) throw new Error(`${path}: ${r.text}`);
  return r.data;
}

async function connect(key: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'sponge-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
    requestInit: { headers: { ...headers, ...(key === null ? {} : { Authorization: `Bearer ${key}` }) } },
  });
  await client.connect(transport);
  return client;
}

/** One tools/call's answer, with its text content. */
async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { result, text, data: result.structuredContent as Json };
}

/** A raw POST to /mcp (of `base`, this file's server by default), as a client that is not the SDK sends it. */
function post(body: string, headers: Record<string, string>, base = s.url) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...headers,
    },
    body,
  });
}

/** A JSON-RPC message, as `post` sends it. */
const message = (id: number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** A raw initialize POST. */
function initialize(headers: Record<string, string>) {
  return post(
    message(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    }),
    headers,
  );
}

beforeAll(async () => {
  s = await startTestServer({}, { mcpRateLimit: { burst: 1_000, refillSeconds: 0.001 } });
  ada = await s.login('user-ada');
  grace = await s.login('user-grace');
  const db = s.app.app;
  const at = new Date();
  await insertDocument(
    db,
    {
      id: ADA_DOC,
      ownerId: 'user-ada',
      title: 'Ada on wrasse',
      authors: [],
      abstract: '',
      pages: [`Cleaner ${TERM} visit the reef at dawn.`, `Page two: the ${TERM} counts doubled.`],
      source: 'pdf',
    },
    at,
  );
  await insertDocument(
    db,
    {
      id: ADA_LONG,
      ownerId: 'user-ada',
      title: 'Long report',
      authors: [],
      abstract: '',
      pages: [LONG_TEXT],
      source: 'text',
    },
    at,
  );
  await insertDocument(
    db,
    {
      id: ADA_ABSTRACT,
      ownerId: 'user-ada',
      title: 'Wrasse abstracts',
      authors: ['Ada Lovelace', 'Grace Hopper'],
      abstract: `We count ${ABSTRACT_TERM} on three reefs.`,
      pages: ['The body says nothing of the term.'],
      source: 'text',
    },
    at,
  );
  await insertDocument(
    db,
    {
      id: GRACE_DOC,
      ownerId: 'user-grace',
      title: "Grace's wrasse",
      authors: [],
      abstract: '',
      pages: [`Grace found ${TERM} far from the reef.`],
      source: 'text',
    },
    at,
  );
  // Grace's document is published and shared with Ada: Ada may read it in the app, but it is
  // never one of her own, so her key's tools never see it.
  await must('documents.publish', { documentId: GRACE_DOC }, grace);
  await shareDocument(db, GRACE_DOC, 'user-ada', at);
  s.app.library.indexer.kick();
  await s.app.library.indexer.idle();
  adaKey = (await must('auth.createApiKey', { label: 'mcp test' }, ada)).apiKey;
  graceKey = (await must('auth.createApiKey', { label: 'mcp test' }, grace)).apiKey;
});
afterAll(async () => {
  await s?.close();
});

describe('/mcp with an API key', () => {
  it('lists exactly the contract’s tools, every one read-only, with the contract’s schemas', async () => {
    const client = await connect(adaKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...MCP_TOOL_NAMES]);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      expect(t.annotations?.destructiveHint, t.name).toBe(false);
      expect(t.description, t.name).toBeTruthy();
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.outputSchema, t.name).toBeDefined();
    }
    const search = tools.find((t) => t.name === 'search_library')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect((search.inputSchema.properties as Json).limit.maximum).toBe(20);
    const read = tools.find((t) => t.name === 'read_passage')!;
    expect((read.inputSchema.properties as Json).length.maximum).toBe(READ_PASSAGE_MAX);
    // No memory tool answers, whatever its name.
    for (const name of ['remember', 'recall', 'query', 'read', 'explain']) {
      const { result } = await tool(client, name, {});
      expect(result.isError, name).toBe(true);
    }
    await client.close();
  });

  it("searches the key owner's own documents only: another owner's public, shared document never appears", async () => {
    const client = await connect(adaKey);
    const { result, data, text } = await tool(client, 'search_library', { query: TERM, limit: 20 });
    expect(result.isError).toBeFalsy();
    const ids = new Set(data.hits.map((h: Json) => h.documentId));
    expect(ids.has(ADA_DOC)).toBe(true);
    expect(ids.has(GRACE_DOC)).toBe(false);
    const hit = data.hits.find((h: Json) => h.documentId === ADA_DOC);
    expect(hit).toMatchObject({ title: 'Ada on wrasse', page: expect.any(Number) as number });
    expect(text).toContain('Ada on wrasse');
    // Narrowed to Grace's document: no hits, never an error (as library.search answers).
    const narrowed = await tool(client, 'search_library', { query: TERM, documentId: GRACE_DOC });
    expect(narrowed.result.isError).toBeFalsy();
    expect(narrowed.data.hits).toEqual([]);
    // Grace's own key finds hers, and never Ada's.
    const graces = await connect(graceKey);
    const hers = await tool(graces, 'search_library', { query: TERM });
    const hersIds = hers.data.hits.map((h: Json) => h.documentId);
    expect(hersIds).toContain(GRACE_DOC);
    expect(hersIds).not.toContain(ADA_DOC);
    expect(hersIds).not.toContain(ADA_LONG);
    await Promise.all([client.close(), graces.close()]);
  });

  it('reads at most 4,000 characters with the page and span, and says what follows', async () => {
    const client = await connect(adaKey);
    const page2 = await tool(client, 'read_passage', { documentId: ADA_DOC, page: 2 });
    expect(page2.data).toMatchObject({ documentId: ADA_DOC, page: 2, pages: 2, more: false });
    expect(page2.data.text).toBe(`Page two: the ${TERM} counts doubled.`);
    expect(page2.text).toContain('p. 2 of 2');
    const long = await tool(client, 'read_passage', { documentId: ADA_LONG });
    expect(long.data.text.length).toBe(READ_PASSAGE_MAX);
    expect(long.data).toMatchObject({ start: 0, end: READ_PASSAGE_MAX, more: true });
    const next = await tool(client, 'read_passage', {
      documentId: ADA_LONG,
      start: long.data.end,
      length: 100,
    });
    expect(next.data).toMatchObject({ start: READ_PASSAGE_MAX, end: READ_PASSAGE_MAX + 100 });
    await client.close();
  });

  it('answers the library tools’ refusals as tool errors, in words, and changes nothing', async () => {
    const client = await connect(adaKey);
    const tooLong = await tool(client, 'read_passage', {
      documentId: ADA_LONG,
      length: READ_PASSAGE_MAX + 1,
    });
    expect(tooLong.result.isError).toBe(true);
    expect(tooLong.text).toContain('length is at most 4,000');
    const pastEnd = await tool(client, 'read_passage', { documentId: ADA_DOC, page: 3 });
    expect(pastEnd.result.isError).toBe(true);
    expect(pastEnd.text).toMatch(/the document has 2 pages; page 3 is past its end.*invalid_input/);
    for (const documentId of [GRACE_DOC, 'doc-none-such']) {
      const foreign = await tool(client, 'read_passage', { documentId });
      expect(foreign.result.isError, documentId).toBe(true);
      expect(foreign.text, documentId).toBe('The document was not found. (not_found)');
    }
    const extra = await tool(client, 'search_library', { query: TERM, writeTo: 'x' });
    expect(extra.result.isError).toBe(true);
    const empty = await tool(client, 'search_library', { query: '   ' });
    expect(empty.result.isError).toBe(true);
    expect(empty.text).toContain('query must not be empty');
    await client.close();
  });

  it('lists a page at a time: the total, and the offset of the next page until the last', async () => {
    const client = await connect(adaKey);
    const all = (await tool(client, 'list_documents', {})).data;
    expect(all.nextOffset).toBeNull();
    expect(all.total).toBe(all.documents.length);
    expect(all.total).toBeGreaterThanOrEqual(3);
    const first = await tool(client, 'list_documents', { limit: 2 });
    expect([first.data.documents.length, first.data.total, first.data.nextOffset]).toEqual([2, all.total, 2]);
    expect(first.text).toContain(`Showing 1–2 of ${all.total}: call list_documents with offset 2 for more.`);
    const rest = await tool(client, 'list_documents', { offset: 2, limit: 200 });
    expect(rest.data.nextOffset).toBeNull();
    expect([...first.data.documents, ...rest.data.documents].map((d: Json) => d.id)).toEqual(
      all.documents.map((d: Json) => d.id),
    );
    expect((await tool(client, 'list_documents', { limit: 201 })).text).toContain('limit');
    // Past the last document: an empty page that says so, and where the list ends.
    const past = await tool(client, 'list_documents', { offset: all.total + 5 });
    expect([past.data.documents, past.data.total, past.data.nextOffset]).toEqual([[], all.total, null]);
    expect(past.text).toBe(
      `No documents at that offset: the library holds ${all.total}, at offsets 0 to ${all.total - 1}.`,
    );
    await client.close();
  });

  it("lists the key owner's own documents, never one shared with or published to them", async () => {
    const client = await connect(adaKey);
    const { data } = await tool(client, 'list_documents', {});
    const ids = data.documents.map((d: Json) => d.id);
    expect(ids).toEqual(expect.arrayContaining([ADA_DOC, ADA_LONG, REEF_DOCUMENT_ID]));
    expect(ids).not.toContain(GRACE_DOC);
    const mine = (await must('documents.list', undefined, ada)) as Json[];
    expect(new Set(ids)).toEqual(new Set(mine.filter((d) => d.access === 'owner').map((d) => d.id)));
    expect(data.documents.find((d: Json) => d.id === ADA_DOC)).toMatchObject({
      title: 'Ada on wrasse',
      pages: 2,
      index: 'ready',
    });
    // With what each is (SPEC §6d), as the library lists it.
    await must(
      'documents.update',
      { documentId: ADA_DOC, year: 2021, doi: '10.5555/wrasse', tags: ['fish'] },
      ada,
    );
    const listed = (await tool(client, 'list_documents', {})).data.documents.find(
      (d: Json) => d.id === ADA_DOC,
    );
    expect(listed).toMatchObject({ year: 2021, doi: '10.5555/wrasse', venue: '', tags: ['fish'] });
    expect(listed.citationKey).toBe(mine.find((d) => d.id === ADA_DOC)!.citationKey);
    expect((await tool(client, 'list_documents', {})).text).toContain(`cited as ${listed.citationKey}, 2021`);
    await client.close();
  });

  it("lists a document's reviewed findings with source, passage, decision and revision; another's is not found", async () => {
    const client = await connect(adaKey);
    const { result, data } = await tool(client, 'list_reviewed_findings', { documentId: REEF_DOCUMENT_ID });
    expect(result.isError).toBeFalsy();
    expect(data.revision).toBeGreaterThanOrEqual(1);
    expect(data.findings.length).toBeGreaterThanOrEqual(1);
    const reef = (await s.call('query', 'documents.get', { documentId: REEF_DOCUMENT_ID }, ada)).data;
    for (const f of data.findings) {
      expect(f.decision.decision).toBe('accept');
      expect(f.revision).toBeGreaterThanOrEqual(1);
      expect(f.revision).toBeLessThanOrEqual(data.revision);
      expect(f.source.documentId).toBeTruthy();
      if (f.source.documentId === REEF_DOCUMENT_ID) expect(passageOccursIn(f.passage, reef.text)).toBe(true);
    }
    const foreign = await tool(client, 'list_reviewed_findings', { documentId: GRACE_DOC });
    expect(foreign.result.isError).toBe(true);
    expect(foreign.text).toBe('The document was not found. (not_found)');
    await client.close();
  });
});

/** A search or fetch answer as ChatGPT reads it: exactly one text content item, its text JSON. */
async function chatgpt(client: Client, name: 'search' | 'fetch', args: Record<string, unknown>) {
  const { result, data } = await tool(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  const json: Json = JSON.parse((result.content[0] as { text: string }).text);
  // The structured content says the same, for clients that read it.
  expect(data).toEqual(json);
  return json;
}

describe('/mcp search and fetch, in the shape ChatGPT’s connectors and deep research expect', () => {
  it('lists search({ query }) and fetch({ id }), read-only, and no tool that writes', async () => {
    const client = await connect(adaKey);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['search', 'fetch']) {
      const t = byName.get(name);
      expect(t, name).toBeDefined();
      expect(t!.annotations?.readOnlyHint, name).toBe(true);
      expect(t!.annotations?.destructiveHint, name).toBe(false);
    }
    expect(Object.keys(byName.get('search')!.inputSchema.properties!)).toEqual(['query']);
    expect(byName.get('search')!.inputSchema.required).toEqual(['query']);
    expect(Object.keys(byName.get('fetch')!.inputSchema.properties!)).toEqual(['id']);
    expect(byName.get('fetch')!.inputSchema.required).toEqual(['id']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    await client.close();
  });

  it("searches the key owner's documents: {results:[{id,title,text,url,metadata}]}, each url the passage on its document page", async () => {
    const client = await connect(adaKey);
    const { results } = await chatgpt(client, 'search', { query: TERM });
    const ids = results.map((r: Json) => r.id as string);
    expect(ids.some((id: string) => id.startsWith(`${ADA_DOC}#`))).toBe(true);
    expect(ids.some((id: string) => id.startsWith(`${GRACE_DOC}#`))).toBe(false);
    const view = (await s.call('query', 'documents.get', { documentId: ADA_DOC }, ada)).data;
    const hit = results.find((r: Json) => r.id.startsWith(`${ADA_DOC}#`));
    expect(Object.keys(hit).sort()).toEqual(['id', 'metadata', 'text', 'title', 'url']);
    expect(hit.title).toBe('Ada on wrasse');
    expect(hit.text).toContain(TERM);
    const url = new URL(hit.url);
    expect(url.origin).toBe(s.url);
    expect(url.pathname).toBe(`/documents/${ADA_DOC}`);
    const page = Number(url.searchParams.get('page'));
    expect(hit.metadata).toMatchObject({ documentId: ADA_DOC, page, authors: [] });
    // The quote the link opens at is the passage, on the page it names.
    const quote = url.searchParams.get('quote')!;
    expect(quote).toBe(hit.text);
    const pageText = view.text.slice(view.pageStarts[page - 1], view.pageStarts[page] ?? view.text.length);
    expect(passageOccursIn(quote, pageText)).toBe(true);
    await client.close();
  });

  it('fetches a result by its id: the passage’s text, at most 4,000 characters, with the same url and the document’s metadata', async () => {
    const client = await connect(adaKey);
    const { results } = await chatgpt(client, 'search', { query: TERM });
    for (const r of results as Json[]) {
      const doc = await chatgpt(client, 'fetch', { id: r.id });
      expect(Object.keys(doc).sort(), r.id).toEqual(['id', 'metadata', 'text', 'title', 'url']);
      expect(doc, r.id).toMatchObject({ id: r.id, title: r.title, url: r.url, metadata: r.metadata });
      expect(doc.text.replace(/\s+/g, ' ').trim(), r.id).toBe(r.text);
    }
    // A span longer than read_passage reads is cut at 4,000 characters.
    const long = await chatgpt(client, 'fetch', { id: `${ADA_LONG}#p1:0-9000` });
    expect(long.id).toBe(`${ADA_LONG}#p1:0-9000`);
    expect(long.text).toBe(LONG_TEXT.slice(0, READ_PASSAGE_MAX));
    expect(long.metadata).toMatchObject({ documentId: ADA_LONG, page: 1 });
    await client.close();
  });

  it('finds a passage of the abstract and fetches the abstract; the url opens the document', async () => {
    const client = await connect(adaKey);
    const { results } = await chatgpt(client, 'search', { query: ABSTRACT_TERM });
    const hit = results.find((r: Json) => r.id.startsWith(`${ADA_ABSTRACT}#`));
    expect(hit).toMatchObject({
      title: 'Wrasse abstracts',
      url: `${s.url}/documents/${ADA_ABSTRACT}`,
      metadata: { documentId: ADA_ABSTRACT, authors: ['Ada Lovelace', 'Grace Hopper'] },
    });
    const doc = await chatgpt(client, 'fetch', { id: hit.id });
    expect(doc).toMatchObject({
      id: hit.id,
      text: `We count ${ABSTRACT_TERM} on three reefs.`,
      url: hit.url,
    });
    await client.close();
  });

  it("carries the document view's metadata (authors, and year, doi, venue, tags, citationKey where the view has them)", async () => {
    const client = await connect(adaKey);
    const { results } = await chatgpt(client, 'search', { query: ABSTRACT_TERM });
    const hit = results.find((r: Json) => r.id.startsWith(`${ADA_ABSTRACT}#`));
    const view = (await s.call('query', 'documents.get', { documentId: ADA_ABSTRACT }, ada)).data;
    for (const key of ['authors', 'year', 'doi', 'venue', 'tags', 'citationKey'])
      if (key in view) expect(hit.metadata[key], key).toEqual(view[key]);
    await client.close();
  });

  it("answers an id of another owner's passage, shared or public, as read_passage does: not found", async () => {
    const graces = await connect(graceKey);
    const { results } = await chatgpt(graces, 'search', { query: TERM });
    const hers = results.find((r: Json) => r.id.startsWith(`${GRACE_DOC}#`));
    expect(hers).toBeDefined();
    await graces.close();
    const client = await connect(adaKey);
    for (const id of [hers.id, `${GRACE_DOC}#abstract`, 'doc-none-such#p1:0-10']) {
      const { result, text } = await tool(client, 'fetch', { id });
      expect(result.isError, id).toBe(true);
      expect(text, id).toBe('The document was not found. (not_found)');
    }
    await client.close();
  });

  it('answers an id that is not one search gave with a clear error in words, never an internal one', async () => {
    const client = await connect(adaKey);
    for (const id of [
      '',
      'nonsense',
      `${ADA_DOC}#p0:1-5`,
      `${ADA_DOC}#p1:9-5`,
      `${ADA_DOC}#p1:5-5`,
      'x'.repeat(5_000),
    ]) {
      const { result, text } = await tool(client, 'fetch', { id });
      expect(result.isError, id).toBe(true);
      expect(text, id).toMatch(/\bid\b/);
      expect(text, id).not.toContain('internal');
    }
    const { result, text } = await tool(client, 'fetch', { id: `${ADA_DOC}#p1:100000-100010` });
    expect(result.isError).toBe(true);
    expect(text).toContain('invalid_input');
    // Over raw HTTP too: a JSON-RPC answer, not a 500.
    const res = await post(message(9, 'tools/call', { name: 'fetch', arguments: { id: 'nonsense' } }), {
      Authorization: `Bearer ${adaKey}`,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).result.isError).toBe(true);
    await client.close();
  });
});

describe('/mcp refuses before any tool runs', () => {
  it('answers no key with 401 and a pointer to the protected-resource metadata (RFC 9728)', async () => {
    const res = await initialize({});
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    const pointer = /^Bearer resource_metadata="([^"]+)"$/.exec(challenge)?.[1];
    expect(pointer).toBe(`${s.url}/.well-known/oauth-protected-resource/mcp`);
    expect(((await res.json()) as Json).error.message).toContain('API key');
    const metadata = await fetch(pointer!);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      resource: `${s.url}/mcp`,
      bearer_methods_supported: ['header'],
    });
    // The SDK's client is refused the same way.
    await expect(connect(null)).rejects.toThrow();
  });

  it('answers a revoked key with 401 invalid_token, and the key worked until then', async () => {
    const created = await must('auth.createApiKey', { label: 'revoked soon' }, ada);
    const client = await connect(created.apiKey);
    await client.close();
    await must('auth.revokeApiKey', { id: created.id }, ada);
    const res = await initialize({ Authorization: `Bearer ${created.apiKey}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(connect(created.apiKey)).rejects.toThrow();
  });

  it('answers a sign-in token, a session cookie, a run token or the runtime key with 401', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    for (const [what, headers] of [
      ['sign-in token', { Authorization: `Bearer ${ada}` }],
      ['session cookie', { Cookie: `sponge_session=${cookie}` }],
      ['run token', { Authorization: `Bearer ${run.runToken}` }],
      ['runtime key', { Authorization: `Bearer ${TEST_RUNTIME_KEY}` }],
      ['malformed', { Authorization: 'Basic abc' }],
    ] as const) {
      const res = await initialize(headers);
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toContain('resource_metadata=');
    }
  });

  it("answers a foreign Origin with 403, even with a valid key; the app's own Origin and none pass", async () => {
    const key = { Authorization: `Bearer ${adaKey}` };
    const foreign = await initialize({ ...key, Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as Json).error.message).toContain('Origin');
    expect((await initialize({ ...key, Origin: 'null' })).status).toBe(403);
    expect((await initialize({ ...key, Origin: s.url })).status).toBe(200);
    expect((await initialize(key)).status).toBe(200);
  });

  it('answers the key of a disabled account with 401, and the key works again once it is enabled', async () => {
    const db = s.app.app;
    const setDisabled = (at: string | null) =>
      db.execute({ sql: `UPDATE users SET disabled_at = ? WHERE id = 'user-grace'`, args: [at] });
    await setDisabled(new Date().toISOString());
    try {
      const res = await initialize({ Authorization: `Bearer ${graceKey}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    } finally {
      await setDisabled(null);
    }
    expect((await initialize({ Authorization: `Bearer ${graceKey}` })).status).toBe(200);
  });

  it('answers malformed, oversized and unknown messages with the protocol’s errors, never a 500', async () => {
    const key = { Authorization: `Bearer ${adaKey}` };
    const notJson = await post('{"jsonrpc":', key);
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as Json).error.code).toBe(-32700);
    const big = await post(message(1, 'ping', { pad: 'x'.repeat(5 << 20) }), key);
    expect(big.status).toBe(413);
    const noAccept = await post(message(1, 'ping'), { ...key, Accept: 'text/html' });
    expect(noAccept.status).toBe(406);
    const unknown = await post(message(7, 'resources/list', {}), key);
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as Json).error.code).toBe(-32601);
  });

  it('answers concurrent POSTs without a session, each on its own', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map((id) => post(message(id, 'tools/list', {}), { Authorization: `Bearer ${adaKey}` })),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(((await res.json()) as Json).result.tools).toHaveLength(MCP_TOOL_NAMES.length);
    }
  });

  it('answers GET and DELETE with 405: the endpoint is stateless and sends nothing unasked', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${s.url}/mcp`, {
        method,
        headers: { Authorization: `Bearer ${adaKey}`, Accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
    }
  });
});

describe('/mcp rate limit', () => {
  it('holds one key back past its burst with 429 and Retry-After, and leaves other keys alone', async () => {
    const limited = await startTestServer({}, { mcpRateLimit: { burst: 3, refillSeconds: 60 } });
    try {
      const owner = await limited.login('user-ada');
      const other = await limited.login('user-grace');
      const create = async (token: string) =>
        (await limited.call('mutation', 'auth.createApiKey', { label: 'limit' }, token)).data
          .apiKey as string;
      const [k1, k2] = [await create(owner), await create(other)];
      const ping = (key: string) => post(message(1, 'ping'), { Authorization: `Bearer ${key}` }, limited.url);
      for (let i = 0; i < 3; i++) expect((await ping(k1)).status).not.toBe(429);
      const held = await ping(k1);
      expect(held.status).toBe(429);
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await held.json()) as Json).error.message).toMatch(/retry in \d+ s/);
      expect((await ping(k2)).status).not.toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('is one limit for every API on the same databases: what one let through, the other counts', async () => {
    const a = await startTestServer({}, { mcpRateLimit: { burst: 3, refillSeconds: 60 } });
    const b = await startTestServer({}, { sameDataAs: a, mcpRateLimit: { burst: 3, refillSeconds: 60 } });
    try {
      const key = (await a.call('mutation', 'auth.createApiKey', { label: 'two' }, await a.login('user-ada')))
        .data.apiKey as string;
      const ping = (api: TestServer) => post(message(1, 'ping'), { Authorization: `Bearer ${key}` }, api.url);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await ping(i % 2 === 0 ? a : b)).status);
      // The burst of 3 once, not once per API.
      expect(statuses.filter((x) => x === 200)).toHaveLength(3);
      expect(statuses.filter((x) => x === 429)).toHaveLength(5);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('refuses a JSON-RPC batch with the protocol’s Invalid Request: 100 calls in one POST never pass as one', async () => {
    const limited = await startTestServer({}, { mcpRateLimit: { burst: 3, refillSeconds: 60 } });
    try {
      const key = (
        await limited.call(
          'mutation',
          'auth.createApiKey',
          { label: 'batch' },
          await limited.login('user-ada'),
        )
      ).data.apiKey as string;
      const auth = { Authorization: `Bearer ${key}` };
      const batch = `[${Array.from({ length: 100 }, (_, i) => message(i + 1, 'tools/list', {})).join(',')}]`;
      const refused = await post(batch, auth, limited.url);
      const body = (await refused.json()) as Json;
      // One answer, not an array of 100 results: no call of the batch ran.
      expect([refused.status, Array.isArray(body), body.error?.code]).toEqual([400, false, -32600]);
      expect(body.error.message).toMatch(/batch/i);
      // A batch of one is a batch too (the current protocol has none).
      const one = await post(`[${message(1, 'ping')}]`, auth, limited.url);
      expect([one.status, ((await one.json()) as Json).error?.code]).toEqual([400, -32600]);
      // Each refused POST took one call of the key's burst, as any POST does; single messages go on.
      expect((await post(message(1, 'ping'), auth, limited.url)).status).toBe(200);
      expect((await post(message(2, 'ping'), auth, limited.url)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
