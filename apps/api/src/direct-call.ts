/**
 * The direct route for the common tRPC request: one procedure (not a batch), JSON in and out.
 *
 * Why: under 50 concurrent agents the API's event loop was the limit, and most of each call went
 * to @trpc/server's node adapter turning the Node request into a fetch Request and the answer
 * back (Headers, AbortSignals, web streams): measured, the same procedures behind a bare Node
 * server answered ~2× the remember calls per second. This route calls the procedure through
 * tRPC's public adapter-author API (`callTRPCProcedure`, `getErrorShape`,
 * `transformTRPCResponse`, `getHTTPStatusCode`) and writes the same bytes, status and headers the
 * adapter would: the same router, middlewares, input validation, error formatter and `onError`.
 *
 * Anything else — batches, other content types, unknown paths, a method that does not fit the
 * procedure, unparseable JSON, streaming accepts — is left to the adapter (`next()`), so its
 * answers (and errors) for those stay exactly its own. Tests run every API test through this
 * route and compare its answers with the adapter's (direct-call.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  callTRPCProcedure,
  getErrorShape,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
} from '@trpc/server';
import type { AnyTRPCProcedure, AnyTRPCRouter, TRPCError } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';

type Type = 'query' | 'mutation';

export interface DirectCallOptions<Ctx> {
  router: AnyTRPCRouter;
  createContext: (opts: { req: IncomingMessage; res: ServerResponse }) => Promise<Ctx>;
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

function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * Returns a handler for a request under the tRPC base path (`procedurePath` is the part after
 * it, query string included). It answers and returns true, or returns false and leaves the
 * request untouched for the adapter.
 */
export function createDirectCall<Ctx>(opts: DirectCallOptions<Ctx>) {
  const config = opts.router._def._config;
  // The router's flat map of procedures by dotted path (tRPC builds it when the router is created).
  const procedures = opts.router._def.procedures as Record<string, AnyTRPCProcedure | undefined>;

  return (req: IncomingMessage & { body?: unknown }, res: ServerResponse, procedurePath: string): boolean => {
    const [path = '', query = ''] = procedurePath.split('?', 2);
    if (!PROCEDURE_PATH.test(path)) return false;
    const type: Type | null = req.method === 'GET' ? 'query' : req.method === 'POST' ? 'mutation' : null;
    const procedure = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
    if (type === null || procedure?._def.type !== type) return false;
    if (req.headers['trpc-accept'] !== undefined || req.headers.accept === 'application/jsonl') return false;
    const params = new URLSearchParams(query);
    if (params.has('batch')) return false;

    let input: unknown;
    try {
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
      return false; // the adapter answers PARSE_ERROR in its own words
    }

    answer(req, res, path, type, input).catch((cause: unknown) => {
      // Only a failure to serialise or write the answer gets here: say so as tRPC would.
      const error = getTRPCErrorFromUnknown(cause);
      if (res.headersSent || res.destroyed) return;
      const shape = getErrorShape({ config, ctx: undefined, error, input, path, type });
      res.writeHead(500, { vary: 'trpc-accept, accept', 'content-type': 'application/json' });
      res.end(JSON.stringify(transformTRPCResponse(config, { error: shape })));
    });
    return true;
  };

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    type: Type,
    input: unknown,
  ): Promise<void> {
    let ctx: Ctx | undefined;
    let body: unknown;
    try {
      ctx = await opts.createContext({ req, res });
      const data: unknown = await callTRPCProcedure({
        router: opts.router,
        path,
        getRawInput: async () => input,
        ctx,
        type,
        signal: undefined,
        batchIndex: 0,
      });
      body = { result: { data } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      opts.onError?.({ error, path, input, ctx, type, req });
      body = { error: getErrorShape({ config, ctx, error, input, path, type }) };
    }
    const status = getHTTPStatusCode(body as Parameters<typeof getHTTPStatusCode>[0]);
    const json = JSON.stringify(
      transformTRPCResponse(config, body as Parameters<typeof transformTRPCResponse>[1]),
    );
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { vary: 'trpc-accept, accept', 'content-type': 'application/json' });
    res.end(json);
  }
}
