/**
 * Failed sign-ins and sign-ups, limited (SPEC §6c): per account and per client address, in
 * fixed 15-minute windows, with rate-limiter-flexible's in-memory counters (one API process
 * holds them; several instances would each count their own, see docs/operations.md).
 *
 * A sign-in takes its point from both counters before the password is checked, so ten attempts
 * sent at once are counted as ten, and gives them back when it succeeds: only failures count. An
 * unknown address counts like a known one (its key is the address as typed, normalised), so the
 * limit says nothing about whether an account exists.
 */
import rateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterRes } from 'rate-limiter-flexible';

const { RateLimiterMemory } = rateLimiterFlexible;

export interface AuthLimits {
  /** Failed sign-ins per account (email) in a window; the next is refused until it ends. */
  failuresPerAccount: number;
  /** Failed sign-ins per client address in a window (several accounts from one place). */
  failuresPerAddress: number;
  /** Sign-up attempts per client address in a window. */
  signUpsPerAddress: number;
  windowSeconds: number;
}

/**
 * The sixth failure on one account within 15 minutes is refused: the SPEC asks for the limit to
 * engage before the tenth. Per address it is higher, since a proxy in front (docs/operations.md)
 * or an office can put several people behind one address. Not measured: a count fit to real
 * traffic; these bound a guesser at 5 passwords per account per 15 minutes.
 */
export const DEFAULT_AUTH_LIMITS: AuthLimits = {
  failuresPerAccount: 5,
  failuresPerAddress: 20,
  signUpsPerAddress: 10,
  windowSeconds: 15 * 60,
};

/** Refused: how long until the window that refused ends. */
export class Limited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`limited for ${retryAfterSeconds} s`);
  }
}

function waitOf(res: unknown): number {
  const ms = (res as RateLimiterRes | undefined)?.msBeforeNext;
  return Math.max(1, Math.ceil((typeof ms === 'number' ? ms : 1000) / 1000));
}

export function createAuthLimiter(limits: AuthLimits = DEFAULT_AUTH_LIMITS) {
  const perAccount = new RateLimiterMemory({
    points: limits.failuresPerAccount,
    duration: limits.windowSeconds,
  });
  const perAddress = new RateLimiterMemory({
    points: limits.failuresPerAddress,
    duration: limits.windowSeconds,
  });
  const signUps = new RateLimiterMemory({ points: limits.signUpsPerAddress, duration: limits.windowSeconds });

  async function take(limiter: InstanceType<typeof RateLimiterMemory>, key: string): Promise<number> {
    try {
      await limiter.consume(key);
      return 0;
    } catch (res) {
      if (res instanceof Error) throw res;
      return waitOf(res);
    }
  }

  return {
    /**
     * Runs one sign-in attempt under both limits; a throw from `attempt` is a failure and keeps
     * its points. Throws {@link Limited} (without running it) when either limit is spent.
     */
    async signIn<T>(email: string, address: string, attempt: () => Promise<T>): Promise<T> {
      const [account, place] = await Promise.all([take(perAccount, email), take(perAddress, address)]);
      if (account > 0 || place > 0) throw new Limited(Math.max(account, place));
      const result = await attempt();
      // Succeeded: this attempt was not a failure, and the account's count starts again.
      await Promise.all([perAccount.delete(email), perAddress.reward(address, 1)]);
      return result;
    },

    /** Throws {@link Limited} when this address has signed up too often in the window. */
    async signUp(address: string): Promise<void> {
      const wait = await take(signUps, address);
      if (wait > 0) throw new Limited(wait);
    },
  };
}

export type AuthLimiter = ReturnType<typeof createAuthLimiter>;
