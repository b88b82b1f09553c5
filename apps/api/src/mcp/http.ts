/**
 * `/mcp` on the API's own HTTP server (SPEC §7d): the Model Context Protocol over Streamable HTTP,
 * for the owner's own agent, with the owner's API key as its bearer token, or a token the owner
 * consented to through the OAuth sign-in for MCP clients (./oauth.ts).
 *
 * Each POST is checked on its own, in this order: an `Origin` other than the app's own → 403 (a
 * page of another site must not drive a local client's key; requests without one, from
 * non-browser clients, pass); no API key → 401 with `WWW-Authenticate` pointing at the RFC 9728
 * metadata (a user token, a session cookie, a run token or a revoked key never opens it); past
 * the key's (or token's) rate limit (./limits.ts) → 429 with Retry-After; a JSON-RPC batch → 400
 * Invalid Request (one call per POST, so each is counted). Then a stateless transport (no MCP
 * session: any API process answers any call, and the key is looked up again on every one) hands
 * the message to an MCP server whose tools act for the key's owner (./tools.ts). Answers are plain
 * JSON.
 *
 * @example
 * const mcp = createMcpEndpoint(deps, { publicUrl: null, rateLimit: config.mcpRateLimit });
 * if (mcp.owns(path)) return void mcp.handle(req, res);
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { readCredential } from '../http/credential.ts';
import { resolveCaller } from '../trpc/context.ts';
import type { AppDeps } from '../deps.ts';
import { fromAppDatabaseError } from '../errors.ts';
import { originIsOwn, ownOrigin } from '../http/same-origin.ts';
import { SharedRateLimiter } from '../http/rate-limit.ts';
import type { RateLimit } from '../http/rate-limit.ts';
import { MAX_BODY_BYTES, isJsonContentType } from '../http/limits.ts';
import {
  MCP_PATH,
  METADATA_PATH,
  METADATA_ROOT_PATH,
  bearerChallenge,
  protectedResourceMetadata,
} from './metadata.ts';
import { ACCESS_TOKEN_PREFIX, MCP_SCOPE } from './oauth.ts';
import type { McpOAuth } from './oauth.ts';
import { createMcpServer } from './tools.ts';
import type { McpOwner } from './tools.ts';

/** JSON-RPC's code for an error of the server outside any method (the SDK answers the same way). */
const SERVER_ERROR = -32000;

const FOREIGN_ORIGIN_MESSAGE =
  "/mcp answers requests from non-browser clients, or from this app's own pages: this request's Origin is another site's.";

const NO_KEY_MESSAGE =
  "/mcp is opened by an API key of the library's owner, sent as Authorization: Bearer ak_… (make one on the Connected agents page), or by a token from the OAuth sign-in its metadata names.";

const WRONG_KIND_MESSAGE =
  'Only an API key or an OAuth token for /mcp opens it: a sign-in token, a session cookie or a run token does not.';

const INVALID_KEY_MESSAGE = 'This API key is unknown or revoked, or its account is disabled.';

const INVALID_TOKEN_MESSAGE =
  'This OAuth token is unknown, expired or revoked, is not for this /mcp, or its account is disabled: sign in again.';

function answer(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = SERVER_ERROR,
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body);
}

/** JSON-RPC's codes for a body that is not JSON, and for JSON that is not a request it takes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const BATCH_MESSAGE =
  'Invalid Request: send one JSON-RPC message per POST. MCP (2025-06-18 and later) has no batches, and /mcp counts every call against its rate limit.';

type OneMessage =
  { ok: true; message: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * The POST's one JSON-RPC message, read here rather than by the SDK's transport, which takes
 * arrays: a batch of 100 tool calls would pass the rate limit as one call. Refused with the
 * protocol's own Invalid Request (the current protocol has no batches; the SDK's clients never
 * send one). Everything the transport would refuse first is refused as it does, in its words and
 * order (Accept, Content-Type, size, JSON), since it is handed the parsed message.
 */
async function readOneMessage(req: IncomingMessage): Promise<OneMessage> {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return {
      ok: false,
      status: 406,
      code: SERVER_ERROR,
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    };
  if (!isJsonContentType(req.headers['content-type']))
    return {
      ok: false,
      status: 415,
      code: SERVER_ERROR,
      message: 'Unsupported Media Type: Content-Type must be application/json',
    };
  const tooLarge: OneMessage = {
    ok: false,
    status: 413,
    code: SERVER_ERROR,
    message: `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`,
  };
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  let message: unknown;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return tooLarge;
      chunks.push(chunk);
    }
    message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    // Not JSON, or a body cut off (the transport answers both alike).
    return { ok: false, status: 400, code: PARSE_ERROR, message: 'Parse error: Invalid JSON' };
  }
  if (Array.isArray(message))
    return { ok: false, status: 400, code: INVALID_REQUEST, message: BATCH_MESSAGE };
  return { ok: true, message };
}

