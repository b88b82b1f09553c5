/**
 * Where a figure's CPU went, per call: the API process (every thread of it: the event loop, the
 * database threads, the kernel's work on its sockets and files), the bench's own clients, and how
 * busy the whole machine was. Issue 42's target compares throughputs; on a 2-CPU machine shared by
 * the API and the bench's 50 clients, throughput follows the CPU each call costs, so the figure
 * says that cost beside the rate.
 *
 * Linux only (/proc), as the bench already is (settleDisk, rssOf).
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's counters: 100 on every Linux this bench runs on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of a process, all its threads, in µs (10 ms resolution). */
export function processCpuMicros(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    throw new Error(`no process ${pid} to read the CPU time of`);
  }
  // The name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and state.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

/** The machine's CPU counters since boot, in ticks: all of them, and all but idle and I/O wait. */
export function machineTicks(): { total: number; busy: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = user! + nice! + system! + idle! + iowait! + irq! + softirq! + steal!;
  return { total, busy: total - idle! - iowait! };
}

export interface CpuPerCall {
  /** CPU of the other process (the API) per call, µs. */
  otherMicrosPerCall: number;
  /** CPU of this process (the bench's clients) per call, µs. */
  selfMicrosPerCall: number;
  /** Share of all the machine's CPUs that were busy during the window, 0–1. */
  machineBusy: number;
}

/** Opens a window now; `close(calls)` divides what each part used since by the calls made. */
export function cpuWindow(otherPid: number): { close: (calls: number) => CpuPerCall } {
  const other = processCpuMicros(otherPid);
  const self = process.cpuUsage();
  const machine = machineTicks();
  return {
    close(calls) {
      const otherUsed = processCpuMicros(otherPid) - other;
      const selfUsed = process.cpuUsage(self);
      const m = machineTicks();
      const n = Math.max(calls, 1);
      return {
        otherMicrosPerCall: otherUsed / n,
        selfMicrosPerCall: (selfUsed.user + selfUsed.system) / n,
        machineBusy: (m.busy - machine.busy) / Math.max(m.total - machine.total, 1),
      };
    },
  };
}

/**
 * What each call cost in CPU, remember against health: the API process (all its threads), the
 * bench's clients, and how busy the machine's CPUs were. With both on one machine, a remember can
 * reach half the transport floor only if a remember and its client cost at most about twice what a
 * health call and its client cost.
 */
export function cpuWords(remember: CpuPerCall, health: CpuPerCall): string {
  const us = (x: number) => `${x.toFixed(0)} µs`;
  const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
  return (
    `CPU per call, remember (health): API ${us(remember.otherMicrosPerCall)} (${us(health.otherMicrosPerCall)}), ` +
    `the bench's clients ${us(remember.selfMicrosPerCall)} (${us(health.selfMicrosPerCall)}); ` +
    `machine busy ${pct(remember.machineBusy)} (${pct(health.machineBusy)})`
  );
}
