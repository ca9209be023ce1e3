import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { cameOverHttps } from '../http/request-scheme.js';

declare global {
  namespace Express {
    interface Locals {
      /** This answer's CSP nonce: the dashboard's own <script> and <link> elements carry it. */
      cspNonce?: string;
    }
  }
}

/**
 * The dashboard's pages run only the scripts and styles they name with this answer's nonce (no
 * inline code at all: data travels in non-executable JSON blocks), post forms only to themselves,
 * and may not be framed. Not `'self'`: the same origin also serves whatever a target answers
 * (/v2/general, under the target's Content-Type), so 'self' would let an injected
 * `<script src="/v2/general?…">` run a target's bytes here. It replaces the sandbox every other
 * answer gets (http/content-safety.ts), for these pages only.
 */
export function dashboardCsp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

export function nonceOf(res: Response): string {
  if (!res.locals.cspNonce) throw new Error('a dashboard page is rendered without its nonce');
  return res.locals.cspNonce;
}

export function dashboardHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString('base64');
    res.setHeader('Content-Security-Policy', dashboardCsp(res.locals.cspNonce));
    // A page may show a secret, once: nothing keeps a copy.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: under no-referrer Chrome sends `Origin: null` with our own forms.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  };
}

/** This server's origin as the browser sees it: the scheme it came over and the Host it asked for. */
export function ownOrigin(req: Request): string {
  return `${cameOverHttps(req) ? 'https' : 'http'}://${(req.get('host') ?? '').toLowerCase()}`;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Why a POST is not from one of our own pages, or undefined when it is. Browsers say where a
 * request comes from (Sec-Fetch-Site, Origin, Referer); any of them naming somewhere else
 * refuses it. Another port of the same host is another origin but the same site, so SameSite
 * alone would let its forms carry the cookie: this check, and the CSRF token, stop them.
 */
export function foreignPostReason(req: Request): string | undefined {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `the form was sent from another ${site === 'cross-site' ? 'site' : 'origin'}`;
  const own = ownOrigin(req);
  const origin = req.get('origin');
  if (origin !== undefined) return origin.toLowerCase() === own ? undefined : 'the form was sent from another origin';
  const referer = req.get('referer');
  if (referer !== undefined && originOf(referer)?.toLowerCase() !== own) return 'the form was sent from another origin';
  return undefined;
}
