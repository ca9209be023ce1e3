import net from 'node:net';
import type { Logger } from 'pino';
import { DeadlineExceededError, EgressError } from './fetch-errors.js';
import type { Deadline } from '../time/deadline.js';
import { connectDirect } from './direct-connect.js';
import { egressAgents, type HttpAgents } from './egress-agent.js';
import type { EgressRoute } from './proxies/egress-route.js';
import type { ProxyEndpoint } from './proxies/proxy-endpoint.js';
import { openTunnel, ProxyFailure } from './proxies/proxy-tunnel.js';
import { type CheckedAddress, type TargetPolicy } from './target-policy/target-policy.js';
import { defaultPort } from './host-port.js';

/** A proxy that hangs may take half of what is left, between 1 and 10 s, so another can be tried. */
function proxyBudget(remainingMs: number): number {
  return Math.min(remainingMs, Math.max(1_000, Math.min(10_000, remainingMs / 2)));
}

/**
 * The one way out for every byte one request sends to a target, in either engine: names are
 * resolved once and checked (TargetPolicy), and connections go to exactly the checked address,
 * directly or through a CONNECT tunnel of the request's upstream proxy, within its deadline.
 */
export class EgressContext {
  private readonly resolved = new Map<string, Promise<CheckedAddress[]>>();

  constructor(
    readonly policy: TargetPolicy,
    readonly route: EgressRoute,
    readonly deadline: Deadline,
    private readonly logger: Logger,
    /** Keep-alive agents shared by every direct request (their connections are checked as dialled). */
    private readonly sharedDirect?: HttpAgents,
  ) {}

  /**
   * HTTP agents for this request: the shared keep-alive ones when it leaves directly, or its own
   * (closed by `release`) when it goes through a proxy, whose tunnels belong to this request.
   */
  httpAgents(): { agents: HttpAgents; release(): void } {
    if (!this.route.proxied && this.sharedDirect) return { agents: this.sharedDirect, release: () => undefined };
    const agents = egressAgents((host, port) => this.dial(host, port), false);
    return { agents, release: () => (agents.http.destroy(), agents.https.destroy()) };
  }

  /** What the requested URL would reach; a TargetForbiddenError here means the URL itself is refused. */
  async checkUrl(url: URL): Promise<void> {
    this.policy.checkScheme(url);
    await this.resolve(url.hostname, defaultPort(url));
  }

  /** Checked addresses of `host`, looked up once per request (a failed lookup may be retried). */
  resolve(host: string, port: number): Promise<CheckedAddress[]> {
    const key = `${host}:${port}`;
    let found = this.resolved.get(key);
    if (!found) {
      found = this.policy.resolve(host, port);
      found.catch(() => this.resolved.delete(key));
      this.resolved.set(key, found);
    }
    return found;
  }

  /** A TCP stream to the target's checked address; TLS, if any, is the caller's. */
  async dial(host: string, port: number): Promise<net.Socket> {
    const addresses = await this.resolve(host, port);
    const socket = this.route.proxied ? await this.throughProxy(addresses[0].address, port) : await this.direct(addresses, port);
    socket.setNoDelay(true);
    return socket;
  }

  private expired(): DeadlineExceededError {
    return new DeadlineExceededError(`no answer from the target within the ${Math.round(this.deadline.budgetMs / 1000)}-second deadline`);
  }

  private direct(addresses: CheckedAddress[], port: number): Promise<net.Socket> {
    return connectDirect(addresses, port, () => this.deadline.remainingMs(), () => this.expired());
  }

  private async throughProxy(address: string, port: number): Promise<net.Socket> {
    const route = this.route;
    let proxy: ProxyEndpoint | undefined = route.current ?? route.restart();
    let tried = 0;
    let targetSide = 0;
    while (proxy && !this.deadline.expired) {
      try {
        const socket = await openTunnel(proxy, address, port, proxyBudget(this.deadline.remainingMs()));
        route.succeeded(proxy);
        return socket;
      } catch (err) {
        if (!(err instanceof ProxyFailure)) throw err;
        tried++;
        if (!err.blamesProxy) targetSide++;
        this.logger.warn({ proxy: proxy.label, reason: err.message }, 'upstream proxy failed');
        proxy = route.failed(proxy, err.blamesProxy);
      }
    }
    // A deadline that passed while proxies were failing is still their failure, and says so.
    if (tried === 0) throw this.expired();
    const which = `${tried} ${route.type} ${tried === 1 ? 'proxy' : 'proxies'} for ${route.country} tried`;
    if (targetSide === tried) throw new EgressError('unreachable', `every proxy reported the target unreachable (${which})`);
    throw new EgressError('proxy', `no proxy could reach the target (${which})`);
  }
}
