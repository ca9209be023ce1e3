import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { OpenApiRouter } from './api/openapi-router.js';
import { loadCatalog } from './config/catalog.js';
import type { Config } from './config/config.js';
import { DirectEgress } from './egress/proxy-provider.js';
import { TargetPolicy } from './egress/target-policy.js';
import { EngineRegistry } from './fetchers/engine-registry.js';
import { PlainFetcher } from './fetchers/plain-fetcher.js';
import { operationHandlers } from './handlers/index.js';
import { createApp } from './http/app.js';
import { loadSpecAssets } from './http/spec-assets.js';
import { ScrapeService } from './scrape/scrape-service.js';
import { ApiKeyStore } from './store/api-key-store.js';
import { CreditStore } from './store/credit-store.js';
import { migrate, openDatabase } from './store/database.js';
import { LeaseStore } from './store/lease-store.js';

export const USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** Builds every part from the config, migrates the database and listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const catalog = loadCatalog(config.plansConfigPath);
  const db = openDatabase(config.databaseUrl);
  await migrate(db);
  const keys = new ApiKeyStore(db.knex);
  const policy = new TargetPolicy(config.allowPrivateTargets);
  const engines = new EngineRegistry({
    plain: new PlainFetcher({ policy, maxBodyBytes: config.maxBodyBytes, maxRedirects: config.maxRedirects, userAgent: USER_AGENT }),
  });
  const service = new ScrapeService({
    keys,
    credits: new CreditStore(db.knex),
    leases: new LeaseStore(db.knex),
    engines,
    proxies: new DirectEgress(),
    costs: catalog.costs,
    leaseGraceMs: config.leaseGraceMs,
    logger,
  });
  const spec = loadSpecAssets();
  const router = new OpenApiRouter(spec.document, operationHandlers(service));
  await router.init();
  const app = createApp({ router, spec, logger, maxRequestBodyBytes: config.maxRequestBodyBytes });

  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, host: config.host, database: db.dialect }, 'listening');
  if ((await keys.list()).length === 0) {
    logger.info('No API key exists yet. Create one with: npx scrapegate keys create --plan free');
  }
  return {
    port,
    async close() {
      server.close();
      server.closeAllConnections();
      await engines.closeAll();
      await db.close();
    },
  };
}
