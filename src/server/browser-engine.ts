import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { OwnPorts } from '../egress/target-policy/own-ports.js';
import { BrowserFetcher } from '../engines/browser/browser-fetcher.js';
import { BrowserPool } from '../engines/browser/browser-pool.js';
import { BrowserSession } from '../engines/browser/browser-session.js';
import { locateChromedriver } from '../engines/browser/driver-locator.js';
import type { Fetcher } from '../engines/fetcher.js';
import { gridAnswers } from '../observability/readiness.js';

export interface BrowserEngine {
  fetcher: Fetcher;
  pool: BrowserPool;
  /** Ready for traffic: a live warm session, or on a Grid, the Grid answering. */
  ready(): Promise<boolean>;
  /** Starts the pool's sessions in the background: the server listens meanwhile (/readyz says 503). */
  warm(): void;
}

/** The browser engine the config asks for (none with BROWSER_POOL_SIZE=0). */
export function browserEngine(config: Config, ownPorts: OwnPorts, logger: Logger): BrowserEngine | undefined {
  const { browser } = config;
  if (browser.poolSize === 0) return undefined;
  const sessionOptions = {
    chromiumPath: browser.chromiumPath,
    chromedriverPath: locateChromedriver(browser.chromedriverPath),
    remoteUrl: browser.remoteUrl,
    gatewayHost: browser.gatewayHost,
    ownPorts,
    startTimeoutMs: browser.startTimeoutMs,
  };
  const pool = new BrowserPool(
    () => BrowserSession.create(sessionOptions),
    { size: browser.poolSize, maxPages: browser.maxPages, maxMemoryMb: browser.maxMemoryMb, memoryCheckEvery: 10, idleCheckMs: browser.idleCheckMs },
    logger,
  );
  const { remoteUrl } = browser;
  return {
    pool,
    fetcher: new BrowserFetcher(pool, { maxBodyBytes: config.maxBodyBytes, maxRedirects: config.maxRedirects }, logger),
    ready: async () => pool.warm && pool.stats.size > 0 && (remoteUrl === undefined || (await gridAnswers(remoteUrl, 2_000))),
    warm: () => {
      const started = Date.now();
      pool.start().then(
        () => logger.info({ sessions: pool.stats.size, ms: Date.now() - started, grid: remoteUrl !== undefined }, 'browser pool ready'),
        (err: unknown) => logger.error({ err }, 'browser pool could not start'),
      );
    },
  };
}
