import { pino, type Logger } from 'pino';
import type { Config } from '../config/config.js';

/**
 * JSON lines on stdout for machines; on a terminal, pino-pretty renders the same records readably
 * in a worker thread (redaction happens before either). JSON is written asynchronously: a write per request on the request's path costs
 * a system call each, while sonic-boom joins what arrives during one write into the next. The
 * process flushes it on the way out (index.ts). Request headers are never logged, so an API key
 * cannot reach a log line.
 */
export function createLogger(level: Config['logLevel'], pretty = false): Logger {
  const options = {
    level,
    base: undefined,
    redact: { paths: ['headers', 'req.headers', '*.headers["x-api-key"]', 'apiKey', 'key'], censor: '[redacted]' },
  };
  if (pretty) return pino({ ...options, transport: { target: 'pino-pretty', options: { destination: 1, translateTime: 'SYS:HH:MM:ss.l' } } });
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
