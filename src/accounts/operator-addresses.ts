import type { OperatorAddressesPort } from './account-ports.js';

/** How long an address the admin token was used from stays recognised. */
export const OPERATOR_ADDRESS_MEMORY_MS = 30 * 86_400_000;
/** Addresses held in memory, the most recent first: an operator has a handful, and only the right token adds one. */
const MAX_KNOWN = 1000;
/** How stale the copy read from the database may be (another instance may have noted an address since). */
const REFRESH_MS = 30_000;
/** An address already noted is written again at most this often (its memory is renewed, not its every use). */
const NOTE_EVERY_MS = 3_600_000;

/**
 * The client addresses (buckets, as sign-in-limit.ts counts them) the admin token was accepted
 * from within the last 30 days, shared by every instance through the database and read from a
 * copy in memory: asking costs nothing per request, however many an attack sends.
 */
export class OperatorAddresses {
  private known = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly noted = new Map<string, number>();

  constructor(
    private readonly sql: OperatorAddressesPort,
    private readonly now: () => number = Date.now,
  ) {}

  async has(client: string): Promise<boolean> {
    if (this.now() - this.readAt > REFRESH_MS) await this.read();
    return this.known.has(client);
  }

  /** The admin token was right from `client`. */
  async note(client: string): Promise<void> {
    const now = this.now();
    if (this.known.size < MAX_KNOWN) this.known.add(client);
    const last = this.noted.get(client);
    if (last !== undefined && now - last < NOTE_EVERY_MS) return;
    this.noted.delete(client);
    if (this.noted.size >= MAX_KNOWN) this.noted.delete(this.noted.keys().next().value as string);
    this.noted.set(client, now);
    await this.sql.note(client, now);
  }

  private read(): Promise<void> {
    this.reading ??= this.sql
      .since(this.now() - OPERATOR_ADDRESS_MEMORY_MS, MAX_KNOWN)
      .then((clients) => {
        this.known = new Set(clients);
        this.readAt = this.now();
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}
