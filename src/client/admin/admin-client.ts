import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/admin-types.js';
import { bearerMiddleware } from '../bearer-middleware.js';

export interface AdminClientOptions {
  /** Where scrapegate listens, e.g. `http://localhost:8080` (no trailing path). */
  baseUrl: string;
  /** The server's ADMIN_TOKEN, sent as `Authorization: Bearer …` on every call. */
  adminToken: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
}

/** An openapi-fetch client typed by the admin document. */
export type AdminClient = Client<paths>;

/**
 * A typed client for every operation of the admin API:
 * `admin.POST('/admin/v1/keys', { body: { plan: 'startup' } })` answers `{ data, error, response }`
 * as openapi-fetch does; `data.key` is the new secret, answered this once.
 */
export function createAdminClient(options: AdminClientOptions): AdminClient {
  if (!options.adminToken) throw new TypeError('createAdminClient: adminToken is required');
  const client = createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use(bearerMiddleware(options.adminToken));
  return client;
}
