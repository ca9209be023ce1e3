import ipaddr from 'ipaddr.js';
import { parseIpAddress, type IpAddress } from './ip-address.js';

/** A range: a network address and its prefix length (a single address is a /32 or /128). */
export type IpRange = [IpAddress, number];

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

/** An entry as a caller writes it: an address or a CIDR range, any spelling; throws InvalidIpEntryError. */
export function parseRange(entry: string): IpRange {
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

/** `127.0.0.2/32, 10.0.0.0/8` (a setting) → ranges; throws naming the entry that is not one. */
export function parseRangeList(text: string): IpRange[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      try {
        return parseRange(entry);
      } catch {
        throw new Error(`"${entry}" is not a CIDR range such as 127.0.0.2/32`);
      }
    });
}
