import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * ::/96 (IPv4-compatible IPv6, deprecated): `::7f00:1` carries 127.0.0.1. ipaddr.js calls it
 * unicast; like the other forms that embed an IPv4 address it is never a target.
 */
export const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries. */
export function canonical(address: string): Address | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  // ipaddr.js reads `::127.0.0.1` as `::ffff:127.0.0.1`; the URL parser and the kernel read it
  // as the IPv4-compatible `::7f00:1`. Their spelling is the one connected to.
  if (address.includes(':') && address.includes('.')) address = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}
