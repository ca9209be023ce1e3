import type { Logger } from 'pino';
import type { ProxyType } from '../config/catalog.js';
import type { Deadline } from '../time/deadline.js';
import { EgressError } from './fetch-errors.js';
import { connectDirect } from './direct-connect.js';
import { egressAgents, type HttpAgents } from './egress-agent.js';
import { EgressContext } from './egress-context.js';
import type { ProxyProvider } from './proxies/proxy-provider.js';
import type { StickySession } from './proxies/sticky-session.js';
import type { TargetPolicy } from './target-policy/target-policy.js';

/** A new direct connection gives up after this long (a request's own deadline usually ends it first). */
const CONNECT_TIMEOUT_MS = 60_000;

/** Opens each request's egress: its route (proxy choice) and its checked connections. */
export class Egress {
  /**
   * Direct requests share kept-alive connections, as a forwarder would: each was checked when it
   * was dialled, and a connection to a target is reused only for that same host and port.
   */
  private readonly sharedDirect: HttpAgents;

  constructor(
    readonly policy: TargetPolicy,
    private readonly proxies: ProxyProvider,
    private readonly logger: Logger,
  ) {
    const timedOut = () => new EgressError('unreachable', 'no route to the target');
    this.sharedDirect = egressAgents(
      async (host, port) => connectDirect(await policy.resolve(host, port), port, () => CONNECT_TIMEOUT_MS, timedOut),
      true,
    );
  }

  /** Throws ProxyUnavailableError when the type or country is not served. */
  open(type: ProxyType, country: string | undefined, deadline: Deadline, session?: StickySession): EgressContext {
    return new EgressContext(this.policy, this.proxies.route(type, country, session), deadline, this.logger, this.sharedDirect);
  }

  close(): void {
    this.sharedDirect.http.destroy();
    this.sharedDirect.https.destroy();
  }
}
