import { EmbeddingError } from './adapter.ts';
import type { EmbeddingAdapter } from './adapter.ts';
import { createCloudEmbeddingAdapter } from './cloud-adapter.ts';
import type { CloudEmbeddingOptions } from './cloud-adapter.ts';
import { createLocalEmbeddingAdapter } from './local-adapter.ts';

export type EmbeddingEnv = Record<string, string | undefined>;

/**
 * The adapter the environment asks for:
 *   - `EMBEDDINGS_URL` set → the OpenAI-compatible cloud adapter, with `EMBEDDINGS_MODEL`
 *     (required), `EMBEDDINGS_DIMENSIONS` (required: the vector column is sized by it),
 *     `EMBEDDINGS_API_KEY` (optional for local servers), and optionally `EMBEDDINGS_BATCH_SIZE`,
 *     `EMBEDDINGS_TIMEOUT_MS`, `EMBEDDINGS_RETRIES`, `EMBEDDINGS_SEND_DIMENSIONS=false`;
 *   - otherwise the local feature-hashing adapter (`EMBEDDINGS_DIMENSIONS`, 256 by default).
 * Misconfiguration throws an `EmbeddingError` with code `config` naming the variable.
 */
export function createEmbeddingAdapterFromEnv(
  env: EmbeddingEnv = process.env,
  overrides: Pick<CloudEmbeddingOptions, 'fetch'> = {},
): EmbeddingAdapter {
  const url = env.EMBEDDINGS_URL?.trim();
  const dims = optionalInt(env, 'EMBEDDINGS_DIMENSIONS');
  if (url === undefined || url === '') {
    return createLocalEmbeddingAdapter(dims === undefined ? {} : { dimensions: dims });
  }
  const model = env.EMBEDDINGS_MODEL?.trim();
  if (model === undefined || model === '') {
    throw new EmbeddingError('config', 'EMBEDDINGS_MODEL is required when EMBEDDINGS_URL is set');
  }
  if (dims === undefined) {
    throw new EmbeddingError('config', 'EMBEDDINGS_DIMENSIONS is required when EMBEDDINGS_URL is set');
  }
  const batchSize = optionalInt(env, 'EMBEDDINGS_BATCH_SIZE');
  const timeoutMs = optionalInt(env, 'EMBEDDINGS_TIMEOUT_MS');
  const retries = optionalInt(env, 'EMBEDDINGS_RETRIES');
  const send = env.EMBEDDINGS_SEND_DIMENSIONS?.trim().toLowerCase();
  const apiKey = env.EMBEDDINGS_API_KEY?.trim();
  return createCloudEmbeddingAdapter({
    url,
    model,
    dimensions: dims,
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    ...(batchSize === undefined ? {} : { batchSize }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retries === undefined ? {} : { retries }),
    ...(send === 'false' || send === '0' || send === 'no' ? { sendDimensions: false } : {}),
    ...overrides,
  });
}

export const RECALL_MODES = ['shadow', 'live', 'off'] as const;
export type RecallMode = (typeof RECALL_MODES)[number];

/** `RECALL_MODE`: `shadow` (the default, also for an empty value), `live` or `off`; else a config error. */
export function recallModeFromEnv(env: EmbeddingEnv = process.env): RecallMode {
  const raw = env.RECALL_MODE?.trim().toLowerCase();
  if (raw === undefined || raw === '') return 'shadow';
  if ((RECALL_MODES as readonly string[]).includes(raw)) return raw as RecallMode;
  throw new EmbeddingError('config', `RECALL_MODE must be one of ${RECALL_MODES.join(', ')}, got "${raw}"`);
}

function optionalInt(env: EmbeddingEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new EmbeddingError('config', `${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}
