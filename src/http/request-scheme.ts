import type { Request } from 'express';
import { NO_PROXIES } from './client-address.js';
import { parseIpAddress } from '../ip/ip-address.js';

/**
 * The scheme the browser reached us over, where it can be known: https over a TLS socket; else
 * what a trusted proxy says in X-Forwarded-Proto (its first value: the client's side). From
 * anyone else the header is ignored, as X-Forwarded-For is, and a plain socket says nothing (a
 * TLS-terminating proxy nobody declared in TRUSTED_PROXIES may stand in front): undefined.
 * Proxies set the header (they do not append to it), so a client behind one can at most
 * mislabel its own connection.
 */
export function requestScheme(req: Request): 'https' | 'http' | undefined {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return 'https';
  const peer = parseIpAddress(req.socket.remoteAddress ?? '')?.toString();
  const trusted = req.app.trustedProxies ?? NO_PROXIES;
  if (peer === undefined || trusted.empty || !trusted.allows(peer)) return undefined;
  const said = req.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
  return said === 'https' || said === 'http' ? said : undefined;
}

/** Whether the browser is known to have reached us over https (requestScheme). */
export function cameOverHttps(req: Request): boolean {
  return requestScheme(req) === 'https';
}
