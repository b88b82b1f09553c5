/**
 * Configuration, read from the environment once at start and validated with zod (SPEC §10).
 *
 * Every bad value is named in one readable message, so a misconfigured deployment fails at boot
 * with `PORT: expected an integer 0..65535, got "abc"` rather than at the first request.
 *
 * @example
 * const config = loadConfig(process.env); // throws ConfigError listing every bad variable
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_EMBEDDING_DIMENSIONS } from '@oh/embeddings';
import type { CloudEmbeddingOptions, LocalEmbeddingOptions } from '@oh/embeddings';
import { z } from 'zod';
import {
  DEFAULT_LIBRARY_QUOTAS,
  DEFAULT_OCR_LIMITS,
  DEFAULT_UPLOAD_QUEUE,
  parseOcrLanguages,
  resolveOcrLanguages,
} from '@sponge/library/settings';
import type { OcrLanguage } from '@sponge/library/settings';
import { parseProxyEntry } from './http/client-address.ts';
import { DEFAULT_UPLOADS_IN_FLIGHT, DEFAULT_UPLOADS_IN_FLIGHT_PER_OWNER } from './http/limits.ts';
import { isLoopbackHost } from './http/loopback.ts';
import { DEFAULT_AUTH_LIMITS } from './accounts/limits.ts';
import { MCP_BURST, MCP_CALLS_PER_MINUTE } from './http/rate-limit.ts';
import type { RateLimit } from './http/rate-limit.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const FALSE_WORDS = new Set(['0', 'false', 'off', 'no']);
const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** A number min..max, an integer unless `decimal`, or `fallback` when the variable is unset. */
const numberIn = <F extends number | undefined>(min: number, max: number, fallback: F, decimal = false) =>
  optionalString.transform((v, ctx): number | F => {
    if (v === undefined) return fallback;
    const n = (decimal ? /^-?(\d+\.?\d*|\.\d+)$/ : /^-?\d+$/).test(v) ? Number(v) : Number.NaN;
    if (!(decimal ? Number.isFinite(n) : Number.isSafeInteger(n)) || n < min || n > max) {
      const what = decimal ? 'a number' : 'an integer';
      ctx.addIssue({ code: 'custom', message: `expected ${what} ${min}..${max}, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return n;
  });
const intIn = <F extends number | undefined>(min: number, max: number, fallback: F) =>
  numberIn(min, max, fallback);

const bool = <T extends boolean | undefined>(fallback: T) =>
  optionalString.transform((v, ctx): boolean | T => {
    if (v === undefined) return fallback;
    const w = v.toLowerCase();
    if (TRUE_WORDS.has(w)) return true;
    if (FALSE_WORDS.has(w)) return false;
    ctx.addIssue({ code: 'custom', message: `expected 1/true/on or 0/false/off, got ${JSON.stringify(v)}` });
    return z.NEVER;
  });

const dbUrl = optionalString.refine(
  (v) => v === undefined || /^(file:|libsql:|https?:|wss?:|:memory:$)/.test(v),
  'expected a file:, libsql:, http(s): or ws(s): URL',
);

const envSchema = z.object({
  PORT: intIn(0, 65_535, 3000),
  HOST: optionalString.refine(
    (v) => v === undefined || isIP(v) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(v),
    'expected an IP address or a host name to listen on',
  ),
  TRUSTED_PROXIES: optionalString.transform((v, ctx): string[] => {
    if (v === undefined) return [];
    const entries = v.split(',').map((e) => e.trim());
    const bad = entries.filter((e) => parseProxyEntry(e) === null);
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `expected the comma-separated IP addresses (or CIDR ranges) of the proxies in front, got ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
      });
      return z.NEVER;
    }
    return entries;
  }),
  PUBLIC_URL: optionalString.transform((v, ctx) => {
    if (v === undefined) return null;
    const url = URL.canParse(v) ? new URL(v) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') {
      ctx.addIssue({
        code: 'custom',
        message: `expected the http(s) origin browsers use, got ${JSON.stringify(v)}`,
      });
      return z.NEVER;
    }
    return url.origin;
  }),
  DATA_DIR: optionalString,
  DEMO: bool(undefined),
  SIGNUP: z.enum(['open', 'closed'], { error: "expected 'open' or 'closed'" }).optional(),
  SESSION_TTL_SECONDS: intIn(1, 365 * 86_400, 86_400),
  EXPLAIN_TOKEN_TTL_SECONDS: intIn(1, 600, 600),
  TOKEN_SECRET: optionalString.refine(
    (v) => v === undefined || v.length >= 32,
    'must be at least 32 characters',
  ),
  // Not measured: how late an expired session's content may go, against passes that find nothing.
  PURGE_INTERVAL_SECONDS: intIn(1, 86_400, 60),
  PURGE_KEY: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    'must be at least 16 characters',
  ),
  RUNTIME_KEY: optionalString.refine(
    (v) => v === undefined || v.length >= 16,
    'must be at least 16 characters',
  ),
  // Not measured: how long a run stays taken by a runtime that stopped, against how often a
  // working runtime must renew it.
  RUNTIME_LEASE_SECONDS: intIn(1, 3_600, 60),
  RECALL_MODE: optionalString.pipe(
    z.enum(['shadow', 'live', 'off'], 'expected shadow, live or off').default('shadow'),
  ),
  EMBEDDINGS_URL: optionalString.refine(
    (v) => v === undefined || (/^https?:\/\/[^\s]+$/.test(v) && URL.canParse(v)),
    'expected an http(s) URL of an OpenAI-compatible endpoint',
  ),
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: intIn(1, MAX_EMBEDDING_DIMENSIONS, undefined),
  // Unset: the cloud adapter's own defaults (64 inputs, 10 s, 3 retries, dimensions sent).
  EMBEDDINGS_BATCH_SIZE: intIn(1, 2048, undefined),
  EMBEDDINGS_TIMEOUT_MS: intIn(1, 600_000, undefined),
  EMBEDDINGS_RETRIES: intIn(0, 20, undefined),
  EMBEDDINGS_SEND_DIMENSIONS: bool(undefined),
  EMBEDDINGS_SIMILARITY_FLOOR: numberIn(0, 1, undefined, true),
  ACCEPT_RUNS_UNTIL: optionalString.transform((v, ctx) => {
    if (v === undefined) return null;
    // Date-only values mean "through the end of that day" would be surprising either way; we
    // take them as midnight UTC, which is what Date.parse does with an ISO date.
    const ok = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v);
    const t = ok ? Date.parse(v) : Number.NaN;
    if (Number.isNaN(t)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected an ISO date or date-time, got ${JSON.stringify(v)}`,
      });
      return z.NEVER;
    }
    return new Date(t);
  }),
  MEMORY_DB_THREAD: optionalString.pipe(
    z.enum(['worker', 'main'], 'expected worker or main').default('worker'),
  ),
  MEMORY_DB_SYNCHRONOUS: optionalString.pipe(
    z.enum(['FULL', 'NORMAL'], 'expected FULL or NORMAL').default('FULL'),
  ),
  MEMORY_DATABASE_URL: dbUrl,
  MEMORY_DATABASE_AUTH_TOKEN: optionalString,
  APP_DATABASE_URL: dbUrl,
  APP_DATABASE_AUTH_TOKEN: optionalString,
  UPLOAD_QUEUE_SIZE: intIn(0, 1_000, DEFAULT_UPLOAD_QUEUE.maxWaiting),
  UPLOAD_QUEUE_WAIT_SECONDS: intIn(1, 3_600, DEFAULT_UPLOAD_QUEUE.maxWaitSeconds),
  UPLOAD_READ_SECONDS: intIn(1, 3_600, DEFAULT_UPLOAD_QUEUE.readSeconds),
  UPLOADS_IN_FLIGHT: intIn(1, 1_000, DEFAULT_UPLOADS_IN_FLIGHT),
  UPLOADS_IN_FLIGHT_PER_OWNER: intIn(1, 1_000, DEFAULT_UPLOADS_IN_FLIGHT_PER_OWNER),
  MCP_CALLS_PER_MINUTE: intIn(1, 10_000_000, MCP_CALLS_PER_MINUTE),
  SIGNUPS_PER_ADDRESS: intIn(1, 100_000, DEFAULT_AUTH_LIMITS.signUpsPerAddress),
  LIBRARY_MAX_DOCUMENTS: intIn(1, 1e9, DEFAULT_LIBRARY_QUOTAS.documents),
  LIBRARY_MAX_CHARACTERS: intIn(1, 1e15, DEFAULT_LIBRARY_QUOTAS.characters),
  LIBRARY_MAX_CHUNKS: intIn(1, 1e9, DEFAULT_LIBRARY_QUOTAS.chunks),
  OCR_LANGUAGES: optionalString,
  OCR_MAX_PAGES: intIn(1, 100_000, DEFAULT_OCR_LIMITS.maxPages),
  OCR_PAGE_SECONDS: intIn(1, 3_600, DEFAULT_OCR_LIMITS.pageSeconds),
  WEB_DIST: optionalString,
  LOG_LEVEL: optionalString.pipe(
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'expected a pino level or silent')
      .default('info'),
  ),
});

export interface Config {
  port: number;
  /** The address the server listens on (HOST, default 127.0.0.1: this machine only). */
  host: string;
  /** PUBLIC_URL's origin (`https://sponge.example`): what browsers' Origin must be behind a proxy; null when unset. */
  publicUrl: string | null;
  /**
   * TRUSTED_PROXIES: the proxies in front (addresses or CIDR ranges) whose X-Forwarded-For names
   * the client (http/client-address.ts); empty: the socket's peer is the client.
   */
  trustedProxies: string[];
  dataDir: string;
  demo: boolean;
  /** Who may sign up (SPEC §6c): anyone, or only accounts the `users` command makes. */
  signUp: 'open' | 'closed';
  sessionTtlSeconds: number;
  explainTokenTtlSeconds: number;
  /** `undefined` until {@link resolveTokenSecret} ran (the API does it at start). */
  tokenSecret: string | undefined;
  purgeIntervalSeconds: number;
  /** Only the purge worker reads this; the API never needs the purge key (SPEC §8). */
  purgeKey: string | undefined;
  /** The hosted runtime's credential (SPEC §7b): `runtime.*` answers it and nothing else. */
  runtimeKey: string | undefined;
  /** How long a runtime.claim holds its run unless renewed (SPEC §7b). */
  runtimeLeaseSeconds: number;
  recallMode: 'shadow' | 'live' | 'off';
  /** The one embedding adapter (stores.ts `openEmbeddings`): local feature hashing unless EMBEDDINGS_URL is set. */
  embeddings: EmbeddingsConfig;
  /** From which similarity search finds a passage by meaning alone, for a model without a measured floor. */
  similarityFloor: number | undefined;
  acceptRunsUntil: Date | null;
  memoryDb: { url: string; authToken: string | undefined };
  /**
   * Where the embedded memory and application databases' SQLite calls run: each on a thread of
   * its own (default: under load their commits, and waits for another process's lock, never block
   * HTTP; a call that finds the thread idle runs on the event loop) or all on the event loop.
   */
  memoryDbThread: 'worker' | 'main';
  /** An embedded memory database's `synchronous`: FULL (an acknowledged change survives a power
   * loss) unless set to NORMAL (it survives a crash of the process, not of the machine). */
  memoryDbSynchronous: 'FULL' | 'NORMAL';
  appDb: { url: string; authToken: string | undefined };
  /** PDF extractions waiting at once (all owners), how long one may wait and be read (SPEC §6b). */
  uploadQueue: { maxWaiting: number; maxWaitSeconds: number; readSeconds: number };
  /** Upload bodies received at once, by every API process together; past it, 429 `busy`. */
  uploadsInFlight: number;
  /** Of those, one owner's at most (UPLOADS_IN_FLIGHT_PER_OWNER). */
  uploadsInFlightPerOwner: number;
  /** Sign-up attempts per client address in 15 minutes (a training room behind one address wants more). */
  signUpsPerAddress: number;
  /** Calls to /mcp per API key (SPEC §7d): a burst, then one every `refillSeconds`; past it, 429. */
  mcpRateLimit: RateLimit;
  /** What one owner's library may hold; past it, 429 `quota`. */
  libraryQuotas: { documents: number; characters: number; chunks: number };
  /** OCR of scanned pages: installed languages (`@tesseract.js-data/<code>`) and its limits. */
  ocr: { languages: OcrLanguage[]; maxPages: number; pageSeconds: number };
  webDist: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** Options for @oh/memory's adapter factories, already validated. */
export type EmbeddingsConfig =
  { kind: 'local'; options: LocalEmbeddingOptions } | { kind: 'cloud'; options: CloudEmbeddingOptions };

/** Every variable the API and the purge worker read (the README's configuration table lists them). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

const here = dirname(fileURLToPath(import.meta.url));
/** apps/web/dist, resolved from this file (apps/api/src) rather than the working directory. */
export const DEFAULT_WEB_DIST = resolve(here, '../../web/dist');

/** Parses and validates the environment. Pure apart from resolving paths against `cwd`. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? 'environment');
      return `${key}: ${i.message}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const dataDir = resolve(cwd, e.DATA_DIR ?? './data');
  const problems: string[] = [];
  // The cloud adapter serves document search in every RECALL_MODE, so these hold in every mode.
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined) {
    problems.push('EMBEDDINGS_MODEL: required when EMBEDDINGS_URL is set');
  }
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_DIMENSIONS === undefined) {
    // Stored vectors are sized by it, so it cannot be learnt from the first answer.
    problems.push('EMBEDDINGS_DIMENSIONS: required when EMBEDDINGS_URL is set');
  }
  if (
    e.MEMORY_DATABASE_URL !== undefined &&
    e.APP_DATABASE_URL !== undefined &&
    e.MEMORY_DATABASE_URL === e.APP_DATABASE_URL
  ) {
    // Working notes live in a database that holds agent memory and nothing else (SPEC §1).
    problems.push(
      'MEMORY_DATABASE_URL: must differ from APP_DATABASE_URL (agent memory lives in its own database)',
    );
  }
  // Traineddata comes from installed packages only: a missing one is an error now, not a download.
  const ocrLanguages = resolveOcrLanguages(parseOcrLanguages(e.OCR_LANGUAGES));
  if (!ocrLanguages.ok) for (const p of ocrLanguages.problems) problems.push(`OCR_LANGUAGES: ${p}`);
  if (problems.length > 0 || !ocrLanguages.ok) throw new ConfigError(problems);
  const host = e.HOST ?? '127.0.0.1';
  return {
    port: e.PORT,
    host,
    publicUrl: e.PUBLIC_URL,
    trustedProxies: e.TRUSTED_PROXIES,
    dataDir,
    // On by default only for the embedded setup on a loopback HOST: password-less demo sign-in
    // must not reach the network, nor a shared remote app database, unless DEMO=1 asks for it
    // (main.ts warns then).
    demo: e.DEMO ?? (isLoopbackHost(host) && e.APP_DATABASE_URL === undefined),
    // Open on the embedded setup (one person's machine); with a remote app database, a shared
    // deployment, accounts are made by the `users` command unless SIGNUP=open says otherwise.
    signUp: e.SIGNUP ?? (e.APP_DATABASE_URL === undefined ? 'open' : 'closed'),
    sessionTtlSeconds: e.SESSION_TTL_SECONDS,
    explainTokenTtlSeconds: e.EXPLAIN_TOKEN_TTL_SECONDS,
    tokenSecret: e.TOKEN_SECRET,
    purgeIntervalSeconds: e.PURGE_INTERVAL_SECONDS,
    purgeKey: e.PURGE_KEY,
    runtimeKey: e.RUNTIME_KEY,
    runtimeLeaseSeconds: e.RUNTIME_LEASE_SECONDS,
    recallMode: e.RECALL_MODE,
    embeddings: embeddingsConfig(e),
    similarityFloor: e.EMBEDDINGS_SIMILARITY_FLOOR,
    acceptRunsUntil: e.ACCEPT_RUNS_UNTIL,
    memoryDb: {
      url: e.MEMORY_DATABASE_URL ?? `file:${join(dataDir, 'memory.db')}`,
      authToken: e.MEMORY_DATABASE_AUTH_TOKEN,
    },
    memoryDbThread: e.MEMORY_DB_THREAD,
    memoryDbSynchronous: e.MEMORY_DB_SYNCHRONOUS,
    appDb: {
      url: e.APP_DATABASE_URL ?? `file:${join(dataDir, 'sponge.db')}`,
      authToken: e.APP_DATABASE_AUTH_TOKEN,
    },
    uploadQueue: {
      maxWaiting: e.UPLOAD_QUEUE_SIZE,
      maxWaitSeconds: e.UPLOAD_QUEUE_WAIT_SECONDS,
      readSeconds: e.UPLOAD_READ_SECONDS,
    },
    uploadsInFlight: e.UPLOADS_IN_FLIGHT,
    uploadsInFlightPerOwner: e.UPLOADS_IN_FLIGHT_PER_OWNER,
    signUpsPerAddress: e.SIGNUPS_PER_ADDRESS,
    mcpRateLimit: { burst: MCP_BURST, refillSeconds: 60 / e.MCP_CALLS_PER_MINUTE },
    libraryQuotas: {
      documents: e.LIBRARY_MAX_DOCUMENTS,
      characters: e.LIBRARY_MAX_CHARACTERS,
      chunks: e.LIBRARY_MAX_CHUNKS,
    },
    ocr: { languages: ocrLanguages.languages, maxPages: e.OCR_MAX_PAGES, pageSeconds: e.OCR_PAGE_SECONDS },
    webDist: e.WEB_DIST !== undefined ? resolve(cwd, e.WEB_DIST) : DEFAULT_WEB_DIST,
    logLevel: e.LOG_LEVEL,
  };
}

function embeddingsConfig(e: z.output<typeof envSchema>): EmbeddingsConfig {
  if (e.EMBEDDINGS_URL === undefined) {
    return {
      kind: 'local',
      options: e.EMBEDDINGS_DIMENSIONS === undefined ? {} : { dimensions: e.EMBEDDINGS_DIMENSIONS },
    };
  }
  const options: CloudEmbeddingOptions = {
    url: e.EMBEDDINGS_URL,
    // Both checked in loadConfig before this runs.
    model: e.EMBEDDINGS_MODEL!,
    dimensions: e.EMBEDDINGS_DIMENSIONS!,
  };
  if (e.EMBEDDINGS_API_KEY !== undefined) options.apiKey = e.EMBEDDINGS_API_KEY;
  if (e.EMBEDDINGS_BATCH_SIZE !== undefined) options.batchSize = e.EMBEDDINGS_BATCH_SIZE;
  if (e.EMBEDDINGS_TIMEOUT_MS !== undefined) options.timeoutMs = e.EMBEDDINGS_TIMEOUT_MS;
  if (e.EMBEDDINGS_RETRIES !== undefined) options.retries = e.EMBEDDINGS_RETRIES;
  if (e.EMBEDDINGS_SEND_DIMENSIONS !== undefined) options.sendDimensions = e.EMBEDDINGS_SEND_DIMENSIONS;
  return { kind: 'cloud', options };
}

/**
 * A secret that is generated once into DATA_DIR with owner-only permissions when it is not
 * configured. Two API processes sharing DATA_DIR read the same file; the `wx` flag makes the
 * first writer win if they race at first start.
 */
function readOrCreateSecret(dataDir: string, fileName: string): string {
  const path = join(dataDir, fileName);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(path)) {
    try {
      writeFileSync(path, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  // Tighten permissions even when the file was created by hand.
  chmodSync(path, 0o600);
  const value = readFileSync(path, 'utf8').trim();
  if (value.length < 32) throw new ConfigError([`${path}: the stored secret is shorter than 32 characters`]);
  return value;
}

/** TOKEN_SECRET, or the one generated into DATA_DIR/token-secret. */
export function resolveTokenSecret(config: Config): string {
  return config.tokenSecret ?? readOrCreateSecret(config.dataDir, 'token-secret');
}

/**
 * RUNTIME_KEY, or the one generated into DATA_DIR/runtime.key: the API and the hosted runtime
 * read the same value.
 */
export function resolveRuntimeKey(config: Config): string {
  return config.runtimeKey ?? readOrCreateSecret(config.dataDir, 'runtime.key');
}

/** PURGE_KEY, or the one generated into DATA_DIR/purge.key (purge worker only). */
export function resolvePurgeKey(config: Config): string {
  return config.purgeKey ?? readOrCreateSecret(config.dataDir, 'purge.key');
}
