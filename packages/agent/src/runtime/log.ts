/**
 * The runtime's log, through pino like the API's and the purge worker's: JSON lines on stderr, or
 * readable ones when stderr is a terminal (as under `npm start`).
 */
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { RunReport, RuntimeEvent } from './runtime.ts';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Fields written beside the message (JSON keys), for machines reading the log. */
type LogFields = Record<string, string | number | undefined>;

export interface LineLogger {
  debug: (message: string, fields?: LogFields) => void;
  info: (message: string, fields?: LogFields) => void;
  warn: (message: string, fields?: LogFields) => void;
  error: (message: string, fields?: LogFields) => void;
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
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
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
      return `answered ${run} in ${r.ms} ms${r.limit ? `; the reply says ${r.limit}` : ''}`;
    case 'already-answered':
      return `${run} had nothing left to answer`;
    case 'claimed-elsewhere':
      return `${run} is held by another runtime's lease; left to that one`;
    case 'superseded':
      return `${run} was taken over by another runtime after this one's lease lapsed; its reply was left to that one`;
    case 'interrupted':
      return `${run} was interrupted by the stop; it is pending again`;
    case 'deferred':
      return `${run} failed before; next attempt in ${r.retryInMs} ms`;
    case 'failed':
      return r.failure
        ? `${run} failed in ${r.ms} ms (${r.failure.kind}${r.failure.status !== undefined ? `, HTTP ${r.failure.status}` : ''}); the reply says: ${r.failure.message}`
        : `${run} failed: ${r.error}; next attempt in ${r.retryInMs} ms`;
  }
}

/** Writes a runtime event to the logger at the level it deserves. */
export function logEvent(log: LineLogger, event: RuntimeEvent): void {
  switch (event.type) {
    case 'started':
      log.info(`answering runs at ${event.apiUrl} with the ${event.agent}, ${event.concurrency} at a time`);
      return;
    case 'stopped':
      log.info('stopped');
      return;
    case 'poll-failed':
      // Said once while it goes on failing the same way: one line per change, not per attempt.
      (event.repeated
        ? log.debug
        : event.reason === 'unauthenticated' || event.reason === 'forbidden'
          ? log.error
          : log.warn)(
        `runtime.pending failed (${event.reason}): ${event.error}; retrying in ${event.retryInMs} ms`,
      );
      return;
    case 'poll-recovered':
      log.info(`runtime.pending answers again after ${event.failures} failed attempts`);
      return;
    case 'run': {
      const r = event.report;
      const line = runLine(r);
      const fields: LogFields = {
        runId: r.runId,
        mode: r.mode,
        outcome: r.outcome,
        ms: r.ms,
        failure: r.failure?.kind,
        status: r.failure?.status,
      };
      if (r.outcome === 'failed') log.warn(line, fields);
      else if (r.outcome === 'deferred' || r.outcome === 'claimed-elsewhere') log.debug(line, fields);
      else log.info(line, fields);
      return;
    }
  }
}
