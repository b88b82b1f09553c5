// The public surface of @oh/embeddings, Oh's embedding adapters: text in, unit vectors out. The
// cloud adapter speaks the OpenAI-compatible embeddings API (batching, retries, Retry-After in one
// place); the local one runs in-process with no network, so recall and search work offline. The
// Retry-After parser has an entry of its own, `@oh/embeddings/retry-after` (./retry-after.ts).
export { EmbeddingError, MAX_EMBEDDING_DIMENSIONS } from './adapter.ts';
export type { EmbeddingAdapter, EmbeddingErrorCode } from './adapter.ts';
export { createLocalEmbeddingAdapter, isStopWord } from './local-adapter.ts';
export type { LocalEmbeddingOptions } from './local-adapter.ts';
export { createCloudEmbeddingAdapter } from './cloud-adapter.ts';
export type { CloudEmbeddingOptions } from './cloud-adapter.ts';
