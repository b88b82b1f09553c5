import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cpuWindow, cpuWords, machineTicks, processCpuMicros } from './cpu.ts';

/** Spins until this process has used `ms` of CPU: the same work however busy the machine is. */
const spinCpu = (ms: number) => {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= ms * 1000) return;
  }
};

describe('cpu accounting', () => {
  it("reads a process's CPU time from /proc", () => {
    const before = processCpuMicros(process.pid);
    spinCpu(200);
    const used = processCpuMicros(process.pid) - before;
    // /proc counts in clock ticks (10 ms here); vitest's own threads may add a little.
    expect(used).toBeGreaterThanOrEqual(180_000);
    expect(used).toBeLessThan(400_000);
  });

  it('refuses a process that is not there, in words', () => {
    expect(() => processCpuMicros(2 ** 30)).toThrow(/no process 1073741824/);
  });

  it("splits a window's CPU between another process and this one, per call", async () => {
    // The child spins 400 ms of CPU once told to, inside the window, says so and waits to be
    // killed (an exited child is reaped at once and leaves nothing in /proc to read).
    const child = spawn(
      process.execPath,
      [
        '-e',
        `process.stdin.once('data', () => { const s = process.cpuUsage(); for (;;) { const u = process.cpuUsage(s); if (u.user + u.system >= 400000) break; } process.stdout.write('done'); setInterval(() => {}, 1000); })`,
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    await once(child, 'spawn');
    const window = cpuWindow(child.pid!);
    child.stdin.write('go\n');
    spinCpu(100);
    await once(child.stdout, 'data');
    const w = window.close(10);
    child.kill();
    expect(w.otherMicrosPerCall).toBeGreaterThanOrEqual(38_000); // 400 ms over 10 calls, less a tick
    expect(w.selfMicrosPerCall).toBeGreaterThanOrEqual(10_000); // the 100 ms spin over 10 calls
    expect(w.selfMicrosPerCall).toBeLessThan(w.otherMicrosPerCall);
    expect(w.machineBusy).toBeGreaterThan(0);
    expect(w.machineBusy).toBeLessThanOrEqual(1);
  });

  it('reads the machine as busy and total ticks that only grow', () => {
    const a = machineTicks();
    spinCpu(50);
    const b = machineTicks();
    expect(b.total).toBeGreaterThan(a.total);
    expect(b.busy).toBeGreaterThanOrEqual(a.busy);
  });

  it('says the cost of a remember beside that of a health call, in words', () => {
    expect(
      cpuWords(
        { otherMicrosPerCall: 436.4, selfMicrosPerCall: 90.2, machineBusy: 0.724 },
        { otherMicrosPerCall: 70, selfMicrosPerCall: 55.5, machineBusy: 0.92 },
      ),
    ).toBe(
      "CPU per call, remember (health): API 436 µs (70 µs), the bench's clients 90 µs (56 µs); machine busy 72 % (92 %)",
    );
  });
});
