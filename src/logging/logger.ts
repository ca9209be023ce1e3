import { pino, type Logger } from 'pino';
import type { Config } from '../config/config.js';

/** JSON lines on stdout. Request headers are never logged, so an API key cannot reach a log line. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['headers', 'req.headers', '*.headers["x-api-key"]', 'apiKey', 'key'], censor: '[redacted]' },
  });
}
