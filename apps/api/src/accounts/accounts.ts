/**
 * Real accounts (SPEC §6c): email and password through better-auth, on the application database.
 *
 * better-auth runs inside the API only. Its HTTP routes are not mounted: sign-up, sign-in and
 * sign-out are tRPC procedures (routers/auth.ts) that call `auth.api.*` on the server, so every
 * way in goes through the same-origin rule, the API's errors and limits, and nothing else of the
 * library's surface (password change, account deletion, session lists…) is reachable until it is
 * deliberately offered.
 *
 * What the library does: the tables' reads and writes (through the API's own libSQL client,
 * ./libsql-dialect.ts), password hashing (scrypt, memory-hard), the equal answer and equal work
 * for an unknown email and a wrong password, sessions and their signed cookie. What the API adds:
 * session tokens shaped like its other tokens (`ut_…`, so a bearer token's kind is known from
 * its prefix), disabled accounts, demo sign-in, and the failed-attempt limits (./limits.ts).
 */
import { createHmac } from 'node:crypto';
import type { Client } from '@libsql/client';
import { betterAuth, type BetterAuthOptions, type BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthEndpoint } from 'better-auth/api';
import { setSessionCookie } from 'better-auth/cookies';
import type { Logger } from 'pino';
import { z } from 'zod';
import { PASSWORD_RULES } from '@sponge/contract';
import { ApiError, forbidden, invalidInput, notFound, unauthenticated } from '../errors.ts';
import { createAuthLimiter, Limited, LOGIN_RATE_LIMIT, SlowedDown, type AuthLimits } from './limits.ts';
import { newId, newToken } from '../tokens.ts';
import { AppDatabaseDialect } from './libsql-dialect.ts';
import { listDemoUsers } from './users.ts';
import { addressKey } from '../http/client-address.ts';
import { SESSION_COOKIE } from '../http/credential.ts';
import { SharedRateLimiter } from '../http/rate-limit.ts';

/** Sessions last 30 days and slide: one used after a day is extended (SPEC §6c). */
export const SESSION_TTL_SECONDS = 30 * 86_400;
const SESSION_UPDATE_AGE_SECONDS = 86_400;

/** The reason the session hook gives when a disabled account's password was right. */
const ACCOUNT_DISABLED = 'ACCOUNT_DISABLED';

export interface AccountsOptions {
  app: Client;
  /** TOKEN_SECRET (or DATA_DIR/token-secret): the cookie-signing key is derived from it. */
  tokenSecret: string;
  signUp: 'open' | 'closed';
  log: Logger;
  /** The API's clock (tests move it); better-auth itself stamps rows with the real time. */
  now?: () => Date;
}

