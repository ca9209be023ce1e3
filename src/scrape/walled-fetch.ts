import type { Logger } from 'pino';
import type { EgressContext } from '../egress/egress-context.js';
import type { EngineName, EngineRegistry } from '../engines/engine-registry.js';
import type { Attempt, FetchedPage } from '../engines/fetcher.js';
import type { ScrapeRequest } from '../engines/scrape-request.js';
import type { Metrics } from '../observability/metrics.js';
import { ClientCancelledError } from '../time/client-cancelled-error.js';
import { AntiBotDetectedError } from './anti-bot-error.js';
import { BODY_SCAN_LIMIT, type WallDetector } from './antibot/wall-detector.js';

export function engineOf(request: Pick<ScrapeRequest, 'browser'>): EngineName {
  return request.browser ? 'browser' : 'plain';
}

function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * The engine's fetch, past anti-bot walls: a walled page is fetched again from another proxy of
 * the choice while time allows, each proxy once. An engine that fails over past a dead proxy may
 * land on one that walled the request already, and that is the end of the tries (a 423), not a
 * loop to the deadline.
 */
export async function fetchPastWalls(
  parts: { engines: EngineRegistry; walls: WallDetector; metrics: Metrics; logger: Logger },
  request: ScrapeRequest,
  attempt: Attempt & { egress: EgressContext },
): Promise<FetchedPage> {
  const walledBy = new Set<string>();
  const engine = parts.engines.get(engineOf(request));
  for (;;) {
    if (attempt.cancelled?.aborted) throw new ClientCancelledError();
    const started = process.hrtime.bigint();
    const fetched = (outcome: 'ok' | 'wall' | 'error') => parts.metrics.fetched(engineOf(request), request.proxy.type, outcome, secondsSince(started));
    const page = await engine.fetch(request, attempt).catch((err: unknown) => {
      fetched('error');
      throw err;
    });
    const verdict = parts.walls.detect({ status: page.status, headers: page.headers, body: page.body.toString('latin1', 0, BODY_SCAN_LIMIT) });
    fetched(verdict ? 'wall' : 'ok');
    if (!verdict) return page;
    parts.metrics.wall(verdict.vendor);
    const { egress } = attempt;
    const proxy = egress.route.current;
    parts.logger.info({ vendor: verdict.vendor, wall: verdict.wall, proxy: proxy?.label }, 'anti-bot wall');
    const again = proxy !== undefined && walledBy.has(proxy.id);
    if (proxy) walledBy.add(proxy.id);
    if (again || egress.deadline.expired || !egress.route.rotate()) throw new AntiBotDetectedError(verdict.vendor, verdict.wall);
  }
}
