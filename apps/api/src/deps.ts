/**
 * What the routers need, created once at start and injected into every request's context.
 * Tests build one of these against temp files; nothing here is a module-level singleton.
 */
import type { Client } from '@libsql/client';
import type { MemoryStore } from '@oh/memory';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AccountService } from './accounts/accounts.ts';
import type { Library } from '@sponge/library';
import type { UploadsInFlight } from './http/upload-places.ts';
import type { ReviewedKnowledge } from '@sponge/reviewed';

export interface AppDeps {
  config: Config;
  /** The application database (sponge.db): users, documents, runs, transcripts, reviewed knowledge. */
  app: Client;
  /** Working memory; its own database holds agent memory and nothing else. */
  store: MemoryStore;
  reviewed: ReviewedKnowledge;
  /** One embedding adapter for note recall and document search (created from the config once). */
  embeddings: EmbeddingAdapter;
  /** The owners' libraries: adding documents, background indexing and per-owner search. */
  library: Library;
  /** The places of upload bodies being received at once, overall and per owner (server.ts asks them). */
  uploadPlaces: UploadsInFlight;
  /** Real accounts: sign-up, sign-in and sessions through better-auth (SPEC §6c). */
  accounts: AccountService;
  log: Logger;
  now: () => Date;
  /** SHA-256 (hex) of the hosted runtime's key; the key itself is not kept. */
  runtimeKeyHash: string;
}
