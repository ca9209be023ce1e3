import type { Request } from 'express';
import { NO_PROXIES } from '../http/client-address.js';
import { parseIpAddress } from '../net/ip-allow-list.js';

/**
 * Whether the browser reached us over https: directly (a TLS socket), or through a trusted proxy
 * that says so in X-Forwarded-Proto (its first value: the client's side). From anyone else the
 * header is ignored, as X-Forwarded-For is. Proxies set the header
 * (they do not append to it), so a client behind one can at most mislabel its own connection.
 */
export function cameOverHttps(req: Request): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const peer = parseIpAddress(req.socket.remoteAddress ?? '')?.toString();
  const trusted = req.app.trustedProxies ?? NO_PROXIES;
  if (peer === undefined || trusted.empty || !trusted.allows(peer)) return false;
  return req.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase() === 'https';
}

