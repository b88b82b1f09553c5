/**
 * The direct route for the common tRPC request: one procedure (not a batch), JSON in and out.
 *
 * Why: under 50 concurrent agents the API's event loop was the limit, and most of each call went
 * to @trpc/server's node adapter turning the Node request into a fetch Request and the answer
 * back (Headers, AbortSignals, web streams): measured, the same procedures behind a bare Node
 * server answered ~2× the remember calls per second. This route calls the procedure through
 * tRPC's public adapter-author API (`callTRPCProcedure`, `getTRPCErrorShape`,
 * `transformTRPCResponse`, `getHTTPStatusCode`, `createURL`) and writes the same bytes, status
 * and headers the adapter would: the same router, middlewares, input validation, error
 * formatter and `onError`; `createContext` gets the same `{ req, res, info }` and the procedure
 * an abort signal that fires when the client goes away, as behind the adapter.
 *
 * Anything else — batches, other content types, unknown paths, a method that does not fit the
 * procedure, unparseable JSON, streaming accepts, connection params — is left to the adapter
 * (`next()`), so its answers (and errors) for those stay exactly its own. Tests run every API
 * test through this route and compare its answers with the adapter's (fast-path.test.ts).
 *
 * It also reads three router internals no public function offers: the flat map of procedures
 * (`_def.procedures`), a procedure's `_def.type` and the root config (`_def._config`, for the
 * transformer and error formatter). {@link checkRouterInternals} fails at start when a tRPC
 * upgrade moved them (docs/dependencies.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  transformTRPCResponse,
} from '@trpc/server';
import type {
  AnyTRPCProcedure,
  AnyTRPCRouter,
  TRPCDefaultErrorShape,
  TRPCError,
  TRPCRootConfig,
} from '@trpc/server';
import { createURL } from '@trpc/server/adapters/node-http';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { TRPCRequestInfo } from '@trpc/server/http';
import { isJsonContentType } from '../http/limits.ts';

type Type = 'query' | 'mutation';
/** The root config as this route uses it: whatever the formatter adds, an error shape is at least this. */
type RootConfig = TRPCRootConfig<{
  ctx: object;
  meta: object;
  errorShape: TRPCDefaultErrorShape;
  transformer: boolean;
}>;

export interface DirectCallOptions<Ctx extends object> {
  router: AnyTRPCRouter;
  createContext: (opts: { req: IncomingMessage; res: ServerResponse; info: TRPCRequestInfo }) => Promise<Ctx>;
  onError?: (opts: {
    error: TRPCError;
    path: string;
    input: unknown;
    ctx: Ctx | undefined;
    type: Type;
    req: IncomingMessage;
  }) => void;
}

const PROCEDURE_PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
const PROCEDURE_TYPES = new Set(['query', 'mutation', 'subscription']);

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
const isFunction = (x: unknown): boolean => typeof x === 'function';

/**
 * The router internals this route reads, checked once: a tRPC upgrade that renames or reshapes
 * them throws here, at start, instead of sending every call to the wrong place.
 */