function demoPlugin() {
  return {
    id: 'sponge-demo',
    endpoints: {
      /**
       * Demo sign-in (DEMO on only; the account service's `demoSignIn` checks that and that the
       * id is a demo owner's): a real session for the demo account, with the library's signed
       * cookie.
       */
      demoSignIn: createAuthEndpoint(
        '/sponge/demo-sign-in',
        { method: 'POST', body: z.object({ userId: z.string() }), metadata: { SERVER_ONLY: true } },
        async (ctx) => {
          const user = await ctx.context.internalAdapter.findUserById(ctx.body.userId);
          if (!user) throw new APIError('NOT_FOUND', { message: 'no such demo user' });
          const session = await ctx.context.internalAdapter.createSession(user.id);
          if (!session) throw new APIError('FORBIDDEN', { message: 'no session' });
          await setSessionCookie(ctx, { session, user });
          return ctx.json({ token: session.token });
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}

/**
 * The library's configuration. Also the base of the MCP clients' OAuth authorization server
 * (mcp/oauth.ts), which adds its plugin to it: the same tables, secret and session cookie.
 */
export function accountsOptions(opts: AccountsOptions) {
  const { app, log } = opts;
  const now = opts.now ?? (() => new Date());
  // Its own key, derived from TOKEN_SECRET (which several API instances already share), so a
  // cookie signature and an explain token never share a key.
  const secret = createHmac('sha256', opts.tokenSecret)
    .update('sponge/better-auth/cookies')
    .digest('base64url');
  const date = (field: string) => field;
  return {
    appName: 'Sponge',
    secret,
    // Only for URLs the library would build (mail links, redirects), and Sponge never asks for one.
    baseURL: 'http://sponge.invalid',
    telemetry: { enabled: false },
    logger: {
      level: 'warn',
      log: (level, message, ...args) => {
        // "User not found" and friends are expected on every failed sign-in: debug, never warn.
        const pinoLevel = level === 'error' ? 'error' : 'debug';
        log[pinoLevel]({ args: args.length > 0 ? args : undefined }, `better-auth: ${message}`);
      },
    },
    database: { dialect: new AppDatabaseDialect(app), type: 'sqlite', transaction: false },
    // The API rate-limits failed sign-ins per address and per account itself (./limits.ts); the
    // library's limiter guards its HTTP routes, which are not mounted.
    rateLimit: { enabled: false },
    emailAndPassword: {
      enabled: true,
      disableSignUp: opts.signUp === 'closed',
      minPasswordLength: PASSWORD_RULES.minLength,
      maxPasswordLength: PASSWORD_RULES.maxLength,
      autoSignIn: true,
    },
    user: {
      modelName: 'users',
      fields: {
        emailVerified: 'email_verified',
        createdAt: date('created_at'),
        updatedAt: date('updated_at'),
      },
      additionalFields: {
        disabledAt: { type: 'date', required: false, input: false, fieldName: 'disabled_at' },
        isDemo: { type: 'boolean', required: false, input: false, defaultValue: false, fieldName: 'is_demo' },
      },
    },
    session: {
      modelName: 'auth_sessions',
      expiresIn: SESSION_TTL_SECONDS,
      updateAge: SESSION_UPDATE_AGE_SECONDS,
      fields: {
        userId: 'user_id',
        expiresAt: 'expires_at',
        ipAddress: 'ip_address',
        userAgent: 'user_agent',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
    },
    account: {
      modelName: 'auth_accounts',
      fields: {
        accountId: 'account_id',
        providerId: 'provider_id',
        userId: 'user_id',
        accessToken: 'access_token',
        refreshToken: 'refresh_token',
        idToken: 'id_token',
        accessTokenExpiresAt: 'access_token_expires_at',
        refreshTokenExpiresAt: 'refresh_token_expires_at',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
    },
    verification: {
      modelName: 'auth_verifications',
      fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
    },
    advanced: {
      cookies: { session_token: { name: SESSION_COOKIE } },
      // Secure is set per request by the API (TLS on the socket or X-Forwarded-Proto: https),
      // which one static choice here could not do; it also keeps the cookie's name fixed.
      useSecureCookies: false,
      // Both checks are the API's: every cookie-authenticated POST passes its same-origin rule
      // (http/same-origin.ts) before any procedure runs, stricter than the library's.
      disableCSRFCheck: true,
      disableOriginCheck: true,
      database: {
        generateId: ({ model }) => newId(model === 'users' || model === 'user' ? 'user' : model.slice(0, 8)),
      },
    },
    // No hook on a new account: shares by email wait for the owner's confirmation or an
    // invitation link (@sponge/library's sharing), since anyone may sign up with any address
    // (SPEC §6c).
    databaseHooks: {
      session: {
        create: {
          before: async (session) => {
            // Checked here, after the password: a disabled account says so only to someone who
            // knows its password, and no path (sign-in, sign-up, demo) makes it a session.
            const [, rs] = await app.batch(
              [
                // Each sign-in adds a row; expired ones nobody signs out of go here (of anyone).
                { sql: 'DELETE FROM auth_sessions WHERE expires_at <= ?', args: [now().toISOString()] },
                { sql: 'SELECT disabled_at FROM users WHERE id = ?', args: [session.userId] },
              ],
              'write',
            );
            if (rs?.rows[0]?.disabled_at != null) {
              throw new APIError('FORBIDDEN', {
                code: ACCOUNT_DISABLED,
                message: 'This account is disabled.',
              });
            }
            // A user token like the API's others: the prefix says which table a bearer token
            // belongs to (trpc/context.ts), and it is 32 random bytes.
            // Its times by the API's clock, which judges expiry (trpc/context.ts) and deletes expired
            // sessions above: the library's own clock is the real one, which tests cannot move.
            const at = now();
            return {
              data: {
                ...session,
                token: newToken('user'),
                createdAt: at,
                updatedAt: at,
                expiresAt: new Date(at.getTime() + SESSION_TTL_SECONDS * 1000),
              },
            };
          },
        },
      },
    },
    plugins: [demoPlugin()],
  } satisfies BetterAuthOptions;
}

export function createAccounts(opts: AccountsOptions) {
  return betterAuth(accountsOptions(opts));
}

export interface SignedIn {
  user: { id: string; name: string; email: string | null };
  /** Set-Cookie headers the library made: the signed session cookie. */
  cookies: string[];
}

function retryIn(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return seconds < 90 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minutes`;
}

function limited(what: string, e: Limited): ApiError {
  return new ApiError({
    code: 'TOO_MANY_REQUESTS',
    reason: 'rate_limited',
    message: `${what}; try again in ${retryIn(e.retryAfterSeconds)}.`,
    retryAfterSeconds: e.retryAfterSeconds,
  });
}

/** The library's error code, when it is one of its errors. */
function codeOf(e: unknown): string | undefined {
  if (!(e instanceof APIError)) return undefined;
  const body = e.body as { code?: unknown } | undefined;
  return typeof body?.code === 'string' ? body.code : undefined;
}

const WRONG_CREDENTIALS = 'Wrong email or password.';

/**
 * Accounts as the API uses them: better-auth (above) with the limits, the API's errors and the
 * shapes the procedures return. One per running API (AppDeps.accounts).
 */
export function createAccountService(
  opts: AccountsOptions & {
    /** DEMO: whether the demo owners may sign in without a password. */
    demo?: boolean;
    limits?: AuthLimits;
    /** How a sign-in past an account's limit waits its turn (tests record it instead). */
    limitWait?: (ms: number) => Promise<void>;
  },
) {
  const auth = createAccounts(opts);
  const now = opts.now ?? (() => new Date());
  const limiter = createAuthLimiter({
    db: opts.app,
    now,
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.limitWait ? { wait: opts.limitWait } : {}),
  });
  // Its counts are the database's, shared by every API on it.
  const demoLimiter = new SharedRateLimiter(opts.app, 'demo-login', LOGIN_RATE_LIMIT);
  const account = (u: { id: string; name: string; email?: string | null }) => ({
    id: u.id,
    name: u.name,
    email: u.email ?? null,
  });

  return {
    auth,
    signUpMode: opts.signUp,

    /**
     * The session a signed cookie holds, when its signature and session are good and its account
     * is not disabled (the library reads session and user in one go; nothing is looked up twice).
     */
    async sessionFromCookie(
      raw: string,
      setCookie: (cookie: string) => void,
    ): Promise<{ token: string; user: { id: string; name: string } } | null> {
      const { headers, response } = await auth.api.getSession({
        headers: new Headers({ cookie: `${SESSION_COOKIE}=${raw}` }),
        query: { disableCookieCache: true },
        returnHeaders: true,
      });
      for (const c of headers.getSetCookie()) setCookie(c);
      if (!response || response.user.disabledAt != null) return null;
      return { token: response.session.token, user: { id: response.user.id, name: response.user.name } };
    },

    async signUp(
      input: { name: string; email: string; password: string },
      address: string,
    ): Promise<SignedIn> {
      if (opts.signUp === 'closed') {
        throw forbidden('Sign-up is closed on this server: ask its operator for an account.');
      }
      try {
        await limiter.signUp(address);
      } catch (e) {
        if (e instanceof Limited) throw limited('Too many sign-ups from this address', e);
        throw e;
      }
      try {
        const { headers, response } = await auth.api.signUpEmail({ body: input, returnHeaders: true });
        return { user: account(response.user), cookies: headers.getSetCookie() };
      } catch (e) {
        const code = codeOf(e);
        if (code === 'USER_ALREADY_EXISTS' || code === 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL') {
          // Sign-up cannot hide this without a mail step (SPEC §6c has none); it is limited above.
          throw new ApiError({
            code: 'CONFLICT',
            reason: 'email_taken',
            message: 'An account with this email already exists: sign in instead.',
          });
        }
        if (e instanceof APIError && (e.status === 'BAD_REQUEST' || e.status === 'UNPROCESSABLE_ENTITY'))
          throw invalidInput(e.message);
        throw e;
      }
    },

    async signIn(input: { email: string; password: string }, address: string): Promise<SignedIn> {
      try {
        return await limiter.signIn(input.email, address, async () => {
          const { headers, response } = await auth.api.signInEmail({ body: input, returnHeaders: true });
          return { user: account(response.user), cookies: headers.getSetCookie() };
        });
      } catch (caught) {
        if (caught instanceof Limited) throw limited('Too many failed sign-ins', caught);
        // Past the account's limit: the attempt waited its turn, then failed as any does.
        const slowed = caught instanceof SlowedDown ? caught : null;
        const e = slowed ? slowed.failure : caught;
        if (codeOf(e) === ACCOUNT_DISABLED) throw forbidden('This account is disabled.');
        if (slowed && e instanceof APIError && e.status === 'UNAUTHORIZED')
          throw unauthenticated(
            `${WRONG_CREDENTIALS} After many failed sign-ins each attempt waits its turn (this one ${retryIn(slowed.waitedSeconds)}).`,
          );
        // Unknown email, no password, wrong password: one answer, after the same work (the
        // library hashes the password it was given when there is nothing to compare it with).
        // Anything else (a database that cannot answer) is not a wrong password.
        if (e instanceof APIError && e.status === 'UNAUTHORIZED') throw unauthenticated(WRONG_CREDENTIALS);
        if (e instanceof APIError && e.status === 'BAD_REQUEST') throw invalidInput(e.message);
        throw e;
      }
    },

    /**
     * A session for a demo owner: only with DEMO on, only as one of the demo owners, and at most
     * LOGIN_RATE_LIMIT's sign-ins per client address.
     */
    async demoSignIn(userId: string, address: string): Promise<{ token: string; cookies: string[] }> {
      if (!opts.demo) throw forbidden('Demo sign-in is off on this server (DEMO=0).');
      const wait = await demoLimiter.take(addressKey(address), now().getTime());
      if (wait > 0) {
        throw new ApiError({
          code: 'TOO_MANY_REQUESTS',
          reason: 'busy',
          message: `Too many sign-ins from this address; try again in ${wait} second${wait === 1 ? '' : 's'}.`,
          retryAfterSeconds: wait,
        });
      }
      const demo = await listDemoUsers(opts.app);
      if (!demo.some((u) => u.id === userId)) throw notFound('The demo user');
      // A demo owner is an ordinary account without a password: this makes it a real session.
      const { headers, response } = await auth.api.demoSignIn({ body: { userId }, returnHeaders: true });
      return { token: response.token, cookies: headers.getSetCookie() };
    },

    /** The cookie that clears the session cookie in the browser. */
    clearedCookie(): string {
      return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
