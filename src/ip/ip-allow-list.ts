import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A range as ipaddr.js gives it: a network address and its prefix length. */
export type IpRange = [Address, number];

/** An allow-list entry that is not an IPv4 or IPv6 address or CIDR range; its message names it. */
export class InvalidIpEntryError extends Error {
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`"${entry}" is not an IP address or CIDR range (${reason}); write e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32`);
    this.name = 'InvalidIpEntryError';
  }
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries: a dual-stack socket reports IPv4 clients so. */
function unmapped(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/**
 * An address as a socket or a header spells it: an IPv4 dotted quad (nothing ipaddr.js also
 * reads, such as `127.1` or `0x7f.0.0.1`) or IPv6; a zone (`%eth0`) names a link here, not a
 * host, and is ignored. Undefined for anything else.
 */
export function parseIpAddress(text: string): Address | undefined {
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

function parseRange(entry: string): IpRange {
  if (entry.includes('%')) throw new InvalidIpEntryError(entry, 'a zone names a link of this host, not a client');
  const slash = entry.indexOf('/');
  const address = parseIpAddress(slash < 0 ? entry : entry.slice(0, slash));
  if (!address) throw new InvalidIpEntryError(entry, 'not an address');
  const bitsOf = address.kind() === 'ipv4' ? 32 : 128;
  if (slash < 0) return [address, bitsOf];
  const prefixText = entry.slice(slash + 1);
  const written = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  // A mapped range's prefix counts the 96 bits of ::ffff:, which its IPv4 form drops.
  const mappedRange = address.kind() === 'ipv4' && entry.slice(0, slash).includes(':');
  const prefix = mappedRange ? written - 96 : written;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bitsOf) throw new InvalidIpEntryError(entry, mappedRange ? 'an IPv4-mapped range\'s prefix length must be 96 to 128' : `the prefix length must be 0 to ${bitsOf}`);
  return [address, prefix];
}

/** Host bits are dropped (`10.1.2.3/8` is `10.0.0.0/8`), a single address is a /32 or /128, IPv6 is compressed. */
function rangeText([address, prefix]: IpRange): string {
  const network = address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`);
  return `${network.toString()}/${prefix}`;
}

/** One entry as it is stored: `203.0.113.7` → `203.0.113.7/32`, `::ffff:10.0.0.0/104` → `10.0.0.0/8`. */
export function normalizeIpEntry(entry: string): string {
  return rangeText(parseRange(entry.trim()));
}

/** Entries as stored: each normalized, each once, in the order given. Throws on the first invalid one. */
export function normalizeIpEntries(entries: readonly string[]): string[] {
  return [...new Set(entries.map(normalizeIpEntry))];
}

/** A comma-separated list (spaces allowed) → normalized entries; `''` → `[]`, which allows anywhere. */
export function parseIpEntries(text: string): string[] {
  return normalizeIpEntries(text.split(',').map((s) => s.trim()).filter((s) => s.length > 0));
}

/** Which client addresses a list admits. An IPv4 client seen as ::ffff:a.b.c.d is the IPv4 client. */
export class IpAllowList {
  private constructor(private readonly ranges: readonly IpRange[]) {}

  /** Entries as normalizeIpEntry writes them (or any valid spelling). Throws InvalidIpEntryError. */
  static of(entries: readonly string[]): IpAllowList {
    return new IpAllowList(entries.map((e) => parseRange(e.trim())));
  }

  /** Ranges already parsed (config's CIDR lists); a mapped IPv6 range becomes its IPv4 one. */
  static ofRanges(ranges: readonly IpRange[]): IpAllowList {
    return new IpAllowList(ranges.map((r) => parseRange(`${r[0].toString()}/${r[1]}`)));
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  /** False for anything that is not an address: an unknown client is nobody's. */
  allows(address: string): boolean {
    const parsed = parseIpAddress(address);
    if (!parsed) return false;
    return this.ranges.some(([network, prefix]) => network.kind() === parsed.kind() && parsed.match(network, prefix));
  }
}
