import type { Request } from 'express';
import { IpAllowList } from '../ip/ip-allow-list.js';
import { parseIpAddress } from '../ip/ip-address.js';

/** Trust nobody: every request's client is the socket's peer. */
export const NO_PROXIES = IpAllowList.of([]);

declare global {
  namespace Express {
    interface Application {
      /** TRUSTED_PROXIES: peers whose X-Forwarded-For is believed (createApp sets it). */
      trustedProxies?: IpAllowList;
    }
  }
}

/**
 * One X-Forwarded-For element as proxies write it: an address, `[v6]` or `[v6]:port` or
 * `v4:port` (some balancers add the port). Undefined for anything else.
 */
function forwardedAddress(element: string): string | undefined {
  let text = element.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) text = bracketed[1];
  else if (/^[\d.]+:\d{1,5}$/.test(text)) text = text.slice(0, text.indexOf(':'));
  return parseIpAddress(text)?.toString();
}

/**
 * The client a request came from, as an IP restriction judges it. A peer that is not a trusted
 * proxy is the client, whatever it says in X-Forwarded-For: a client cannot spoof its way past a
 * restriction. From a trusted proxy the header (all of its lines, in order, as one list) is read
 * from the right, each proxy appending the address it was reached from: trusted addresses are
 * skipped, and the first untrusted one is the client. An element that is not an address ends the
 * walk: nothing left of it can be vouched for, so the last address read (a trusted proxy's, or
 * the peer's) stands as the client, which only a key that allows that proxy admits. IPv4-mapped
 * addresses are given as IPv4; an unknown peer (the socket already gone) as `unknown`, which no
 * restriction allows.
 */
export function resolveClientAddress(peer: string | undefined, forwardedFor: readonly string[] | string | undefined, trusted: IpAllowList): string {
  const peerAddress = peer === undefined ? undefined : parseIpAddress(peer)?.toString();
  if (peerAddress === undefined) return 'unknown';
  if (trusted.empty || !trusted.allows(peerAddress)) return peerAddress;
  const lines = forwardedFor === undefined ? [] : typeof forwardedFor === 'string' ? [forwardedFor] : forwardedFor;
  const elements = lines.flatMap((line) => line.split(','));
  let client = peerAddress;
  for (let i = elements.length - 1; i >= 0; i--) {
    const address = forwardedAddress(elements[i]);
    if (address === undefined) break;
    client = address;
    if (!trusted.allows(address)) break;
  }
  return client;
}

/** The client of an express request, by the app's TRUSTED_PROXIES (none when the app has none). */
export function clientAddressOf(req: Request): string {
  return resolveClientAddress(req.socket.remoteAddress, req.headersDistinct['x-forwarded-for'], req.app.trustedProxies ?? NO_PROXIES);
}
