/**
 * Another process holding a database file's write lock (lock-holder.mjs beside this file), for
 * the tests that check what waits for it and what must not (issue 24, point 11).
 *
 * @example
 * const holder = await holdLock('/tmp/x/memory.db'); // resolves once the lock is held
 * try { … } finally { await holder.release(); }       // resolves once it is let go
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The holder's script, for a caller that runs it itself: `node <it> <db-path> [hold-ms]`. */
export const LOCK_HOLDER = fileURLToPath(new URL('./lock-holder.mjs', import.meta.url));

export interface LockHolder {
  /** Rolls back and waits until the holder says it let go. */
  release(): Promise<void>;
  /** Ends the holder at once (for cleanup after a failed test); the lock goes with it. */
  kill(): void;
}

/** `path`: a file path, or a `file:` URL as the stores take it. */
export async function holdLock(path: string): Promise<LockHolder> {
  const file = path.startsWith('file:') ? fileURLToPath(path.replace(/^file:(?!\/\/)/, 'file://')) : path;
  const child = spawn(process.execPath, [LOCK_HOLDER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const next = (expected: string) =>
    new Promise<void>((resolve, reject) => {
      const exited = (code: number | null) =>
        reject(new Error(`the lock holder exited (${String(code)}) before saying ${expected}`));
      child.once('exit', exited);
      lines.once('line', (line) => {
        child.off('exit', exited);
        if (line === expected) resolve();
        else reject(new Error(`the lock holder said ${JSON.stringify(line)}, not ${expected}`));
      });
    });
  try {
    await next('locked');
  } catch (err) {
    child.kill();
    throw err;
  }
  return {
    async release() {
      const released = next('released');
      child.stdin.write('release\n');
      await released;
    },
    kill: () => void child.kill(),
  };
}
