import dns from 'node:dns';
import { isIP } from 'node:net';
import { EgressError, TargetForbiddenError } from '../fetch-errors.js';
import { bareHost, defaultPort } from '../host-port.js';
import type { AddressPolicy, Refusal } from './address-policy.js';

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * Which targets scrapegate may reach. The scheme is checked on the URL; everything else on the
 * addresses a name resolves to, once, by scrapegate: the engines then connect to exactly those
 * checked addresses (see EgressContext), so nothing can resolve differently between the check
 * and the connection (DNS rebinding), and no decision is ever made from the hostname's spelling.
 */
export class TargetPolicy {
  constructor(
    readonly addresses: AddressPolicy,
    private readonly lookup: Lookup = systemLookup,
    /** Told of every refusal, by reason (metrics). */
    private readonly onRefusal: (reason: string) => void = () => undefined,
  ) {}

  /** Only http and https, whatever any setting says (no file:, chrome:, data:, javascript: …). */
  checkScheme(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.onRefusal('scheme');
      throw new TargetForbiddenError(`only http and https URLs can be scraped, not ${url.protocol}`);
    }
  }

  /** The scheme, then the host's addresses: what the URL itself would reach. */
  async checkUrl(url: URL): Promise<CheckedAddress[]> {
    this.checkScheme(url);
    return this.resolve(url.hostname, defaultPort(url));
  }

  /** The addresses of `host` that may be connected to on `port`; throws when there are none. */
  async resolve(host: string, port: number): Promise<CheckedAddress[]> {
    const bare = bareHost(host);
    const family = isIP(bare);
    if (family !== 0) {
      const refusal = this.addresses.decide(bare, port);
      if (refusal) {
        this.onRefusal(refusal.reason);
        throw new TargetForbiddenError(refusal.text);
      }
      return [{ address: bare, family: family as 4 | 6 }];
    }
    let found: Array<{ address: string; family: number }>;
    try {
      found = await this.lookup(bare);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAI_AGAIN') throw new EgressError('unreachable', `the host ${bare} could not be resolved right now`, { cause: err });
      throw new EgressError('dns', `the host ${bare} does not resolve`, { cause: err });
    }
    const allowed: CheckedAddress[] = [];
    let firstRefusal: Refusal | undefined;
    for (const a of found) {
      const refusal = this.addresses.decide(a.address, port);
      if (refusal) firstRefusal ??= refusal;
      else allowed.push({ address: a.address, family: a.family === 6 ? 6 : 4 });
    }
    if (allowed.length === 0) {
      if (firstRefusal) {
        this.onRefusal(firstRefusal.reason);
        // Never where the name points: a refusal that named the address would map the
        // operator's internal DNS for anyone who asks.
        throw new TargetForbiddenError(firstRefusal.reason === 'unsafe-port' ? firstRefusal.text : `${bare} is not an allowed target`);
      }
      throw new EgressError('dns', `the host ${bare} does not resolve`);
    }
    return allowed;
  }
}
