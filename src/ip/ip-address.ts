import ipaddr from 'ipaddr.js';

/**
 * The one model of an IP address in the service, for every decision made on one: a key's
 * allowed callers, the client behind trusted proxies, the addresses a target may resolve to.
 */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * ::/96 (IPv4-compatible IPv6, deprecated): `::7f00:1` carries 127.0.0.1. ipaddr.js calls it
 * unicast; like the other forms that embed an IPv4 address it is never a target.
 */
export const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries: a dual-stack socket reports IPv4 clients so. */
function unmapped(address: IpAddress): IpAddress {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/**
 * An address as a socket or a header spells it: an IPv4 dotted quad (nothing ipaddr.js also
 * reads, such as `127.1` or `0x7f.0.0.1`) or IPv6; a zone (`%eth0`) names a link here, not a
 * host, and is ignored. Undefined for anything else.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  const bare = text.split('%')[0];
  // How a dual-stack socket reports every IPv4 peer: read at once.
  const mapped = /^::ffff:([\d.]+)$/i.exec(bare);
  if (mapped && ipaddr.IPv4.isValidFourPartDecimal(mapped[1])) return ipaddr.IPv4.parse(mapped[1]);
  if (!ipaddr.IPv6.isValid(bare)) return undefined;
  let spelled = bare;
  // ipaddr.js reads `::1.2.3.4` (IPv4-compatible) as mapped; the URL parser reads it as the kernel does.
  if (bare.includes('.')) {
    try {
      spelled = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
  }
  return unmapped(ipaddr.IPv6.parse(spelled));
}
