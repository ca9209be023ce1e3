import { ConfigError, loadConfig } from './config/config.js';
import { createLogger } from './logging/logger.js';
import { startServer } from './server.js';

// The composition root: the only place (with the CLI's) that reads the environment.
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const logger = createLogger(config.logLevel);
const server = await startServer(config, logger).catch(async (err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  logger.fatal({ err }, 'could not start');
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  process.exit(1);
});

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const exit = (code: number) => logger.flush(() => process.exit(code));
    server.close().then(
      () => exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  });
}
