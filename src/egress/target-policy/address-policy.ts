import os from 'node:os';
import type { IpRange } from '../../ip/ip-range.js';
import { parseIpAddress, IPV4_COMPATIBLE, type IpAddress } from '../../ip/ip-address.js';
import type { OwnPorts } from './own-ports.js';
import { UNSAFE_PORTS } from './unsafe-ports.js';

/** What ipaddr.js calls a range, as a caller reads it. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  unspecified: 'an unspecified address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address',
};

/** A refused address: `reason` is one of a closed set of words, `text` says it to a caller. */
export interface Refusal {
  reason: string;
  text: string;
}

export interface AddressPolicyOptions {
  allowPrivate: boolean;
  /** Ranges allowed although not public (TARGET_ALLOW_CIDRS). */
  allowCidrs: IpRange[];
  ownPorts: OwnPorts;
}

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(parseIpAddress(a.address)?.toString() ?? a.address);
  return out;
}

/**
 * The decision on one resolved address, and nothing else: a pure function of the address (and
 * port), never of a hostname, so the ranges that must never be contacted are tested on the
 * decision alone.
 */
export class AddressPolicy {
  private readonly local = localAddresses();

  constructor(private readonly options: AddressPolicyOptions) {}

  /** Why connecting to `address` (on `port`) is refused, or undefined when it is allowed. */
  refusal(address: string, port?: number): string | undefined {
    return this.decide(address, port)?.text;
  }

  /** The refusal with its reason as a closed word (`loopback`, `own-port` …), for counting. */
  decide(address: string, port?: number): Refusal | undefined {
    const parsed = parseIpAddress(address);
    if (!parsed) return { reason: 'not-an-address', text: `${address} is not an IP address` };
    const range = rangeOf(parsed);
    const text = parsed.toString();
    if (port !== undefined && this.isOwn(parsed, range, port)) {
      return { reason: 'own-port', text: `port ${port} of ${text} is scrapegate's own` };
    }
    const listed = this.options.allowCidrs.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits));
    if (port !== undefined && UNSAFE_PORTS.has(port) && !listed) return { reason: 'unsafe-port', text: `port ${port} is not allowed` };
    // ::/96 is deprecated and never a real target: refused even where private targets are allowed.
    if (range === 'unicast' || listed || (this.options.allowPrivate && range !== 'ipv4Compatible')) return undefined;
    return { reason: range in RANGE_WORDS ? range : 'reserved', text: `${text} is ${RANGE_WORDS[range] ?? 'a reserved address'}` };
  }

  private isOwn(parsed: IpAddress, range: string, port: number): boolean {
    if (this.options.ownPorts.hasRemote(parsed.toString(), port)) return true;
    return this.options.ownPorts.has(port) && (range === 'loopback' || range === 'unspecified' || this.local.has(parsed.toString()));
  }

  /** Whether `address` is one of this machine's own (a service there is reached through `OwnPorts.add`). */
  isLocal(address: string): boolean {
    const parsed = parseIpAddress(address);
    if (!parsed) return false;
    const range = rangeOf(parsed);
    return range === 'loopback' || range === 'unspecified' || this.local.has(parsed.toString());
  }
}

function rangeOf(parsed: IpAddress): string {
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE) && parsed.range() === 'unicast') return 'ipv4Compatible';
  return parsed.range();
}
