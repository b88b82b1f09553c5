/**
 * The configuration as every command reads it (config.ts): a bad value is not a crash but the
 * command's refusal, in the configuration's own words, with exit status 2.
 */
import { ConfigError, loadConfig } from '../config.ts';
import type { Config } from '../config.ts';

/** The configuration, or null once `refuse` was told what is wrong with it. */
export function commandConfig(
  env: Record<string, string | undefined>,
  cwd: string,
  refuse: (problem: string) => void,
): Config | null {
  try {
    return loadConfig(env, cwd);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    refuse(err.message);
    return null;
  }
}
