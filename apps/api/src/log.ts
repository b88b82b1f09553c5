/** Structured JSON logs (pino). LOG_LEVEL=silent keeps tests quiet. */
import { pino } from 'pino';
import type { Logger } from 'pino';

export function createLogger(level: string, name = 'sponge-api'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    // Never log a credential, even by accident through a request object.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.runToken', '*.userToken', '*.apiKey'], remove: true },
  });
}
