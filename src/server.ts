import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { OpenApiRouter } from './api/openapi-router.js';
import { loadCatalog } from './config/catalog.js';
import type { Config } from './config/config.js';
import { DirectEgress } from './egress/proxy-provider.js';
import { TargetPolicy } from './egress/target-policy.js';
import { BrowserFetcher } from './fetchers/browser/browser-fetcher.js';
import { BrowserPool } from './fetchers/browser/browser-pool.js';
import { BrowserSession } from './fetchers/browser/browser-session.js';
import { EngineRegistry } from './fetchers/engine-registry.js';
import type { Fetcher } from './fetchers/fetcher.js';
import { PlainFetcher } from './fetchers/plain-fetcher.js';
import { USER_AGENT } from './fetchers/user-agent.js';
import { operationHandlers } from './handlers/index.js';
import { createApp } from './http/app.js';
import { loadSpecAssets } from './http/spec-assets.js';
import { ScrapeService } from './scrape/scrape-service.js';
import { ApiKeyStore } from './store/api-key-store.js';
import { CreditStore } from './store/credit-store.js';
import { migrate, openDatabase } from './store/database.js';
import { LeaseStore } from './store/lease-store.js';

async function startBrowserEngine(config: Config, policy: TargetPolicy, logger: Logger): Promise<Fetcher | undefined> {
  const { browser } = config;
  if (browser.poolSize === 0) return undefined;
  const pool = new BrowserPool(
    () => BrowserSession.create({ chromiumPath: browser.chromiumPath, chromedriverPath: browser.chromedriverPath, remoteUrl: browser.remoteUrl }),
    { size: browser.poolSize, maxPages: browser.maxPages, maxMemoryMb: browser.maxMemoryMb, memoryCheckEvery: 10 },
    logger,
  );
  const started = Date.now();
  await pool.start();
  logger.info({ sessions: pool.stats.size, ms: Date.now() - started, grid: browser.remoteUrl !== undefined }, 'browser pool ready');
  return new BrowserFetcher(pool, policy, logger);
}

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
    browser: await startBrowserEngine(config, policy, logger),
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
