import ipaddr from 'ipaddr.js';

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

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
