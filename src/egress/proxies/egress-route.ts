import type { ProxyType } from '../../config/catalog.js';
import type { ProxyEndpoint } from './proxy-endpoint.js';
import type { ProxyHealth } from './proxy-health.js';

/** Told of each proxy a request's tunnel opened through: a sticky session's pin follows it there. */
export type RouteSucceeded = (proxy: ProxyEndpoint) => void;

/**
 * Where one request's traffic leaves from: directly, or through one proxy of the chosen type and
 * country at a time. The request sticks to its proxy (a page's subresources leave from the same
 * address as the page); a proxy that fails is cooled down for every request and this one moves
 * on to the next it has not tried.
 */
export class EgressRoute {
  private readonly tried = new Set<string>();
  private active: ProxyEndpoint | undefined;

  private constructor(
    /** In the order this request tries them: round-robin, or its sticky session's rendezvous order. */
    readonly candidates: ProxyEndpoint[],
    private readonly health: ProxyHealth | undefined,
    readonly type: ProxyType,
    readonly country: string | undefined,
    private readonly onSucceeded: RouteSucceeded | undefined,
  ) {
    this.active = this.pick();
  }

  static direct(type: ProxyType): EgressRoute {
    return new EgressRoute([], undefined, type, undefined, undefined);
  }

  static through(candidates: ProxyEndpoint[], health: ProxyHealth, type: ProxyType, country: string, onSucceeded?: RouteSucceeded): EgressRoute {
    return new EgressRoute(candidates, health, type, country, onSucceeded);
  }

  get proxied(): boolean {
    return this.candidates.length > 0;
  }

  /** The proxy the request uses now; undefined once every one has failed it. */
  get current(): ProxyEndpoint | undefined {
    return this.active;
  }

  /** Every proxy may be tried once more (a new connection attempt after all failed). */
  restart(): ProxyEndpoint | undefined {
    this.tried.clear();
    this.active = this.pick();
    return this.active;
  }

  /**
   * The tunnel through `proxy` failed: move on. When the proxy is to blame (refused, timed out,
   * answered 407/503) it is cooled down for every request; when it only reported the target
   * unreachable (502/504) it is not.
   */
  failed(proxy: ProxyEndpoint, blamesProxy = true): ProxyEndpoint | undefined {
    if (blamesProxy && !this.tried.has(proxy.id)) this.health?.failed(proxy);
    this.tried.add(proxy.id);
    if (this.active?.id === proxy.id) this.active = this.pick();
    return this.active;
  }

  /** A tunnel opened through `proxy`: the exit this request's traffic (now) leaves from. */
  succeeded(proxy: ProxyEndpoint): void {
    this.health?.recovered(proxy.id);
    this.onSucceeded?.(proxy);
  }

  /** The target walled this proxy's address: the next try leaves from another one, if any is left. */
  rotate(): boolean {
    if (!this.active) return false;
    this.tried.add(this.active.id);
    this.active = this.pick();
    return this.active !== undefined;
  }

  /** The first untried proxy that is not cooling down, else the untried one whose cool-down ends first. */
  private pick(): ProxyEndpoint | undefined {
    const untried = this.candidates.filter((p) => !this.tried.has(p.id));
    if (!this.health) return untried[0];
    return untried.find((p) => !this.health!.cooling(p.id)) ?? untried.sort((a, b) => this.health!.coolUntil(a.id) - this.health!.coolUntil(b.id))[0];
  }
}
