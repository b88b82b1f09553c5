/**
 * An embedding adapter for any OpenAI-compatible embeddings endpoint:
 * `POST {url}/v1/embeddings` with `{ input: string[], model, dimensions? }`, answered with
 * `{ data: [{ index, embedding: number[] }] }`.
 *
 * Inputs are sent in batches of `batchSize`, one batch at a time. Every request has its own
 * timeout (an AbortController covering the response body too). 429, 408, 5xx, timeouts and
 * network errors are retried up to `retries` times with exponential backoff and full jitter;
 * a `Retry-After` (or `retry-after-ms`) header is honoured, and one longer than `maxRetryAfterMs`
 * fails at once. Errors are `EmbeddingError`s whose message names the endpoint (origin and path
 * only) and never contains the API key.
 */
import pRetry, { AbortError } from 'p-retry';
import { EmbeddingError, checkDimensions } from './adapter.ts';
import type { EmbeddingAdapter } from './adapter.ts';
import { parseRetryAfter } from './retry-after.ts';

export interface CloudEmbeddingOptions {
  /** Base URL (`https://api.openai.com`), or the `/v1` or full `/v1/embeddings` URL. */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`; omitted when empty (local servers). */
  apiKey?: string;
  model: string;
  /** The vector length the model returns (and is asked for, see `sendDimensions`). */
  dimensions: number;
  /** Inputs per request; 64 by default. */
  batchSize?: number;
  /** Per-request timeout, body included; 10 s by default. */
  timeoutMs?: number;
  /** Retries after the first attempt; 3 by default. */
  retries?: number;
  /** Send `dimensions` in the request body (models with a fixed size may refuse it); true by default. */
  sendDimensions?: boolean;
  /** First backoff step; 500 ms by default (then ×2 per retry, full jitter). */
  backoffBaseMs?: number;
  /** Largest backoff step; 8 s by default. */
  backoffMaxMs?: number;
  /** A `Retry-After` longer than this fails at once instead of waiting; 60 s by default. */
  maxRetryAfterMs?: number;
  /** Injected fetch (tests, proxies); `globalThis.fetch` by default. */
  fetch?: typeof globalThis.fetch;
  /** Overrides the adapter id (`openai-compatible:<host>/<model>:<dimensions>`). */
  id?: string;
}

export function createCloudEmbeddingAdapter(options: CloudEmbeddingOptions): EmbeddingAdapter {
  const endpointUrl = resolveEndpoint(options.url);
  const endpoint = `${endpointUrl.origin}${endpointUrl.pathname}`;
  const dimensions = checkDimensions(options.dimensions, `embeddings endpoint ${endpoint}`);
  const model = typeof options.model === 'string' ? options.model.trim() : '';
  if (model === '') {
    throw new EmbeddingError('config', `embeddings endpoint ${endpoint}: a model name is required`, {
      endpoint,
    });
  }
  // None of these defaults is measured against a real endpoint (the bench runs the local adapter).
  // Bigger batches are fewer requests and a longer, larger answer to wait for and lose on a failure.
  const batchSize = positiveInt(options.batchSize ?? 64, 'batchSize', endpoint, 2048);
  // A request's whole answer: longer waits out a slow endpoint, shorter frees the caller sooner.
  const timeoutMs = positiveInt(options.timeoutMs ?? 10_000, 'timeoutMs', endpoint);
  // Four requests at most per batch; waits of up to 0.5, 1 and 2 s (full jitter) between them.
  const retries = nonNegativeInt(options.retries ?? 3, 'retries', endpoint);
  const backoffBaseMs = nonNegativeInt(options.backoffBaseMs ?? 500, 'backoffBaseMs', endpoint);
  const backoffMaxMs = nonNegativeInt(options.backoffMaxMs ?? 8_000, 'backoffMaxMs', endpoint);
  // A server asking for a longer pause is not retried here: the error carries its time to the caller
  // (recall's queue waits it, up to its maxDelayMs).
  const maxRetryAfterMs = nonNegativeInt(options.maxRetryAfterMs ?? 60_000, 'maxRetryAfterMs', endpoint);
  const sendDimensions = options.sendDimensions ?? true;
  const apiKey = options.apiKey ?? '';
  const fetchImpl = options.fetch ?? globalThis.fetch;

  const redact = (s: string): string => {
    let out = s.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
    if (apiKey !== '') out = out.split(apiKey).join('[redacted]');
    return out;
  };
  const fail = (
    code: ConstructorParameters<typeof EmbeddingError>[0],
    detail: string,
    extra: { status?: number; retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ): EmbeddingError =>
    new EmbeddingError(code, redact(`embeddings request to ${endpoint} failed: ${detail}`), {
      endpoint,
      ...extra,
    });

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (apiKey !== '') headers.authorization = `Bearer ${apiKey}`;

  /** One request; throws an `EmbeddingError` (`retryable` when another request may succeed). */
  async function attempt(input: string[]): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { input, model };
    if (sendDimensions) body.dimensions = dimensions;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let status: number;
    let text: string;
    let retryAfterMs: number | undefined;
    try {
      const res = await fetchImpl(endpointUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      status = res.status;
      retryAfterMs = parseRetryAfter(res.headers);
      text = await res.text();
    } catch (cause) {
      if (timedOut) throw fail('timeout', `no complete answer within ${timeoutMs} ms`, { retryable: true });
      const reason = cause instanceof Error ? describeNetworkError(cause) : 'network error';
      throw fail('network', reason, { retryable: true, cause: sanitizeCause(cause) });
    } finally {
      clearTimeout(timer);
    }

    if (status < 200 || status >= 300) {
      const retryable = status === 429 || status === 408 || status >= 500;
      const detail = `HTTP ${status}${errorDetail(text)}`;
      throw fail('http', detail, {
        status,
        retryable,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw fail('bad_response', `HTTP ${status} with a body that is not JSON`, { status });
    }
    return decode(parsed, input.length, status);
  }

  function decode(parsed: unknown, expected: number, status: number): Float32Array[] {
    const data = isRecord(parsed) ? parsed.data : undefined;
    if (!Array.isArray(data)) throw fail('bad_response', `HTTP ${status} without a "data" array`, { status });
    if (data.length !== expected) {
      throw fail('bad_response', `sent ${expected} inputs, got ${data.length} embeddings`, { status });
    }
    const out = new Array<Float32Array | undefined>(expected);
    for (let i = 0; i < data.length; i++) {
      const item: unknown = data[i];
      if (!isRecord(item)) throw fail('bad_response', `data[${i}] is not an object`, { status });
      const index = item.index === undefined ? i : item.index;
      if (
        typeof index !== 'number' ||
        !Number.isInteger(index) ||
        index < 0 ||
        index >= expected ||
        out[index]
      ) {
        throw fail('bad_response', `data[${i}] has a missing, repeated or out-of-range index`, { status });
      }
      const embedding = item.embedding;
      if (!Array.isArray(embedding)) {
        throw fail('bad_response', `data[${i}].embedding is not an array of numbers`, { status });
      }
      if (embedding.length !== dimensions) {
        throw fail(
          'dimension_mismatch',
          `model ${model} returned ${embedding.length}-dimensional vectors, expected ${dimensions}`,
          { status },
        );
      }
      const vector = new Float32Array(dimensions);
      for (let j = 0; j < dimensions; j++) {
        const x: unknown = embedding[j];
        if (typeof x !== 'number' || !Number.isFinite(x)) {
          throw fail('bad_response', `data[${i}].embedding holds a non-finite value`, { status });
        }
        vector[j] = x;
      }
      out[index] = vector;
    }
    return out as Float32Array[];
  }

  /** The server asked for a longer pause than we are willing to wait. */
  const waitsTooLong = (error: EmbeddingError): boolean =>
    error.retryAfterMs !== undefined && error.retryAfterMs > maxRetryAfterMs;

  /** Before retry `retry` (0-based): the server's Retry-After plus a little jitter, or full-jitter backoff. */
  function pause(error: EmbeddingError, retry: number): number {
    const backoff = Math.random() * Math.min(backoffMaxMs, backoffBaseMs * 2 ** retry);
    // After a Retry-After, at most 250 ms of jitter (not measured), so callers told the same time spread out.
    return error.retryAfterMs === undefined ? backoff : error.retryAfterMs + Math.min(backoff, 250);
  }

  async function embedBatch(input: string[]): Promise<Float32Array[]> {
    let attempts = 0;
    try {
      return await pRetry(
        async (attemptNumber) => {
          attempts = attemptNumber;
          try {
            return await attempt(input);
          } catch (error) {
            if (error instanceof EmbeddingError && error.retryable && !waitsTooLong(error)) throw error;
            // Another request would get the same answer (or come later than we wait): stop here.
            throw new AbortError(error as Error);
          }
        },
        {
          retries,
          // The pauses are ours, taken before each retry: p-retry's backoff has no full jitter and
          // does not read Retry-After.
          minTimeout: 0,
          // Only retryable EmbeddingErrors get here: everything else was an AbortError.
          onFailedAttempt: ({ error, retriesLeft, retriesConsumed }) =>
            retriesLeft > 0 ? sleep(pause(error as EmbeddingError, retriesConsumed)) : undefined,
        },
      );
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      const waitFor = error.retryAfterMs;
      const suffix =
        waitFor !== undefined && waitFor > maxRetryAfterMs
          ? ` (server asked to retry after ${Math.ceil(waitFor / 1000)} s)`
          : attempts > 1
            ? ` (after ${attempts} attempts)`
            : '';
      throw new EmbeddingError(error.code, `${error.message}${suffix}`, {
        endpoint,
        retryable: error.retryable,
        attempts,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(waitFor === undefined ? {} : { retryAfterMs: waitFor }),
        ...(error.cause === undefined ? {} : { cause: error.cause }),
      });
    }
  }

  return {
    id: options.id ?? `openai-compatible:${endpointUrl.host}/${model}:${dimensions}`,
    dimensions,
    async embed(texts: string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
        throw new EmbeddingError('config', `embeddings request to ${endpoint}: inputs must be strings`, {
          endpoint,
        });
      }
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        // Empty strings are refused by some providers; a single space embeds as "nothing".
        const batch = texts.slice(i, i + batchSize).map((t) => (t === '' ? ' ' : t));
        out.push(...(await embedBatch(batch)));
      }
      return out;
    },
  };
}

/** `https://h` → `https://h/v1/embeddings`; `…/v1` → `…/v1/embeddings`; `…/embeddings` kept. */
export function resolveEndpoint(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EmbeddingError('config', 'embeddings URL is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new EmbeddingError('config', `embeddings URL must be http(s), got ${parsed.protocol}`);
  }
  let path = parsed.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/embeddings')) {
    if (!path.endsWith('/v1')) path += '/v1';
    path += '/embeddings';
  }
  parsed.pathname = path;
  parsed.hash = '';
  return parsed;
}

