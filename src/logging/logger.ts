import { pino, type Logger } from 'pino';
import type { Config } from '../config/config.js';

/**
 * JSON lines on stdout, written asynchronously: a write per request on the request's path costs
 * a system call each, while sonic-boom joins what arrives during one write into the next. The
 * process flushes it on the way out (index.ts). Request headers are never logged, so an API key
 * cannot reach a log line.
 */
export function createLogger(level: Config['logLevel']): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['headers', 'req.headers', '*.headers["x-api-key"]', 'apiKey', 'key'], censor: '[redacted]' },
    },
    pino.destination({ dest: 1, sync: false }),
  );
}
