import { parseIpAddress } from '../net/ip-allow-list.js';
import type { SignInFailuresSql } from '../store/sign-in-failures-sql.js';

/**
 * Whom failures are counted against: an IPv4 client by its address, an IPv6 one by its /64 (one
 * host holds a whole /64, so counting single addresses would count nothing).
 */
export function clientBucket(address: string): string {
  const ip = parseIpAddress(address);
  if (!ip) return address.slice(0, 64);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ip.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

export type Attempt = { allowed: true; succeeded(): Promise<void> } | { allowed: false; retryAfterSeconds: number };

/**
 * Sign-in attempts per client, counted in the database so that every instance sees them. Every
 * attempt is written as a failure before the secret is even looked at, and forgiven only when it
 * succeeds: a burst of parallel guesses is counted as it arrives, not after. Past `maxFailures`
 * within `windowMs` a client is refused, even with the right secret; a refused attempt is not
 * counted, and is told when enough failures will have left the window for the next to be let in.
 * A success forgives only itself (or one valid key would reset a guesser's count).
 */
export class SignInLimit {
  constructor(
    private readonly sql: SignInFailuresSql,
    private readonly options: { maxFailures: number; windowMs: number; now?: () => number },
  ) {}

  async begin(address: string): Promise<Attempt> {
    const now = (this.options.now ?? Date.now)();
    const client = clientBucket(address);
    const since = now - this.options.windowMs;
    const id = await this.sql.record(client, now);
    const count = await this.sql.countSince(client, since);
    if (count <= this.options.maxFailures) return { allowed: true, succeeded: () => this.sql.forgive(id) };
    await this.sql.forgive(id);
    // Of the count - 1 failures before this attempt, all but maxFailures - 1 must leave the window.
    const blocking = await this.sql.atSince(client, since, count - 1 - this.options.maxFailures);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((blocking ?? now) + this.options.windowMs - now) / 1000)) };
  }
}
