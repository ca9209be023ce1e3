import type { Logger } from 'pino';
import type { BrowserPool, PoolEvents } from '../engines/browser/browser-pool.js';
import type { Metrics } from '../observability/metrics.js';

/**
 * What the server does with its browser pool's events: each is logged and counted, and, when the
 * service was started with EVENTS_TO_PARENT and an IPC channel (tests that spawn it, a supervisor),
 * sent to the parent process as `{event: 'pool.<name>', …}`, so that it can wait for them instead
 * of reading log lines.
 */
export function listenToPool(pool: BrowserPool, parts: { logger: Logger; metrics: Metrics; toParent: boolean }): void {
  const { logger, metrics } = parts;
  const send = parts.toParent && typeof process.send === 'function' ? (message: object) => process.send?.(message) : undefined;
  const forward = <K extends keyof PoolEvents>(name: K, data: PoolEvents[K][0]) => {
    // The error of a failed start is the log's; the parent learns that it happened.
    const sent = name === 'startFailed' ? { attempt: (data as PoolEvents['startFailed'][0]).attempt } : data;
    send?.({ event: `pool.${name}`, ...sent });
  };
  pool.on('started', (e) => {
    logger.info({ session: e.session, processGroup: e.processGroup }, 'browser session started');
    metrics.browserSessionStarted();
    forward('started', e);
  });
  pool.on('startFailed', (e) => {
    logger.error({ err: e.err, attempt: e.attempt }, 'browser session could not be started');
    forward('startFailed', e);
  });
  pool.on('reset', (e) => forward('reset', e));
  pool.on('retired', (e) => {
    logger.info({ session: e.session, pages: e.pages, reason: e.reason }, 'browser session retired');
    metrics.browserSessionRetired(e.cause);
    forward('retired', e);
  });
}
