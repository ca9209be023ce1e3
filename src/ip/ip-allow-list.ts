import { parseIpAddress } from './ip-address.js';
import { parseRange, type IpRange } from './ip-range.js';

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
