/**
 * The HTTP server: tRPC at /trpc (plain JSON, batching capped, body size capped), the MCP
 * endpoint at /mcp (mcp/http.ts) and the built web app everywhere else, on one origin.
 *
 * @example
 * const { url, close } = await startServer(loadConfig({ PORT: '0', DATA_DIR: dir }));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { TRPCError } from '@trpc/server';
import { createHTTPHandler, createHTTPServer } from '@trpc/server/adapters/standalone';
import type { AuthLimits } from './accounts/limits.ts';
import type { Config } from './config.ts';
import { createHttpContextFactory } from './trpc/context.ts';
import type { Context } from './trpc/context.ts';
import { createDirectCall, createErrorAnswer } from './trpc/fast-path.ts';
import { openApp } from './app.ts';
import { secureDataFiles } from './data-dir.ts';
import { retryAfterMeta } from './http/upload-places.ts';
import type { OpenedApp } from './app.ts';
import { appRouter } from './router.ts';
import { createStaticHandler } from './http/static.ts';
import { createMcpEndpoint } from './mcp/http.ts';
import { createMcpOAuth } from './mcp/oauth.ts';
import type { RateLimit } from './http/rate-limit.ts';
import { MAX_BODY_BYTES, MAX_IMPORT_BODY_BYTES, MAX_UPLOAD_BODY_BYTES } from './http/limits.ts';
import { forbidden, fromAppDatabaseError } from './errors.ts';
import type { ApiError } from './errors.ts';
import type { UploadPace } from './http/upload-places.ts';
import { answerAfterDrain } from './http/drain.ts';
import type { DrainBound } from './http/drain.ts';
import { isLoopbackHost, isLoopbackHostHeader } from './http/loopback.ts';
import {
  cookieAuthenticated,
  crossOriginSignIn,
  crossOriginStream,
  fromOwnOrigin,
} from './http/same-origin.ts';
import { securityHeaders } from './http/security-headers.ts';

/** Keep equal to (or above) the web and agent clients' `maxItems`. */
const MAX_BATCH_SIZE = 10;

/**
 * A POST body of a declared, allowed length is read here into a string and handed to tRPC as
 * `req.body`: its adapter then builds the fetch Request from a string instead of piping the
 * socket through a web ReadableStream, which measured as a large share of each agent call's CPU
 * under load. Anything else (no Content-Length, or over the limit) is left to tRPC's own
 * streaming reader, which enforces the body size limit (413).
 */
function bufferBody(req: IncomingMessage, next: () => void): void {
  const declared = Number(req.headers['content-length']);
  if (req.method !== 'POST' || !Number.isInteger(declared) || declared < 0 || declared > MAX_BODY_BYTES)
    return next();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => {
    (req as IncomingMessage & { body?: string }).body = Buffer.concat(chunks).toString('utf8');
    next();
  });
  // An aborted upload: tRPC never sees the request; the socket is gone anyway.
  req.once('error', () => {});
}

/** The procedures that take multipart/form-data, each with its own body limit. */
const UPLOAD_PATHS: Record<string, number> = {
  '/trpc/documents.upload': MAX_UPLOAD_BODY_BYTES,
  '/trpc/documents.import': MAX_IMPORT_BODY_BYTES,
};

/** The live transcript (SPEC §7c): an SSE stream, read by the app's own pages only. */
const EVENTS_PATH = '/trpc/chat.events';

/**
 * How much of a refused body is read (and thrown away) before the answer, so that the client can
 * read it (http/drain.ts): a few times the upload limit, and not for longer than this.
 */
const REFUSED_BODY_DRAIN: DrainBound = { bytes: 4 * MAX_UPLOAD_BODY_BYTES, ms: 30_000 };

/** Node's parser errors with an answer of their own (as Node's default handler gives them). */
const PARSER_REFUSALS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

const FOREIGN_HOST_MESSAGE =
  'This server listens on a loopback address and answers only requests for localhost, 127.0.0.1 ' +
  'or [::1]. Set PUBLIC_URL to serve it under another name.';

const CROSS_SITE_MESSAGE =
  "A request signed in by the session cookie must come from this app's own pages (Origin or " +
  'Sec-Fetch-Site: same-origin). Scripts send Authorization: Bearer <token> instead.';

