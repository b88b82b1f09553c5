/**
 * Embedding adapters turn text into fixed-dimension vectors for recall (SPEC §5).
 *
 * An adapter is pure with respect to its `id`: the same `id` and the same text always give the
 * same vector, so vectors stored under one `id` can be compared with any later query embedded by
 * an adapter with that `id`. Change the `id` whenever the model, the dimension or the algorithm
 * changes: the recall index treats vectors stored under another `id` as stale.
 */
export interface EmbeddingAdapter {
  /** Stable identity of the embedding space (model, dimension, algorithm version). */
  id: string;
  /** Length of every vector `embed` returns. */
  dimensions: number;
  /** One vector per input text, in input order. Rejects with an `EmbeddingError`. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The largest vector libSQL accepts in an `F32_BLOB(N)` column. */
export const MAX_EMBEDDING_DIMENSIONS = 65_536;

export type EmbeddingErrorCode =
  /** The adapter is misconfigured (missing model, bad URL, bad dimension…). */
  | 'config'
  /** The endpoint answered with an HTTP error status (see `status`). */
  | 'http'
  /** The request did not complete within the per-request timeout. */
  | 'timeout'
  /** The connection failed (DNS, refused, reset…). */
  | 'network'
  /** The endpoint answered 2xx with a body that is not a valid embeddings response. */
  | 'bad_response'
  /** The endpoint returned vectors of another length than configured. */
  | 'dimension_mismatch';

/**
 * Why an embedding failed. Messages name the endpoint (without credentials or query string) and
 * never contain the API key.
 */
export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
  readonly code: EmbeddingErrorCode;
  /** HTTP status when the endpoint answered with one. */
  readonly status: number | undefined;
  /** The endpoint, as safe to log (`origin + path`). */
  readonly endpoint: string | undefined;
  /** Whether trying again later may succeed (429, 5xx, timeouts, network errors). */
  readonly retryable: boolean;
  /** How many requests were made before giving up. */
  readonly attempts: number;
  /** The server's `Retry-After`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: EmbeddingErrorCode,
    message: string,
    options: {
      status?: number;
      endpoint?: string;
      retryable?: boolean;
      attempts?: number;
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.endpoint = options.endpoint;
    this.retryable = options.retryable ?? false;
    this.attempts = options.attempts ?? 0;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function checkDimensions(dimensions: unknown, what: string): number {
  if (
    typeof dimensions !== 'number' ||
    !Number.isInteger(dimensions) ||
    dimensions < 1 ||
    dimensions > MAX_EMBEDDING_DIMENSIONS
  ) {
    throw new EmbeddingError(
      'config',
      `${what}: dimensions must be an integer from 1 to ${MAX_EMBEDDING_DIMENSIONS}, got ${String(dimensions)}`,
    );
  }
  return dimensions;
}
