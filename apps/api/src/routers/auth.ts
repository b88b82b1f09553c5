import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs, PASSWORD_RULES } from '@sponge/contract';
import {
  createApiKey,
  deleteSession,
  getAccount,
  listApiKeys,
  listDemoUsers,
  revokeApiKey,
} from '../accounts/users.ts';
import { listConnectedAgents, revokeConnectedAgent } from '../accounts/connected-agents.ts';
import { notFound } from '../errors.ts';
import { ownerProcedure, publicProcedure } from '../trpc/procedures.ts';
import type { Context } from '../trpc/context.ts';

/** Limits count per client address; calls made in-process (tests) share one. */
const addressOf = (ctx: Context) => ctx.clientAddress ?? 'in-process';

export const authRouter = {
  /** What the sign-in and sign-up pages offer on this server. */
  options: publicProcedure.query(({ ctx }) => ({
    signUp: ctx.deps.accounts.signUpMode,
    demo: ctx.deps.config.demo,
    passwordRules: PASSWORD_RULES,
  })),

  /** A new account (SIGNUP=open), signed in at once: sets the session cookie. */
  signUp: publicProcedure.input(ownerInputs['auth.signUp']).mutation(async ({ ctx, input }) => {
    const { user, cookies } = await ctx.deps.accounts.signUp(input, addressOf(ctx));
    for (const c of cookies) ctx.setCookie(c);
    return { user };
  }),

  /**
   * Email and password. The token stays in the HttpOnly cookie: a script uses an API key (or, on
   * a demo server, `auth.login`'s token), never a password.
   */
  signIn: publicProcedure.input(ownerInputs['auth.signIn']).mutation(async ({ ctx, input }) => {
    const { user, cookies } = await ctx.deps.accounts.signIn(input, addressOf(ctx));
    for (const c of cookies) ctx.setCookie(c);
    return { user };
  }),

  /** The demo owners to sign in as; empty when DEMO is off. */
  demoUsers: publicProcedure.query(async ({ ctx }) =>
    ctx.deps.config.demo ? listDemoUsers(ctx.deps.app) : [],
  ),

  /**
   * Demo sign-in: only with DEMO on, only as a demo user, a few at a time per client address
   * (accounts/accounts.ts). Sets the session cookie too.
   */
  login: publicProcedure.input(ownerInputs['auth.login']).mutation(async ({ ctx, input }) => {
    const { token, cookies } = await ctx.deps.accounts.demoSignIn(input.userId, addressOf(ctx));
    for (const c of cookies) ctx.setCookie(c);
    return { userToken: token };
  }),

  /** The signed-in person (or the owner of the API key); null for anyone else. */
  me: publicProcedure.query(async ({ ctx }) => {
    const c = ctx.caller;
    if (c.kind !== 'user' && c.kind !== 'apiKey') return null;
    return getAccount(ctx.deps.app, c.user.id);
  }),

  /**
   * Ends the session on the server (its token and cookie stop working wherever they are
   * replayed) and clears the cookie. Safe to call twice.
   */
  logout: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.caller.kind === 'user') await deleteSession(ctx.deps.app, ctx.caller.sessionToken);
    ctx.setCookie(ctx.deps.accounts.clearedCookie());
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

  /**
   * The owner's connected agents (SPEC §6c): their API keys and the MCP clients they let in with
   * OAuth, each with when it was connected and last used. A person's session only: an agent
   * never lists or revokes its fellows.
   */
  connectedAgents: ownerProcedure.query(({ ctx }) => listConnectedAgents(ctx.deps.app, ctx.user.id)),

  /** Ends one connected agent's tokens at once; another owner's agent is NOT_FOUND. */
  revokeConnectedAgent: ownerProcedure
    .input(ownerInputs['auth.revokeConnectedAgent'])
    .mutation(async ({ ctx, input }) => {
      if (!(await revokeConnectedAgent(ctx.deps.app, ctx.user.id, input.id, ctx.deps.now())))
        throw notFound('The connected agent');
      return { id: input.id, revoked: true as const };
    }),
} satisfies TRPCRouterRecord;
