import type { ProxyType } from '../config/catalog.js';

export interface ProxyEndpoint {
  /** http://user:pass@host:port */
  url: string;
  type: ProxyType;
  country: string;
}

/**
 * Picks the upstream proxy for one request: one method, so a file-configured pool, a vendor API
 * or direct egress can stand behind it.
 */
export interface ProxyProvider {
  proxyFor(type: ProxyType, country: string | undefined): Promise<ProxyEndpoint | undefined>;
}

/** No upstream proxy: requests leave from this machine. The default until proxies are configured. */
export class DirectEgress implements ProxyProvider {
  async proxyFor(): Promise<undefined> {
    return undefined;
  }
}
