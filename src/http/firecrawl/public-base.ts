import type { Request } from 'express';
import { requestScheme } from '../request-scheme.js';

/** What a Host header may be: a name or an address, and a port. Anything else is not used to build a link. */
const HOST = /^(?:[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Where links to a job's results start: PUBLIC_BASE_URL when set (a server behind a proxy that
 * rewrites its paths), else the scheme the request is known to have come over (https over TLS or
 * from a trusted proxy, http otherwise: see request-scheme.ts) and the host it asked for, which
 * only ever goes back to the client that sent it.
 */
export function publicBase(req: Request, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  const scheme = requestScheme(req) ?? 'http';
  const asked = req.headers.host;
  if (asked !== undefined && HOST.test(asked)) return `${scheme}://${asked}`;
  const local = req.socket.localAddress ?? '127.0.0.1';
  return `${scheme}://${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort ?? 80}`;
}

/** The absolute URL of a batch's status, and of its page from `skip` (keeping the caller's `limit`). */
export function batchStatusUrl(base: string, id: string, page?: { skip: number; limit: number | undefined }): string {
  const url = `${base}/v2/batch/scrape/${encodeURIComponent(id)}`;
  if (!page) return url;
  return `${url}?skip=${page.skip}${page.limit === undefined ? '' : `&limit=${page.limit}`}`;
}