export interface McpEndpoint {
  /** Whether `path` is the endpoint or its metadata (then `handle` answers it). */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function createMcpEndpoint(
  deps: AppDeps,
  options: { publicUrl: string | null; rateLimit: RateLimit; oauth?: McpOAuth },
): McpEndpoint {
  const { oauth } = options;
  // One limit per key for every API process on the database (http/rate-limit.ts).
  const limiter = new SharedRateLimiter(deps.app, 'mcp', options.rateLimit);
  // Without a Host header (HTTP/1.0) the pointer still has to be a URL: the listening one.
  const originOf = (req: IncomingMessage) =>
    ownOrigin(req, options.publicUrl) ?? `http://${req.socket.localAddress}:${req.socket.localPort}`;

  function metadata(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('Method Not Allowed');
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600' });
    const origin = originOf(req);
    const server = oauth ? { issuer: oauth.issuer(origin), scope: MCP_SCOPE } : null;
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify(protectedResourceMetadata(origin, server)));
  }

  async function mcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.origin !== undefined && !originIsOwn(req, options.publicUrl))
      return answer(res, 403, FOREIGN_ORIGIN_MESSAGE);

    // The bearer header only: a session cookie is never a credential here.
    const credential = readCredential({ authorization: req.headers.authorization });
    let owner: McpOwner | null = null;
    let refusal = NO_KEY_MESSAGE;
    try {
      if (oauth && typeof credential === 'object' && credential.token.startsWith(ACCESS_TOKEN_PREFIX)) {
        // An owner-consented OAuth token, for exactly this origin's /mcp (./oauth.ts).
        const found = await oauth.verifyMcpAccessToken(credential.token, originOf(req));
        if (found) owner = { userId: found.userId, via: 'oauth', id: found.tokenId };
        else refusal = INVALID_TOKEN_MESSAGE;
      } else {
        const caller = await resolveCaller(deps, credential);
        if (caller.kind === 'apiKey') owner = { userId: caller.user.id, via: 'apiKey', id: caller.keyId };
        else if (credential !== undefined)
          refusal = caller.kind === 'none' ? INVALID_KEY_MESSAGE : WRONG_KIND_MESSAGE;
      }
    } catch (error) {
      const unavailable = fromAppDatabaseError(error);
      if (unavailable === error) throw error;
      deps.log.warn({ err: error }, 'credential lookup failed: a database cannot serve');
      return answer(res, 503, (unavailable as Error).message, { 'Retry-After': '5' });
    }
    if (owner === null) {
      deps.log.info({ mcp: req.method, outcome: 'UNAUTHORIZED' }, 'mcp refused');
      return answer(res, 401, refusal, {
        'WWW-Authenticate': bearerChallenge(originOf(req), credential !== undefined),
      });
    }

    // Stateless: no session to resume, and nothing sent unasked, so only POST carries messages.
    if (req.method !== 'POST')
      return answer(res, 405, 'Method not allowed: this endpoint is stateless; send messages by POST.', {
        Allow: 'POST',
      });

    let wait: number;
    try {
      wait = await limiter.take(`${owner.via}:${owner.id}`, deps.now().getTime());
    } catch (error) {
      const unavailable = fromAppDatabaseError(error);
      if (unavailable === error) throw error;
      deps.log.warn({ err: error }, 'rate limit lookup failed: a database cannot serve');
      return answer(res, 503, (unavailable as Error).message, { 'Retry-After': '5' });
    }
    if (wait > 0)
      return answer(
        res,
        429,
        `Too many calls with this ${owner.via === 'apiKey' ? 'API key' : 'token'}; retry in ${wait} s.`,
        {
          'Retry-After': String(wait),
        },
      );

    const read = await readOneMessage(req);
    if (!read.ok) return answer(res, read.status, read.message, {}, read.code);

    const server = createMcpServer(deps, owner, originOf(req));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, read.message);
  }

  return {
    owns: (path) => path === MCP_PATH || path === METADATA_PATH || path === METADATA_ROOT_PATH,
    async handle(req, res) {
      const path = (req.url ?? '/').split('?')[0];
      try {
        if (path === MCP_PATH) await mcp(req, res);
        else metadata(req, res);
      } catch (error) {
        deps.log.error({ err: error, path }, 'mcp request failed');
        if (!res.headersSent) answer(res, 500, 'Internal error.');
        else res.end();
      }
    },
  };
}
