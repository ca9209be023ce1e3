import type { RequestHandler } from 'express';
import { NotFoundError } from './errors/api-error.js';
import { requestScheme } from './request-scheme.js';

/**
 * The operator's pages: the dashboard and the admin API's documents. Matched as express routes
 * them (case-insensitive, an optional trailing slash, the path as sent), so nothing reaches them
 * by another spelling.
 */
const OPERATOR_PAGE = /^\/(?:dashboard(?:\/.*)?|docs\/admin\/?|openapi\/admin\.(?:json|yaml)\/?)$/is;
/** What else answers on the dashboard's origin: the admin API (a bearer token, never a cookie) and the operations endpoints. */
const ALSO_ON_DASHBOARD = /^\/(?:admin(?:\/.*)?|healthz\/?|readyz\/?|metrics\/?)$/is;
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** A Host header as `URL.host` spells it for `scheme` (lower case, no default port), or undefined for one that is not a host. */
function normalizedHost(header: string | undefined, scheme: string): string | undefined {
  if (header === undefined || !HOST.test(header)) return undefined;
  try {
    return new URL(`${scheme}://${header}`).host;
  } catch {
    return undefined;
  }
}

/**
 * With DASHBOARD_ORIGIN, the operator's pages answer on that origin alone and the public API
 * never does: a scraped body (a target's bytes, under the target's Content-Type) then never
 * shares an origin with the dashboard, its cookie or its CSP. The origin is judged on the Host
 * header and, where it can be known (request-scheme.ts), the scheme; a request on the dashboard's
 * host over the other scheme gets neither. Anything refused is the 404 of an unknown path.
 * Without DASHBOARD_ORIGIN everything answers on every origin, as before.
 */
export function dashboardOrigin(origin: string | undefined): RequestHandler {
  if (origin === undefined) return (_req, _res, next) => next();
  const expected = new URL(origin);
  const expectedScheme = expected.protocol.slice(0, -1);
  return (req, _res, next) => {
    const scheme = requestScheme(req);
    const onHost = normalizedHost(req.headers.host, scheme ?? expectedScheme) === expected.host;
    const onOrigin = onHost && (scheme === undefined || scheme === expectedScheme);
    if (OPERATOR_PAGE.test(req.path) ? !onOrigin : onHost && !ALSO_ON_DASHBOARD.test(req.path)) throw new NotFoundError('Not Found');
    next();
  };
}
