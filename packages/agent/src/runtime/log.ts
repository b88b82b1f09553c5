/**
 * The runtime's log, through pino like the API's and the purge worker's: JSON lines on stderr, or
 * readable ones when stderr is a terminal (as under `npm start`).
 */
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { RunReport, RuntimeEvent } from './runtime.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LineLogger {
  debug: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
}

/** Lines at `level` and above go to `write`: JSON, or formatted by pino-pretty when `pretty`. */
export function createLineLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => void process.stderr.write(line),
  pretty: boolean = process.stderr.isTTY === true,
): LineLogger {
  // Formatted as each line is written: pino-pretty's own stream is asynchronous, and the last
  // line before the command exits would be lost.
  const format = pretty
    ? prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
    : undefined;
  const logger = pino(
    { name: 'sponge-runtime', level },
    { write: (line: string) => write(format ? format(line) : line) },
  );
  return {
    debug: (message) => logger.debug(message),
    info: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
    error: (message) => logger.error(message),
  };
}

/** The level a LOG_LEVEL value means; pino's names beyond ours map to the nearest. */
export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  if (v === 'trace') return 'debug';
  if (v === 'fatal') return 'error';
  return 'info';
}

function runLine(r: RunReport): string {
  const run = `run ${r.runId} (${r.mode})`;
  switch (r.outcome) {
    case 'answered':
      return `answered ${run} in ${r.ms} ms${r.failure ? `; the reply says ${r.failure}` : ''}`;
    case 'already-answered':
      return `${run} had nothing left to answer`;
    case 'superseded':
      return `${run} was claimed by another runtime; its reply was left to that one`;
    case 'interrupted':
      return `${run} was interrupted by the stop; it stays pending`;
    case 'deferred':
      return `${run} failed before; next attempt in ${r.retryInMs} ms`;
    case 'failed':
      return `${run} failed: ${r.error}; next attempt in ${r.retryInMs} ms`;
  }
}

/** Writes a runtime event to the logger at the level it deserves. */
export function logEvent(log: LineLogger, event: RuntimeEvent): void {
  switch (event.type) {
    case 'started':
      log.info(`answering runs at ${event.apiUrl} with the ${event.agent}`);
      return;
    case 'stopped':
      log.info('stopped');
      return;
    case 'poll-failed':
      (event.reason === 'unauthenticated' || event.reason === 'forbidden' ? log.error : log.warn)(
        `runtime.pending failed (${event.reason}): ${event.error}; retrying in ${event.retryInMs} ms`,
      );
      return;
    case 'run': {
      const { outcome } = event.report;
      const line = runLine(event.report);
      if (outcome === 'failed') log.warn(line);
      else if (outcome === 'deferred') log.debug(line);
      else log.info(line);
      return;
    }
  }
}
