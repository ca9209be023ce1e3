import type { ProxyType } from '../../config/catalog.js';

/** One upstream proxy as a request uses it: credentials live in `url` only, never in `label`. */
export interface ProxyEndpoint {
  /**
   * Stable and credential-free: the configured entry, and the country a template was filled with;
   * never the `{session}` value (health and session pins are per gateway, not per gateway session).
   */
  id: string;
  url: URL;
  /** `http://host:port (datacenter/US/0)`: what logs and metrics may show. */
  label: string;
  type: ProxyType;
  country: string;
}
