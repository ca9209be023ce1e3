import { parseIpAddress } from '../ip/ip-address.js';
import type { SignInFailuresPort } from './account-ports.js';
import type { OperatorAddresses } from './operator-addresses.js';

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

/** Why an attempt is refused, and for how long. */
export interface Refusal {
  waitSeconds: number;
  /**
   * `address`: this client's own failures. `global`: every client's together, and the admin
   * token was never accepted from this one; only the admin token is held back (a key may still
   * sign in to the dashboard).
   */
  scope: 'address' | 'global';
}

export interface SignInLimitOptions {
  /** Failures one client may have within the window. */
  maxFailures: number;
  windowMs: number;
  /** Failures every client together may have within the window before the global limit holds. */
  globalMaxFailures: number;
  now?: () => number;
}

/** Blocked clients remembered in memory; past it the oldest is forgotten (and read again from the database). */
const MAX_REMEMBERED = 10_000;

/**
 * Sign-in attempts, counted in the database so that every instance sees them. A request without
 * a credential is no attempt: it is never counted and costs no query (the caller answers it 401
 * before asking here). An attempt is first admitted or refused without its secret being judged,
 * so that a refusal costs the same, and says the same, for the right secret and a wrong one; a
 * refusal once read is remembered in memory until it ends, so a flood from a blocked client
 * costs no query either. Only then is the secret judged, and only a wrong one written down.
 *
 * Two limits. Past `maxFailures` within `windowMs` a client is refused. Past `globalMaxFailures`
 * from all clients together (a guesser spraying from many addresses) the admin token is judged
 * only from addresses it was accepted from in the last 30 days: the operator's own keep working,
 * while from anywhere else the right token and a wrong one alike wait for the failures to leave
 * the window. Guessing then goes no faster than `globalMaxFailures` a window, however many
 * addresses it comes from, and nothing it sends from a new address is written down.
 *
 * Right secrets are never written: an operator's script making twenty admin calls at once must
 * not look like twenty guesses. A burst of parallel wrong guesses is still bounded: each failure
 * is written, then counted with every failure written before it; one past a limit is taken back
 * and refused.
 */
export class SignInLimit {
  private readonly blockedUntil = new Map<string, number>();
  private globalUntil = 0;
  private globalCount = 0;

  constructor(
    private readonly sql: SignInFailuresPort,
    private readonly operators: OperatorAddresses,
    private readonly options: SignInLimitOptions,
  ) {}

  /** Before the secret is judged: why this client may not try now, or undefined. */
  async admit(address: string): Promise<Refusal | undefined> {
    const now = this.now();
    const client = clientBucket(address);
    return (await this.ownRefusal(client, now)) ?? (await this.globalRefusal(client, now));
  }

  /**
   * A wrong secret: writes the failure and counts it. The failure that reaches a limit is still
   * answered as a failure (undefined: a plain 401); one past it is taken back and refused.
   */
  async failed(address: string): Promise<Refusal | undefined> {
    const now = this.now();
    const client = clientBucket(address);
    const since = now - this.options.windowMs;
    const id = await this.sql.record(client, now);
    const count = await this.sql.countSince(client, since);
    if (count > this.options.maxFailures) {
      await this.sql.forgive(id);
      return this.refuseClient(client, now, count - 1);
    }
    const all = await this.countAll(now);
    if (all >= this.options.globalMaxFailures) {
      this.globalUntil = await this.globalEnd(now, all);
      if (all > this.options.globalMaxFailures && !(await this.operators.has(client))) {
        await this.sql.forgive(id);
        return this.globalRefusalUntil(now);
      }
    }
    return undefined;
  }

  /** The admin token was right from this client: it stays recognised past the global limit. */
  succeeded(address: string): Promise<void> {
    return this.operators.note(clientBucket(address));
  }

  /** Every client's failures in the window as last counted here, and whether the global limit holds now. */
  globalState(): { failures: number; limited: boolean } {
    return { failures: this.globalCount, limited: this.now() < this.globalUntil };
  }

  private async ownRefusal(client: string, now: number): Promise<Refusal | undefined> {
    const until = this.blockedUntil.get(client);
    if (until !== undefined && until > now) return { waitSeconds: seconds(until - now), scope: 'address' };
    this.blockedUntil.delete(client);
    const count = await this.sql.countSince(client, now - this.options.windowMs);
    return count < this.options.maxFailures ? undefined : this.refuseClient(client, now, count);
  }

  private async globalRefusal(client: string, now: number): Promise<Refusal | undefined> {
    if (now >= this.globalUntil) {
      const all = await this.countAll(now);
      if (all < this.options.globalMaxFailures) return undefined;
      this.globalUntil = await this.globalEnd(now, all);
    }
    return (await this.operators.has(client)) ? undefined : this.globalRefusalUntil(now);
  }

  /** Refused until so many of the client's `count` failures have left the window that fewer than the limit remain. */
  private async refuseClient(client: string, now: number, count: number): Promise<Refusal> {
    const { windowMs, maxFailures } = this.options;
    const blocking = await this.sql.atSince(client, now - windowMs, count - maxFailures);
    const until = (blocking ?? now) + windowMs;
    this.remember(client, until);
    return { waitSeconds: seconds(until - now), scope: 'address' };
  }

  private globalRefusalUntil(now: number): Refusal {
    return { waitSeconds: seconds(this.globalUntil - now), scope: 'global' };
  }

  /** Counted up to twice the limit: enough to know when the limit ends, at a bounded cost. */
  private async countAll(now: number): Promise<number> {
    this.globalCount = await this.sql.countAllSince(now - this.options.windowMs, 2 * this.options.globalMaxFailures);
    return this.globalCount;
  }

  /** When fewer than the global limit will remain of `count` failures (sooner when the count was capped: it is read again then). */
  private async globalEnd(now: number, count: number): Promise<number> {
    const { windowMs, globalMaxFailures } = this.options;
    const at = await this.sql.atSinceAll(now - windowMs, count - globalMaxFailures);
    return (at ?? now) + windowMs;
  }

  private remember(client: string, until: number): void {
    this.blockedUntil.delete(client);
    if (this.blockedUntil.size >= MAX_REMEMBERED) this.blockedUntil.delete(this.blockedUntil.keys().next().value as string);
    this.blockedUntil.set(client, until);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
