import os from 'node:os';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

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
};

/** A refused address: `reason` is one of a closed set of words, `text` says it to a caller. */
export interface Refusal {
  reason: string;
  text: string;
}

/**
 * Ports of scrapegate's own listeners: the API itself, the browser gateway, chromedriver and
 * Chromium's DevTools. They are never a target on this machine's addresses, whatever
 * ALLOW_PRIVATE_TARGETS says: a rendered page that reached them could drive the browser or spend
 * the operator's credits.
 */
export class OwnPorts {
  private readonly ports = new Set<number>();

  add(port: number): void {
    this.ports.add(port);
  }

  delete(port: number): void {
    this.ports.delete(port);
  }

  has(port: number): boolean {
    return this.ports.has(port);
  }
}

export interface AddressPolicyOptions {
  allowPrivate: boolean;
  /** Ranges allowed although not public (TARGET_ALLOW_CIDRS). */
  allowCidrs: Cidr[];
  ownPorts: OwnPorts;
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries. */
function canonical(address: string): Address | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed;
}

function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(canonical(a.address)?.toString() ?? a.address);
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
    const parsed = canonical(address);
    if (!parsed) return { reason: 'not-an-address', text: `${address} is not an IP address` };
    const range = parsed.range();
    const text = parsed.toString();
    if (port !== undefined && this.options.ownPorts.has(port) && (range === 'loopback' || range === 'unspecified' || this.local.has(text))) {
      return { reason: 'own-port', text: `port ${port} of this machine is scrapegate's own` };
    }
    if (range === 'unicast' || this.options.allowPrivate) return undefined;
    if (this.options.allowCidrs.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits))) return undefined;
    return { reason: range in RANGE_WORDS ? range : 'reserved', text: `${text} is ${RANGE_WORDS[range] ?? 'a reserved address'}` };
  }
}

/** `127.0.0.2/32, 10.0.0.0/8` → CIDRs; throws naming the entry that is not one. */
export function parseCidrList(text: string): Cidr[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((entry) => {
      try {
        return ipaddr.parseCIDR(entry);
      } catch {
        throw new Error(`"${entry}" is not a CIDR range such as 127.0.0.2/32`);
      }
    });
}