function checkRouterInternals(router: AnyTRPCRouter): {
  config: RootConfig;
  procedures: Record<string, AnyTRPCProcedure | undefined>;
} {
  const problems: string[] = [];
  const def: unknown = (router as { _def?: unknown })._def;
  const config = isObject(def) ? def._config : undefined;
  const procedures = isObject(def) ? def.procedures : undefined;
  if (!isObject(config)) problems.push('router._def._config is not an object');
  else {
    if (!isFunction(config.errorFormatter))
      problems.push('router._def._config.errorFormatter is not a function');
    const transformer = config.transformer;
    const input = isObject(transformer) ? transformer.input : undefined;
    const output = isObject(transformer) ? transformer.output : undefined;
    if (
      !isObject(input) ||
      !isFunction(input.deserialize) ||
      !isObject(output) ||
      !isFunction(output.serialize)
    )
      problems.push('router._def._config.transformer has no input.deserialize / output.serialize');
  }
  if (!isObject(procedures) || Object.keys(procedures).length === 0)
    problems.push('router._def.procedures is not a non-empty map of procedures by path');
  else {
    for (const [path, procedure] of Object.entries(procedures)) {
      const type = isFunction(procedure)
        ? (procedure as { _def?: { type?: unknown } })._def?.type
        : undefined;
      if (typeof type !== 'string' || !PROCEDURE_TYPES.has(type)) {
        problems.push(`router._def.procedures["${path}"] is not a procedure with a _def.type`);
        break;
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `The direct tRPC route (apps/api/src/trpc/fast-path.ts) reads @trpc/server internals this version ` +
        `does not have: ${problems.join('; ')}. It was written against @trpc/server 11.22.1; see ` +
        `docs/dependencies.md before upgrading.`,
    );
  }
  return {
    config: config as RootConfig,
    procedures: procedures as Record<string, AnyTRPCProcedure | undefined>,
  };
}

/**
 * Returns a handler for a request under the tRPC base path (`procedurePath` is the part after
 * it, query string included). It answers and returns true, or returns false and leaves the
 * request untouched for the adapter. Throws at once if the router's internals are not the
 * ones this route was written against ({@link checkRouterInternals}).
 */
export function createDirectCall<Ctx extends object>(opts: DirectCallOptions<Ctx>) {
  const { config, procedures } = checkRouterInternals(opts.router);

  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, procedurePath: string): boolean => {
    const [path = '', query = ''] = procedurePath.split('?', 2);
    if (!PROCEDURE_PATH.test(path)) return false;
    const type: Type | null = req.method === 'GET' ? 'query' : req.method === 'POST' ? 'mutation' : null;
    const procedure = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
    if (type === null || procedure === undefined || procedure._def.type !== type) return false;
    if (req.headers['trpc-accept'] !== undefined || req.headers.accept === 'application/jsonl') return false;
    const params = new URLSearchParams(query);
    if (params.has('batch') || params.has('connectionParams')) return false;

    let input: unknown;
    let url: URL;
    try {
      url = createURL(req);
      if (type === 'query') {
        if (req.headers['content-type'] !== undefined && !isJsonContentType(req.headers['content-type']))
          return false;
        const raw = params.get('input');
        input = raw ? JSON.parse(raw) : undefined;
      } else {
        // Only a body the server already read whole (see server.ts) and that is JSON.
        if (
          !isJsonContentType(req.headers['content-type']) ||
          typeof req.body !== 'string' ||
          req.body === ''
        )
          return false;
        input = JSON.parse(req.body);
      }
    } catch {
      return false; // the adapter answers PARSE_ERROR (or a bad URL) in its own words
    }

    // As the adapter: aborted when the connection closes before the answer was written.
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableEnded) abort.abort();
    });
    // As the adapter, the input is deserialised when the procedure reads it, and an error
    // reports the input only if it was read by then.
    let read = false;
    let rawInput: unknown;
    const call: TRPCRequestInfo['calls'][number] = {
      path,
      procedure,
      batchIndex: 0,
      getRawInput: () => {
        if (!read)
          rawInput =
            input === undefined ? undefined : (config.transformer.input.deserialize(input) as unknown);
        read = true;
        return Promise.resolve(rawInput);
      },
      result: () => (read ? rawInput : undefined),
    };
    const info: TRPCRequestInfo = {
      accept: null,
      type,
      isBatchCall: false,
      calls: [call],
      connectionParams: null,
      signal: abort.signal,
      url,
    };

    answer(req, res, info, call, type, abort.signal).catch((cause: unknown) => {
      // Only a failure to serialise or write the answer gets here: say so as tRPC would.
      const error = getTRPCErrorFromUnknown(cause);
      if (res.headersSent || res.destroyed) return;
      const shape = getTRPCErrorShape({ config, ctx: undefined, error, input: call.result(), path, type });
      res.writeHead(500, { vary: 'trpc-accept, accept', 'content-type': 'application/json' });
      res.end(JSON.stringify(transformTRPCResponse(config, { error: shape })));
    });
    return true;
  };

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    info: TRPCRequestInfo,
    call: TRPCRequestInfo['calls'][number],
    type: Type,
    signal: AbortSignal,
  ): Promise<void> {
    let ctx: Ctx | undefined;
    let body: unknown;
    try {
      ctx = await opts.createContext({ req, res, info });
      const data: unknown = await callTRPCProcedure({
        router: opts.router,
        path: call.path,
        getRawInput: call.getRawInput,
        ctx,
        type,
        signal,
        batchIndex: call.batchIndex,
      });
      body = { result: { data } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      const input = call.result();
      opts.onError?.({ error, path: call.path, input, ctx, type, req });
      body = { error: getTRPCErrorShape({ config, ctx, error, input, path: call.path, type }) };
    }
    const status = getHTTPStatusCode(body as Parameters<typeof getHTTPStatusCode>[0]);
    const json = JSON.stringify(
      transformTRPCResponse(config, body as Parameters<typeof transformTRPCResponse>[1]),
    );
    if (res.headersSent || res.destroyed) return;
    // As the adapter's `responseMeta` (server.ts): Retry-After beside a `retryAfterSeconds`.
    const retryAfter = (body as { error?: { data?: { retryAfterSeconds?: unknown } } }).error?.data
      ?.retryAfterSeconds;
    res.writeHead(status, {
      vary: 'trpc-accept, accept',
      'content-type': 'application/json',
      ...(typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {}),
    });
    res.end(json);
  }
}

/**
 * Answers a request with a tRPC error before tRPC sees it, in exactly the shape and status the
 * adapter would give (the router's error formatter included). server.ts refuses an upload whose
 * declared length is over the limit this way, without reading its body.
 */
export function createErrorAnswer(router: AnyTRPCRouter) {
  const { config } = checkRouterInternals(router);
  return (res: ServerResponse, error: TRPCError, path: string, type: Type): void => {
    const body = {
      error: getTRPCErrorShape({ config, ctx: undefined, error, input: undefined, path, type }),
    };
    const status = getHTTPStatusCode(body);
    // The body is not read: close the connection rather than drain megabytes nobody wants.
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(transformTRPCResponse(config, body)));
  };
}
