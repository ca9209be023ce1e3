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

/**
 * Sign-in attempts per client, counted in the database so that every instance sees them. The
 * secret is judged first; only a wrong one is written down. Past `maxFailures` wrong ones within
 * `windowMs` a client is refused, even with the right secret, and told when enough failures will
 * have left the window for it to be let in again. A refused attempt is not counted.
 *
 * Right secrets are never written, not even for a moment: an operator's script making twenty
 * admin calls at once from one address must not look like twenty guesses. A burst of parallel
 * wrong guesses is still bounded: each failure is written, then counted with every failure
 * written before it, so at most `maxFailures` of them are answered as plain failures; and a
 * right secret sent in the burst is let in only if fewer than `maxFailures` were written before
 * its own count.
 */
export class SignInLimit {
  constructor(
    private readonly sql: SignInFailuresSql,
    private readonly options: { maxFailures: number; windowMs: number; now?: () => number },
  ) {}

  /** For a right secret: the seconds the client must still wait, or undefined if it may sign in. */
  async blocked(address: string): Promise<number | undefined> {
    const now = this.now();
    const client = clientBucket(address);
    const count = await this.sql.countSince(client, now - this.options.windowMs);
    return count < this.options.maxFailures ? undefined : this.wait(client, now, count);
  }

  /**
   * For a wrong secret: writes the failure and answers as blocked() would for the next attempt,
   * except that the failure that crosses the limit is answered as a failure (401), not yet 429.
   */
  async failed(address: string): Promise<number | undefined> {
    const now = this.now();
    const client = clientBucket(address);
    const id = await this.sql.record(client, now);
    const count = await this.sql.countSince(client, now - this.options.windowMs);
    if (count <= this.options.maxFailures) return undefined;
    await this.sql.forgive(id);
    return this.wait(client, now, count - 1);
  }

  /** Until so many of the client's `count` failures have left the window that fewer than the limit remain. */
  private async wait(client: string, now: number, count: number): Promise<number> {
    const { windowMs, maxFailures } = this.options;
    const blocking = await this.sql.atSince(client, now - windowMs, count - maxFailures);
    return Math.max(1, Math.ceil(((blocking ?? now) + windowMs - now) / 1000));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
