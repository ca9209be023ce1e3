import type { Logger } from 'pino';
import type { Billing } from '../billing/billing.js';
import type { RefusalTally } from '../billing/refusal-tally.js';
import type { Catalog } from '../config/catalog.js';
import type { Config } from '../config/config.js';
import { HtmlWorkers } from '../content/html-work/html-workers.js';
import { Egress } from '../egress/egress.js';
import { loadProxyCatalog } from '../egress/proxies/proxy-config.js';
import { ProxyHealth } from '../egress/proxies/proxy-health.js';
import { ProxyPool } from '../egress/proxies/proxy-pool.js';
import { DirectEgress } from '../egress/proxies/proxy-provider.js';
import { SessionPins } from '../egress/proxies/session-pins.js';
import { AddressPolicy } from '../egress/target-policy/address-policy.js';
import { OwnPorts } from '../egress/target-policy/own-ports.js';
import { protectServices } from '../egress/target-policy/own-services.js';
import { TargetPolicy } from '../egress/target-policy/target-policy.js';
import { EngineRegistry } from '../engines/engine-registry.js';
import { PlainFetcher } from '../engines/plain-fetcher.js';
import { USER_AGENT } from '../engines/user-agent.js';
import type { Jobs, WebhookPolicy } from '../jobs/job-ports.js';
import type { Metrics } from '../observability/metrics.js';
import { Answers } from '../scrape/answers/answers.js';
import { WallDetector } from '../scrape/antibot/wall-detector.js';
import { ScrapeService } from '../scrape/scrape-service.js';
import type { SyncDemand } from '../scrape/sync-demand.js';
import { browserEngine, type BrowserEngine } from './browser-engine.js';
import { listenToPool } from './pool-listeners.js';

/** What the composition may be given in place of its own (the fast tests' engines). */
export interface ScrapeOverrides {
  engines?: EngineRegistry;
  /** The job engine the Firecrawl dialect's batches go to (until the server builds its own). */
  jobs?: Jobs;
  webhooks?: WebhookPolicy;
}

/** The way out, the engines, the HTML workers and the scrape service over them. */
export async function scrapeParts(
  config: Config,
  with_: { catalog: Catalog; billing: Billing; refusals: RefusalTally; metrics: Metrics; stopping: AbortSignal; logger: Logger; overrides: ScrapeOverrides; demand?: SyncDemand },
) {
  const { metrics, logger } = with_;
  const ownPorts = new OwnPorts();
  const addresses = new AddressPolicy({ allowPrivate: config.allowPrivateTargets, allowCidrs: config.targetAllowCidrs, ownPorts });
  await protectServices([config.browser.remoteUrl, config.databaseUrl.startsWith('mysql:') ? config.databaseUrl : undefined], addresses, ownPorts);
  const policy = new TargetPolicy(addresses, undefined, (reason) => metrics.refused(reason));
  const browser: BrowserEngine | undefined = with_.overrides.engines ? undefined : browserEngine(config, ownPorts, logger);
  if (browser) {
    metrics.watchPool(() => browser.pool.stats);
    listenToPool(browser.pool, { logger, metrics, toParent: config.eventsToParent });
  }
  const engines =
    with_.overrides.engines ??
    new EngineRegistry({
      plain: new PlainFetcher({ maxBodyBytes: config.maxBodyBytes, maxRedirects: config.maxRedirects, userAgent: USER_AGENT }),
      browser: browser?.fetcher,
    });
  const proxies = loadProxyCatalog(config.proxyConfigPath);
  const proxyHealth = new ProxyHealth(Date.now, (proxy) => metrics.proxyFailed(proxy.type, proxy.country));
  const proxyPool = proxies && new ProxyPool(proxies, proxyHealth, Math.random, new SessionPins(config.sessionTtlMs));
  const egress = new Egress(policy, proxyPool ?? new DirectEgress(), logger);
  const service = new ScrapeService({
    billing: with_.billing,
    refusals: with_.refusals,
    engines,
    egress,
    walls: WallDetector.default(),
    costs: with_.catalog.costs,
    metrics,
    stopping: with_.stopping,
    demand: with_.demand,
    logger,
  });
  const htmlWorkers = new HtmlWorkers(config.htmlWork);
  // The callers' rules: one thread of their own, tasks of at most about 100 ms, queued as the pages' are.
  const rulesWorkers = new HtmlWorkers({ threads: 1, queueSize: config.htmlWork.queueSize, perKeyQueue: config.htmlWork.perKeyQueue, taskTimeoutMs: 5_000 });
  return {
    ownPorts,
    policy,
    egress,
    htmlWorkers,
    browser,
    service,
    answers: new Answers(htmlWorkers, rulesWorkers),
    async close(): Promise<void> {
      await engines.closeAll();
      await htmlWorkers.close();
      await rulesWorkers.close();
      egress.close();
    },
  };
}
