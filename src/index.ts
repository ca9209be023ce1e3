import { ConfigError, loadConfig } from './config/config.js';
import { createLogger } from './observability/logger.js';
import { startServer } from './server/start-server.js';

// The composition root: the only place (with the CLI's) that reads the environment.
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(2);
}
const logger = createLogger(config.logLevel, process.stdout.isTTY === true);
const flushed = () => new Promise<void>((resolve) => logger.flush(() => resolve()));

// The last resort. Errors are caught where they arise (every socket and emitter of the gateway,
// the fetchers and the sessions); one that still reaches the process level leaves it in a state
// nobody can vouch for. It is logged with its cause and the process exits non-zero, so that its
// supervisor (systemd, a container runtime) starts a clean one.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err: unknown) => {
    logger.fatal({ err, event }, 'uncaught error: exiting for the supervisor to restart the service');
    setTimeout(() => process.exit(70), 2_000).unref();
    void flushed().then(() => process.exit(70));
  });
}
const server = await startServer(config, logger).catch(async (err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  logger.fatal({ err }, 'could not start');
  await flushed();
  process.exit(1);
});

// SIGTERM (or Ctrl-C) drains within SHUTDOWN_GRACE_SECONDS; a second signal ends the grace at once.
const endGrace = new AbortController();
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: failing the requests still in flight now');
      endGrace.abort();
      return;
    }
    stopping = true;
    logger.info({ signal, graceSeconds: config.shutdownGraceMs / 1000 }, 'shutting down');
    server.shutdown(config.shutdownGraceMs, endGrace.signal).then(
      async (drained) => {
        logger.info(drained, 'stopped');
        await flushed();
        process.exit(0);
      },
      async (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        await flushed();
        process.exit(1);
      },
    );
  });
}
