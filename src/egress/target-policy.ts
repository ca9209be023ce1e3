import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { TargetForbiddenError } from '../errors/engine-errors.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Which targets scrapegate may reach. By default only public unicast addresses: a scraping API
 * that fetches loopback or private addresses hands its callers the operator's internal network.
 * The check runs on the resolved address of every connection (redirects included), so a
 * hostname cannot pass the check and then resolve somewhere else.
 */
export class TargetPolicy {
  constructor(private readonly allowPrivate: boolean) {}

  /** Checks what can be checked before connecting: the scheme and an IP-literal host. */
  checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TargetForbiddenError(`only http and https URLs can be scraped, not ${url.protocol}`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.isAllowedAddress(host)) {
      throw new TargetForbiddenError(`${host} is a private or reserved address`);
    }
  }

  /**
   * checkUrl plus the resolved addresses of a hostname, for engines that resolve names
   * themselves (Chromium): a check before the fact, as the browser does its own lookups.
   */
  async checkTarget(url: URL): Promise<void> {
    this.checkUrl(url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.allowPrivate || isIP(host)) return;
    await new Promise<void>((resolve, reject) => {
      this.lookup(host, { all: true }, (err) => (err && err instanceof TargetForbiddenError ? reject(err) : resolve()));
    });
  }

  isAllowedAddress(address: string): boolean {
    if (this.allowPrivate) return true;
    if (!ipaddr.isValid(address)) return false;
    let parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    }
    return parsed.range() === 'unicast';
  }

  /** A drop-in for dns.lookup that refuses to hand out a forbidden address. */
  readonly lookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = addresses.filter((a) => this.isAllowedAddress(a.address));
      if (allowed.length === 0) {
        return callback(new TargetForbiddenError(`${hostname} resolves to a private or reserved address`), []);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
