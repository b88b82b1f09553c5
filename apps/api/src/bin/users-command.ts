/**
 * `pnpm --filter @sponge/api users -- <add|list|disable|enable> …` (SPEC §6c): the operator's
 * way to make accounts when SIGNUP=closed, and to stop one.
 *
 *   add --email E --name N [--password P]   the password from stdin (or a hidden prompt on a TTY)
 *                                           when not given; the same rules as the sign-up page
 *   list                                    every account: email, name, created, disabled, demo
 *   disable --email E                       signs the account out everywhere, finishes its live
 *                                           runs, and refuses its sign-ins, sessions, API keys
 *                                           and run tokens until enabled
 *   enable --email E
 *
 * Exits 0 when done, 1 when the request was refused (an email taken, no such account), 2 when it
 * could not run (arguments, configuration, database).
 */
import { parseArgs } from 'node:util';
import { emailSchema, passwordSchema, personNameSchema } from '@sponge/contract';
import type { Client } from '@libsql/client';
import { resolveTokenSecret } from '../config.ts';
import { commandConfig } from './command-config.ts';
import { secureDataFiles } from '../data-dir.ts';
import { APP_MIGRATIONS } from '../migrations.ts';
import { createLogger } from '../log.ts';
import { applyMigrations } from '@oh/memory';
import { openAppDatabase } from '../stores.ts';
import { createAccounts } from '../accounts/accounts.ts';

export interface UsersCommandIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  out: { write(s: string): unknown };
  err: { write(s: string): unknown };
  /** The password when not given with --password: stdin's first line, or a hidden prompt. */
  readPassword: () => Promise<string>;
}

const USAGE = `usage: users add --email E --name N [--password P] | users list | users disable --email E | users enable --email E\n`;

export async function runUsers(argv: string[], io: UsersCommandIo): Promise<number> {
  const [command, ...rest] = argv[0] === '--' ? argv.slice(1) : argv;
  let values: { email?: string; name?: string; password?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    io.err.write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (command !== 'add' && command !== 'list' && command !== 'disable' && command !== 'enable') {
    io.err.write(USAGE);
    return 2;
  }
  const config = commandConfig(io.env, io.cwd, (m) => io.err.write(`${m}\n`));
  if (!config) return 2;
  const email = values.email === undefined ? undefined : emailSchema.safeParse(values.email);
  if (command !== 'list' && !email?.success) {
    io.err.write(`--email: ${email ? email.error.issues[0]?.message : 'required'}\n${USAGE}`);
    return 2;
  }
  const address = email?.success ? email.data : '';

  secureDataFiles(config);
  const app = await openAppDatabase(config.appDb);
  try {
    await applyMigrations(app, 'app', APP_MIGRATIONS);
    secureDataFiles(config);
    if (command === 'list') return await list(app, io);
    if (command === 'disable' || command === 'enable') return await setDisabled(app, address, command, io);

    const name = personNameSchema.safeParse(values.name ?? '');
    if (!name.success) {
      io.err.write(`--name: ${name.error.issues[0]?.message}\n`);
      return 2;
    }
    const password = passwordSchema.safeParse(values.password ?? (await io.readPassword()));
    if (!password.success) {
      io.err.write(`${password.error.issues[0]?.message}\n`);
      return 2;
    }
    const auth = createAccounts({
      app,
      tokenSecret: resolveTokenSecret(config),
      signUp: 'closed',
      log: createLogger('warn', 'sponge-users', { destination: process.stderr }),
    });
    const ctx = await auth.$context;
    if (await ctx.internalAdapter.findUserByEmail(address)) {
      io.err.write(`an account with ${address} already exists\n`);
      return 1;
    }
    // What sign-up does, without its switch: the user, then the credential with the library's
    // hash of the password.
    const user = await ctx.internalAdapter.createUser(
      { email: address, name: name.data, emailVerified: false },
      { method: 'email-password' },
    );
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: 'credential',
      accountId: user.id,
      password: await ctx.password.hash(password.data),
    });
    io.out.write(`added ${address} (${user.id})\n`);
    return 0;
  } finally {
    app.close();
  }
}

async function list(app: Client, io: UsersCommandIo): Promise<number> {
  const rs = await app.execute(
    'SELECT id, email, name, created_at, disabled_at, is_demo FROM users ORDER BY created_at, id',
  );
  for (const r of rs.rows) {
    const flags = [r.disabled_at !== null ? 'disabled' : '', Number(r.is_demo) === 1 ? 'demo' : '']
      .filter(Boolean)
      .join(',');
    io.out.write(
      `${String(r.email ?? '-')}\t${String(r.name)}\t${String(r.created_at)}\t${flags || 'active'}\t${String(r.id)}\n`,
    );
  }
  return 0;
}

async function setDisabled(app: Client, email: string, command: 'disable' | 'enable', io: UsersCommandIo) {
  const now = new Date().toISOString();
  const [updated] = await app.batch(
    command === 'disable'
      ? [
          {
            sql: 'UPDATE users SET disabled_at = ?, updated_at = ? WHERE email = ?',
            args: [now, now, email],
          },
          // Signed out everywhere at once; API keys stay but are refused while it is disabled.
          {
            sql: 'DELETE FROM auth_sessions WHERE user_id IN (SELECT id FROM users WHERE email = ?)',
            args: [email],
          },
          // Its MCP clients' OAuth grants end too (mcp/oauth.ts): tokens, refresh tokens, consents.
          ...['oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_consents'].map((table) => ({
            sql: `DELETE FROM ${table} WHERE user_id IN (SELECT id FROM users WHERE email = ?)`,
            args: [email],
          })),
          // Its runs end (SPEC §6c): finished, as the owner's own finish would, so enabling the
          // account again brings none of them back; their tokens were refused from the flag on.
          {
            sql: `UPDATE runs SET status = 'finished', finished_at = ?
                   WHERE status = 'live' AND owner_id IN (SELECT id FROM users WHERE email = ?)`,
            args: [now, email],
          },
        ]
      : [{ sql: 'UPDATE users SET disabled_at = NULL, updated_at = ? WHERE email = ?', args: [now, email] }],
    'write',
  );
  if (updated?.rowsAffected !== 1) {
    io.err.write(`no account with ${email}\n`);
    return 1;
  }
  io.out.write(`${command}d ${email}\n`);
  return 0;
}
