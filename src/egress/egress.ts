import type { Logger } from 'pino';
import type { ProxyType } from '../config/catalog.js';
import type { Deadline } from '../fetchers/deadline.js';
import { EgressContext } from './egress-context.js';
import type { ProxyProvider } from './proxy-provider.js';
import type { TargetPolicy } from './target-policy.js';

/** Opens each request's egress: its route (proxy choice) and its checked connections. */
export class Egress {
  constructor(
    readonly policy: TargetPolicy,
    private readonly proxies: ProxyProvider,
    private readonly logger: Logger,
  ) {}

  /** Throws ProxyUnavailableError when the type or country is not served. */
  open(type: ProxyType, country: string | undefined, deadline: Deadline): EgressContext {
    return new EgressContext(this.policy, this.proxies.route(type, country), deadline, this.logger);
  }
}
