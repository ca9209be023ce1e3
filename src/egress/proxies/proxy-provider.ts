import type { ProxyType } from '../../config/catalog.js';
import { ProxyUnavailableError } from '../fetch-errors.js';
import { EgressRoute } from './egress-route.js';
import type { StickySession } from './sticky-session.js';

/**
 * Chooses where one request leaves from: one method, so a file-configured pool, a vendor's API
 * or direct egress can stand behind it. Throws ProxyUnavailableError for a choice it cannot serve.
 */
export interface ProxyProvider {
  /**
   * With a session, requests of the same session, type and country leave through the same exit
   * on every instance while it works (and, once moved off a failing one, where they moved to).
   */
  route(type: ProxyType, country: string | undefined, session?: StickySession): EgressRoute;
}

/**
 * No PROXY_CONFIG: traffic leaves from this machine, and asking for a proxy is an invalid value.
 * A session is accepted and has nothing to pin: every request already leaves from this one address.
 */
export class DirectEgress implements ProxyProvider {
  route(type: ProxyType, country: string | undefined, _session?: StickySession): EgressRoute {
    if (country !== undefined) {
      throw new ProxyUnavailableError('proxy_country', 'no upstream proxies are configured on this server: leave proxy_country unset');
    }
    if (type !== 'datacenter') {
      throw new ProxyUnavailableError('proxy_type', `no ${type} proxies are configured on this server: leave proxy_type unset`);
    }
    return EgressRoute.direct(type);
  }
}