function errorDetail(body: string): string {
  let message: unknown;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed)) {
      const err = parsed.error;
      message = isRecord(err) ? err.message : typeof err === 'string' ? err : parsed.message;
    }
  } catch {
    message = undefined;
  }
  if (typeof message !== 'string' || message.trim() === '') return '';
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return `: ${oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine}`;
}

function describeNetworkError(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  const code = isRecord(cause) && typeof cause.code === 'string' ? cause.code : undefined;
  return code === undefined ? `network error (${err.name})` : `network error (${code})`;
}

/** Keep only name/code/message of a network error: a fetch error never carries headers, but be sure. */
function sanitizeCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return undefined;
  const inner = (cause as { cause?: unknown }).cause;
  return {
    name: cause.name,
    code: isRecord(inner) && typeof inner.code === 'string' ? inner.code : undefined,
  };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function positiveInt(x: number, what: string, endpoint: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(x) || x < 1 || x > max) {
    throw new EmbeddingError(
      'config',
      `embeddings endpoint ${endpoint}: ${what} must be an integer from 1 to ${max}`,
      {
        endpoint,
      },
    );
  }
  return x;
}

function nonNegativeInt(x: number, what: string, endpoint: string): number {
  if (!Number.isInteger(x) || x < 0) {
    throw new EmbeddingError(
      'config',
      `embeddings endpoint ${endpoint}: ${what} must be a non-negative integer`,
      {
        endpoint,
      },
    );
  }
  return x;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
