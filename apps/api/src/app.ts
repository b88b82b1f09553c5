/**
 * Opens everything the API needs, once, in order: the application database and its
 * migrations, reviewed knowledge, the working-memory store, then the demo seed.
 */
import { mkdirSync } from 'node:fs';
import { applyMigrations, createMemoryStore } from '@oh/memory';
import { createReviewedKnowledge } from '@sponge/reviewed';
import type { Logger } from 'pino';
import { createAccountService } from './accounts/accounts.ts';
import { DEFAULT_AUTH_LIMITS, type AuthLimits } from './accounts/limits.ts';
import type { Config } from './config.ts';
import { resolveRuntimeKey, resolveTokenSecret } from './config.ts';
import { createLibrary, prepareDocumentIndex } from '@sponge/library';
import { APP_MIGRATIONS, APP_SCHEMA } from './migrations.ts';
import type { AppDeps } from './deps.ts';
import { seedDemo } from './demo/seed.ts';
import { createLogger } from './log.ts';
import { hashToken } from './tokens.ts';
import { createUploadsInFlight } from './http/upload-places.ts';
import type { UploadPace } from './http/upload-places.ts';
import { openAppDatabase, openEmbeddings } from './stores.ts';

export interface OpenedApp extends AppDeps {
  close(): Promise<void>;
}

export async function openApp(
  config: Config,
  overrides: {
    now?: () => Date;
    log?: Logger;
    authLimits?: AuthLimits;
    /** How a sign-in past an account's limit waits its turn (tests record the waits). */
    authWait?: (ms: number) => Promise<void>;
    /** The least pace of an upload's body, other than the default (tests turn its clock). */
    uploadPace?: UploadPace;
  } = {},
): Promise<OpenedApp> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const now = overrides.now ?? (() => new Date());
  if (config.appDb.url.startsWith('file:') || config.memoryDb.url.startsWith('file:')) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  }
  if (config.tokenSecret === undefined && !config.memoryDb.url.startsWith('file:')) {
    // Several API instances on one remote database must sign explain tokens with one key.
    log.warn(
      'TOKEN_SECRET is not set: using DATA_DIR/token-secret; set TOKEN_SECRET when several API instances share a database',
    );
  }
  const tokenSecret = resolveTokenSecret(config);
  const runtimeKeyHash = hashToken(resolveRuntimeKey(config));
  const embeddings = openEmbeddings(config.embeddings);
  const closers: Array<() => void> = [];
  try {
    const app = await openAppDatabase({ ...config.appDb, thread: config.memoryDbThread });
    closers.push(() => app.close());
    await applyMigrations(app, 'app', APP_MIGRATIONS);
    await prepareDocumentIndex(app, embeddings, APP_SCHEMA, now);
    const library = createLibrary({
      db: app,
      adapter: embeddings,
      log,
      quotas: config.libraryQuotas,
      uploadQueue: config.uploadQueue,
      ocr: config.ocr,
      similarityFloor: config.similarityFloor,
      // Profiles installed on an upload still extracting go with it when it is refused.
      attachedTables: ['document_profiles'],
      now,
    });
    const uploadPlaces = createUploadsInFlight({
      db: app,
      now,
      max: config.uploadsInFlight,
      perOwner: config.uploadsInFlightPerOwner,
      ...(overrides.uploadPace ? { pace: overrides.uploadPace } : {}),
      log,
    });
    // Stopped before the database closes (closers run in reverse), so no batch is cut short.
    closers.push(() => void library.close());
    // Uploads a process that died left extracting died with their requests: their documents go.
    // Another process's live uploads stay (they are judged by their beats, extraction-store.ts).
    const swept = await library.sweepExtractions();
    if (swept > 0) log.info({ documents: swept }, 'deleted uploads a stopped process left extracting');
    // Reviewed knowledge lives in the application database and shares its client: it takes no
    // interactive transactions and keeps no per-connection state, and each change is one batch.
    const reviewed = await createReviewedKnowledge({ client: app, now });
    closers.push(() => reviewed.close());
    const store = await createMemoryStore({
      url: config.memoryDb.url,
      ...(config.memoryDb.authToken !== undefined ? { authToken: config.memoryDb.authToken } : {}),
      tokenSecret,
      thread: config.memoryDbThread,
      synchronous: config.memoryDbSynchronous,
      sessionTtlSeconds: config.sessionTtlSeconds,
      explainTtlSeconds: config.explainTokenTtlSeconds,
      reviewed,
      now,
      // RECALL_MODE=off does nothing at all: no note is embedded or indexed (issue 6). The
      // adapter still serves documents.search, which is the owner's own library search.
      // Background failures go to the API's log (a batch given up at warn, each failed attempt
      // at debug), never with note text, instead of a process warning nobody collects.
      ...(config.recallMode === 'off'
        ? {}
        : {
            recall: {
              adapter: embeddings,
              onBackgroundError: (err, info) =>
                log[info.gaveUp ? 'warn' : 'debug']({ err, ...info }, 'recall indexing failed'),
            },
          }),
    });
    closers.push(() => store.close());
    const accounts = createAccountService({
      app,
      tokenSecret,
      signUp: config.signUp,
      demo: config.demo,
      log,
      now,
      limits: overrides.authLimits ?? { ...DEFAULT_AUTH_LIMITS, signUpsPerAddress: config.signUpsPerAddress },
      ...(overrides.authWait ? { limitWait: overrides.authWait } : {}),
    });
    const deps: AppDeps = {
      config: { ...config, tokenSecret },
      app,
      accounts,
      store,
      reviewed,
      embeddings,
      library,
      uploadPlaces,
      log,
      now,
      runtimeKeyHash,
    };
    if (config.demo) {
      const seeded = await seedDemo(deps);
      if (seeded) {
        log.info({ documents: seeded.documents, runId: seeded.runId }, 'demo data seeded');
      }
    }
    // Documents added but not indexed yet (new ones, or a restart mid-way) are picked up here.
    library.indexer.kick();
    // Scans whose OCR a restart cut short resume at the first page not done.
    library.recognizer.kick();
    let closed = false;
    return {
      ...deps,
      async close() {
        if (closed) return;
        closed = true;
        await library.close();
        for (const c of closers.reverse()) {
          try {
            c();
          } catch (err) {
            log.warn({ err }, 'close failed');
          }
        }
      },
    };
  } catch (err) {
    for (const c of closers.reverse()) {
      try {
        c();
      } catch {
        // already failing; the original error matters
      }
    }
    throw err;
  }
}
