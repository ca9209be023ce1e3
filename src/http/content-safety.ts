import type { RequestHandler } from 'express';

/**
 * The API answers with a target's bytes, under the target's own Content-Type. Opened in a browser
 * on scrapegate's origin (a link to `/v2/general?…&url=https://evil/`), a page must not run there:
 * it would reach the dashboard and everything else on the origin. Every answer is sandboxed (an
 * opaque origin, no scripts, no plugins, no forms), loads nothing, may not be framed, and is
 * never sniffed into another type. Pages of the service's own (/docs) set a policy of their own.
 */
export const SANDBOXED_CONTENT_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'";

export function contentSafety(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('Content-Security-Policy', SANDBOXED_CONTENT_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}
