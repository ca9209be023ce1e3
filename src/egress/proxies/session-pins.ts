/** Bounded so that a caller cycling through session ids costs at most this many small entries. */
const MAX_PINS = 100_000;

interface Pin {
  exit: string;
  expires: number;
}

/**
 * This instance's memory of sessions that left their rendezvous exit because it failed: without
 * it, a session would return to the failed exit as soon as its cool-down ended. A pin lives
 * `ttlMs` past the session's last request. Sessions that never moved need no entry: the
 * rendezvous order finds their exit again on any instance.
 */
export class SessionPins {
  /** Session name (sticky-session.ts) → pin, in order of last use: with one TTL for all, also the order they expire in. */
  private readonly pins = new Map<string, Pin>();

  constructor(
    readonly ttlMs: number,
    private readonly max = MAX_PINS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The exit the session was moved to, if it still holds; a request of the session keeps it alive. */
  touch(session: string): string | undefined {
    const pin = this.pins.get(session);
    if (!pin) return undefined;
    this.pins.delete(session);
    if (pin.expires <= this.now()) return undefined;
    this.remember(session, pin.exit);
    return pin.exit;
  }

  pin(session: string, exit: string): void {
    this.pins.delete(session);
    this.remember(session, exit);
  }

  /** The session is back on its rendezvous exit: nothing to remember. */
  unpin(session: string): void {
    this.pins.delete(session);
  }

  get size(): number {
    return this.pins.size;
  }

  private remember(session: string, exit: string): void {
    const now = this.now();
    this.pins.set(session, { exit, expires: now + this.ttlMs });
    for (const [oldest, pin] of this.pins) {
      if (this.pins.size <= this.max && pin.expires > now) break;
      this.pins.delete(oldest);
    }
  }
}