/** A host to reach a server listening on `host` from this machine, as it goes in a URL. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export interface RunningServer {
  url: string;
  port: number;
  app: OpenedApp;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  overrides: {
    now?: () => Date;
    log?: Logger;
    host?: string;
    /** false: every call through the tRPC adapter (tests compare). */ directCalls?: boolean;
    /** Sign-in and sign-up limits other than the defaults (tests that time many attempts). */
    authLimits?: AuthLimits;
    /** How a sign-in past an account's limit waits its turn (tests record the waits). */
    authWait?: (ms: number) => Promise<void>;
    /** The least pace of an upload's body, other than the default (tests turn its clock). */
    uploadPace?: UploadPace;
    /** The per-key limit of /mcp other than the default (the bench's thousands of calls). */
    mcpRateLimit?: RateLimit;
  } = {},
): Promise<RunningServer> {
  // Tightened before the databases open (SQLite gives -wal/-shm the database's mode) and after
  // (files the first start created).
  secureDataFiles(config);
  const app = await openApp(config, overrides);
  secureDataFiles(config);
  const createContext = createHttpContextFactory(app);
  const onError = ({
    error,
    path,
    type,
    ctx,
  }: {
    error: TRPCError;
    path: string | undefined;
    type: string;
    ctx: unknown;
  }) => {
    // Errors inside procedures are logged by the procedure middleware; this catches the
    // rest (unknown path, batch too large, body too large, unparseable input).
    if (type === 'unknown' || ctx === undefined) {
      app.log.info({ procedure: path ?? null, type, caller: null, outcome: error.code }, 'call refused');
    }
  };
  // One procedure, JSON: answered directly, with the adapter's bytes (trpc/fast-path.ts).
  const directCall = createDirectCall({ router: appRouter, createContext, onError });
  const serveStatic = createStaticHandler(config.webDist);
  // Uploads and imports get their own handlers: the same router, with their body limits, enforced
  // by tRPC while the body streams in (a 60 MB upload is cut off at the limit, never buffered
  // whole). Its caller was known before it got a place (admitUpload): that context is reused.
  const uploadContexts = new WeakMap<IncomingMessage, Context>();
  const uploadHandlers = new Map(
    Object.entries(UPLOAD_PATHS).map(([path, maxBodySize]) => [
      path,
      createHTTPHandler({
        router: appRouter,
        basePath: '/trpc/',
        maxBatchSize: 1,
        maxBodySize,
        createContext: (opts) => uploadContexts.get(opts.req) ?? createContext(opts),
        onError,
        responseMeta: retryAfterMeta,
      }),
    ]),
  );
  const answerError = createErrorAnswer(appRouter);
  // The owner's own agent over MCP (SPEC §7d), beside tRPC on the same origin.
  // Its OAuth sign-in for MCP clients: the authorization server's own routes (mcp/oauth.ts).
  const oauth = createMcpOAuth(app, { publicUrl: config.publicUrl });
  const mcp = createMcpEndpoint(app, {
    publicUrl: config.publicUrl,
    rateLimit: overrides.mcpRateLimit ?? config.mcpRateLimit,
    oauth,
  });
  const headers = securityHeaders(config.publicUrl);
  /** Refuses a tRPC request before tRPC reads it, once its body is drained. */
  const refuse = (req: IncomingMessage, res: ServerResponse, error: TRPCError, path: string) => {
    onError({ error, path, type: 'mutation', ctx: undefined });
    answerAfterDrain(req, res, () => answerError(res, error, path, 'mutation'), REFUSED_BODY_DRAIN);
  };
  /**
   * An upload's (or an import's) caller first, then its place (SPEC §6c: a place is taken only once the caller is
   * known), then its body to tRPC, watched for pace. A caller who may not upload gets no place:
   * the procedure refuses it before the body is read (trpc/procedures.ts).
   */
  async function admitUpload(req: IncomingMessage, res: ServerResponse, url: string): Promise<void> {
    const path = url.slice('/trpc/'.length);
    let ctx: Context;
    try {
      ctx = await createContext({ req, res });
    } catch (error) {
      return refuse(req, res, error instanceof TRPCError ? error : unavailable(error), path);
    }
    uploadContexts.set(req, ctx);
    const { caller } = ctx;
    if (caller.kind === 'user' || caller.kind === 'apiKey') {
      let busy: ApiError | null;
      try {
        busy = await app.uploadPlaces.enter(req, res, caller.user.id);
      } catch (error) {
        return refuse(req, res, unavailable(error), path);
      }
      if (busy) {
        res.setHeader('retry-after', String(busy.retryAfterSeconds));
        return refuse(req, res, busy, path);
      }
      app.uploadPlaces.watchPace(req, res, (tooSlow) => {
        onError({ error: tooSlow, path, type: 'mutation', ctx });
        if (res.headersSent) return void req.socket.destroy();
        // Answered now; the connection goes once the answer is out (its body never will be).
        res.once('finish', () => req.socket.destroy());
        answerError(res, tooSlow, path, 'mutation');
      });
    }
    uploadHandlers.get(url)!(req, res);
  }
  /** A database that cannot serve, as the caller reads it (503 `unavailable`); anything else is thrown on. */
  const unavailable = (error: unknown): TRPCError => {
    const answer = fromAppDatabaseError(error);
    if (answer instanceof TRPCError) return answer;
    throw error;
  };

  // On a loopback HOST without PUBLIC_URL only loopback Host headers are answered (DNS rebinding).
  const loopbackOnly = isLoopbackHost(overrides.host ?? config.host) && config.publicUrl === null;
  const server = createHTTPServer({
    router: appRouter,
    basePath: '/trpc/',
    maxBatchSize: MAX_BATCH_SIZE,
    maxBodySize: MAX_BODY_BYTES,
    createContext,
    // Retry-After beside every `retryAfterSeconds` (a busy queue, a sign-in limit).
    responseMeta: retryAfterMeta,
    middleware: (req, res, next) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (loopbackOnly && !isLoopbackHostHeader(req.headers.host)) {
        if (path.startsWith('/trpc/'))
          return refuse(req, res, forbidden(FOREIGN_HOST_MESSAGE), path.slice('/trpc/'.length));
        res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
        return void res.end(FOREIGN_HOST_MESSAGE);
      }
      if (mcp.owns(path)) return void mcp.handle(req, res);
      if (oauth.owns(path))
        return void oauth.handle(req, res).catch((err: unknown) => {
          app.log.error({ err, path }, 'oauth request failed');
          if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end('{"error":"server_error"}');
        });
      if (
        req.method === 'POST' &&
        path.startsWith('/trpc/') &&
        ((cookieAuthenticated(req.headers) && !fromOwnOrigin(req, config.publicUrl)) ||
          crossOriginSignIn(req, path.slice('/trpc/'.length), config.publicUrl))
      ) {
        return refuse(req, res, forbidden(CROSS_SITE_MESSAGE), path.slice('/trpc/'.length));
      }
      if (
        path === EVENTS_PATH &&
        cookieAuthenticated(req.headers) &&
        crossOriginStream(req, config.publicUrl)
      ) {
        return refuse(req, res, forbidden(CROSS_SITE_MESSAGE), 'chat.events');
      }
      if (Object.hasOwn(UPLOAD_PATHS, path)) {
        const procedure = path.slice('/trpc/'.length);
        // A declared length over the limit is refused without parsing a byte of the body.
        const declared = Number(req.headers['content-length']);
        if (Number.isFinite(declared) && declared > UPLOAD_PATHS[path]!) {
          return refuse(req, res, new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }), procedure);
        }
        return void admitUpload(req, res, path).catch((err: unknown) => {
          app.log.error({ err, path }, 'upload admission failed');
          if (!res.headersSent) refuse(req, res, new TRPCError({ code: 'INTERNAL_SERVER_ERROR' }), procedure);
          else req.socket.destroy();
        });
      }
      if (path.startsWith('/trpc/')) {
        return bufferBody(req, () => {
          if (
            overrides.directCalls === false ||
            !directCall(req, res, (req.url ?? '').slice('/trpc/'.length))
          )
            next();
        });
      }
      try {
        serveStatic(req, res);
      } catch (err) {
        app.log.error({ err, path }, 'static file failed');
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end('Internal error');
      }
    },
    onError,
  });
  // What Node's own HTTP parser refuses (a request line or headers over its limits, bytes that are
  // not HTTP, a request that timed out) never reaches the middleware: answered here, with the
  // same headers as every other answer instead of Node's bare one.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, text] = PARSER_REFUSALS[err.code ?? ''] ?? [400, 'Bad Request'];
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\n${lines.join('')}Content-Length: 0\r\nConnection: close\r\n\r\n`,
    );
  });
  // Slow clients must not hold sockets forever; keep-alive stays short for the balancer case.
  // Not measured: 60 s is for the longest request, an upload of up to the 20 MiB file limit; a
  // balancer in front should close its idle connections in under 5 s.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.port, overrides.host ?? config.host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${reachableHost(overrides.host ?? config.host)}:${port}`,
    port,
    app,
    close() {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
        await app.close();
      })();
      return closing;
    },
  };
}
