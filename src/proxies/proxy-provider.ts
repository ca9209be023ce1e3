import type { ProxyType } from '../config/catalog.js';
import { ProxyUnavailableError } from '../errors/engine-errors.js';
import { EgressRoute } from './egress-route.js';

/**
 * Chooses where one request leaves from: one method, so a file-configured pool, a vendor's API
 * or direct egress can stand behind it. Throws ProxyUnavailableError for a choice it cannot serve.
 */
export interface ProxyProvider {
  route(type: ProxyType, country: string | undefined): EgressRoute;
}

/** No PROXY_CONFIG: traffic leaves from this machine, and asking for a proxy is an invalid value. */
export class DirectEgress implements ProxyProvider {
  route(type: ProxyType, country: string | undefined): EgressRoute {
    if (country !== undefined) {
      throw new ProxyUnavailableError('proxy_country', 'no upstream proxies are configured on this server: leave proxy_country unset');
    }
    if (type !== 'datacenter') {
      throw new ProxyUnavailableError('proxy_type', `no ${type} proxies are configured on this server: leave proxy_type unset`);
    }
    return EgressRoute.direct(type);
  }
}
