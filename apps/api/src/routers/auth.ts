import type { TRPCRouterRecord } from '@trpc/server';
import { stringifySetCookie } from 'cookie';
import { ownerInputs } from '@sponge/contract';
import {
  createApiKey,
  createUserToken,
  deleteUserToken,
  getUser,
  listApiKeys,
  listDemoUsers,
  revokeApiKey,
  USER_TOKEN_TTL_MS,
} from '../data/users.ts';
import { SESSION_COOKIE } from '../context.ts';
import { ApiError, forbidden, notFound } from '../errors.ts';
import type { AppDeps } from '../deps.ts';
import { RateLimiter } from '../rate-limit.ts';
import { ownerProcedure, publicProcedure } from '../trpc.ts';

function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  // HttpOnly: scripts never see the token. SameSite=Lax: no cookie on cross-site POSTs, which is
  // what keeps a tRPC mutation from being triggered by another site's form.
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    maxAge: maxAgeSeconds,
    secure,
  });
}

/**
 * Demo sign-ins per client address: 30 at once, then one every 2 seconds. Each adds a token row;
 * real accounts (a later issue) bring their own limits on failed attempts. Not measured: a bound
 * on token rows a script can add (1,800 an hour per address), far above a person signing in.
 */
export const LOGIN_RATE_LIMIT = { burst: 30, refillSeconds: 2 } as const;

/** One limiter per running API (its deps), so test servers in one process do not share counts. */
const loginLimiters = new WeakMap<AppDeps, RateLimiter>();

function loginLimiter(deps: AppDeps): RateLimiter {
  let limiter = loginLimiters.get(deps);
  if (!limiter) loginLimiters.set(deps, (limiter = new RateLimiter(LOGIN_RATE_LIMIT)));
  return limiter;
}

export const authRouter = {
  /** The demo owners to sign in as; empty when DEMO is off. */
  demoUsers: publicProcedure.query(async ({ ctx }) =>
    ctx.deps.config.demo ? listDemoUsers(ctx.deps.app) : [],
  ),

  /** Demo sign-in: only with DEMO on and only as a demo user. Sets the session cookie too. */
  login: publicProcedure.input(ownerInputs['auth.login']).mutation(async ({ ctx, input }) => {
    if (!ctx.deps.config.demo) throw forbidden('Demo sign-in is off on this server (DEMO=0).');
    const wait = loginLimiter(ctx.deps).take(ctx.clientAddress ?? 'in-process', ctx.deps.now().getTime());
    if (wait > 0) {
      throw new ApiError({
        code: 'TOO_MANY_REQUESTS',
        reason: 'busy',
        message: `Too many sign-ins from this address; try again in ${wait} second${wait === 1 ? '' : 's'}.`,
        retryAfterSeconds: wait,
      });
    }
    const demo = await listDemoUsers(ctx.deps.app);
    if (!demo.some((u) => u.id === input.userId)) throw notFound('The demo user');
    const userToken = await createUserToken(ctx.deps.app, input.userId, ctx.deps.now());
    ctx.setCookie(sessionCookie(userToken, Math.floor(USER_TOKEN_TTL_MS / 1000), ctx.secure));
    return { userToken };
  }),

  /** The signed-in person (or the owner of the API key); null for anyone else. */
  me: publicProcedure.query(async ({ ctx }) => {
    const c = ctx.caller;
    if (c.kind !== 'user' && c.kind !== 'apiKey') return null;
    const user = await getUser(ctx.deps.app, c.user.id);
    return user ? { id: user.id, name: user.name } : null;
  }),

  /** Ends the login session (revokes the token) and clears the cookie. Safe to call twice. */
  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.caller.kind === 'user') await deleteUserToken(ctx.deps.app, ctx.caller.tokenHash);
    ctx.setCookie(sessionCookie('', 0, ctx.secure));
    return { ok: true as const };
  }),

  /** A new API key for the signed-in owner's own agent. The key is shown once. */
  createApiKey: ownerProcedure
    .input(ownerInputs['auth.createApiKey'])
    .mutation(({ ctx, input }) => createApiKey(ctx.deps.app, ctx.user.id, input.label, ctx.deps.now())),

  apiKeys: ownerProcedure.query(({ ctx }) => listApiKeys(ctx.deps.app, ctx.user.id)),

  revokeApiKey: ownerProcedure.input(ownerInputs['auth.revokeApiKey']).mutation(async ({ ctx, input }) => {
    if (!(await revokeApiKey(ctx.deps.app, ctx.user.id, input.id, ctx.deps.now())))
      throw notFound('The API key');
    return { id: input.id, revoked: true as const };
  }),
} satisfies TRPCRouterRecord;
