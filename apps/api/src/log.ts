/**
 * Structured logs (pino): JSON lines, or readable ones (pino-pretty) when they go to a terminal,
 * as with `npm start`. LOG_LEVEL=silent keeps tests quiet.
 *
 * @example
 * const log = createLogger(config.logLevel);
 * log.info({ port }, 'sponge api listening');
 */
import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';

export interface LoggerOptions {
  /** Where the lines go; default standard output. */
  destination?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Readable lines instead of JSON; default: when the destination is a terminal. */
  pretty?: boolean;
}

/**
 * Readable lines, formatted as each is written: pino-pretty's own stream is asynchronous, and a
 * command's last line before `process.exit` would be lost.
 */
function prettyDestination(out: NodeJS.WritableStream): DestinationStream {
  const format = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return { write: (line: string) => void out.write(format(line)) };
}

export function createLogger(level: string, name = 'sponge-api', options: LoggerOptions = {}): Logger {
  const out = options.destination ?? process.stdout;
  const pretty = options.pretty ?? out.isTTY === true;
  const settings = {
    name,
    level,
    base: { service: name },
    // Never log a credential, even by accident through a request object.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.runToken', '*.userToken', '*.apiKey'],
      remove: true,
    },
  };
  if (pretty) return pino(settings, prettyDestination(out));
  // Standard output: pino's own synchronous writer, the cheapest per line under load.
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
