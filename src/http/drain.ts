import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { RequestHandler } from 'express';

export interface DrainResult {
  /** Requests that finished on their own within the grace period. */
  finished: number;
  /** Requests still running when it ended, failed uncharged. */
  cut: number;
}

/**
 * Graceful shutdown of the HTTP side: stop accepting, let the requests in flight finish within
 * the grace period, then make the rest fail (the scrape service listens to `stopping`, refunds
 * and releases), and wait for their answers to go out before the parts below are closed.
 */
export class Drain {
  private inFlight = 0;
  private started = 0;
  private draining = false;
  private readonly controller = new AbortController();
  private readonly idleWaiters = new Set<() => void>();

  /** Aborted when the grace period ends. */
  get stopping(): AbortSignal {
    return this.controller.signal;
  }

  constructor() {
    // Every request in flight listens to it: Node's warning at 11 listeners would count them.
    setMaxListeners(0, this.controller.signal);
  }

  get active(): boolean {
    return this.draining;
  }

  track(): RequestHandler {
    return (_req, res, next) => {
      this.inFlight++;
      this.started++;
      // During a drain every answer closes its connection, so keep-alive clients reconnect elsewhere.
      if (this.draining) res.setHeader('Connection', 'close');
      res.once('close', () => {
        this.inFlight--;
        if (this.inFlight === 0) for (const wake of this.idleWaiters) wake();
      });
      next();
    };
  }

  /** Resolves once nothing is in flight; `endGrace` cuts the wait short (a second signal). */
  async run(server: Server, graceMs: number, endGrace: AbortSignal): Promise<DrainResult> {
    this.draining = true;
    const before = this.started - this.inFlight;
    // Stops accepting and closes idle keep-alive connections; busy ones close after their answer.
    server.close();
    server.closeIdleConnections();
    await this.idle(graceMs, endGrace);
    const cut = this.inFlight;
    if (cut > 0) {
      this.controller.abort();
      // The cut requests answer 500 at once; their refunds need the database, still open here.
      await this.idle(10_000);
    }
    server.closeAllConnections();
    return { finished: this.started - before - cut, cut };
  }

  private idle(timeoutMs: number, cutShort?: AbortSignal): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(done);
        cutShort?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.idleWaiters.add(done);
      cutShort?.addEventListener('abort', done, { once: true });
    });
  }
}
