/** A key and its subscription, as the billing reads it. */
export interface KeyAccount {
  id: number;
  prefix: string;
  label: string | null;
  planName: string;
  creditsTotal: number;
  creditsRemaining: number;
  /** null: no concurrency cap. */
  maxConcurrency: number | null;
  /** The addresses and ranges (normalized CIDRs) the key may be used from; empty: anywhere. */
  allowedIps: string[];
  periodStart: number;
  periodEnd: number;
  createdAt: number;
  revokedAt: number | null;
  /** The key's current failure-budget window: its start, budgeted requests and their uncharged failures. */
  browserWindowStart: number;
  browserAttempts: number;
  browserFailures: number;
}

/** What one request takes: its price, whether it is budgeted (browser-budget.ts), and when it started. */
export interface Debit {
  cost: number;
  /**
   * Counted against the key's failure budget: a browser request, or one whose answer needs HTML
   * work (text, Markdown, extract_rules). The stored columns keep their first name (`browser`,
   * `browser_attempts`, `browser_failures`): they count every budgeted request.
   */
  budgeted: boolean;
  /** Epoch ms: the period and the budget window the debit belongs to. */
  at: number;
}

/** One concurrency slot of a capped key, held by one request's lease. */
export interface Lease {
  apiKeyId: number;
  slot: number;
  leaseId: string;
}

/** The budget of uncharged browser failures per window (see browser-budget.ts). */
export interface BrowserFailureBudget {
  /** Failures a key may always have per window; 0 turns the budget off. */
  allowance: number;
  windowMs: number;
}

/** What a reservation records about its request in the ledger (never a URL's path or query). */
export interface LedgerEntry {
  requestId: string;
  instanceId: string;
  operation: string;
  engine: string;
  proxyType: string;
  proxyCountry: string | null;
  targetHost: string;
  /** After this long (on the database's clock) the row can no longer be charged, and is refunded. */
  settleLimitMs: number;
}

/** How a request ended, as its ledger row keeps it. */
export interface Settlement {
  endedAt: number;
  /** The HTTP status the request was answered with (null: it never was, its instance stopped). */
  status: number | null;
  pageStatus: number | null;
  durationMs: number;
  failure: string | null;
  proxyCountry: string | null;
}

export type LedgerOutcome = 'reserved' | 'charged' | 'refunded';

/** What `reopen` found and did. */
export type ReopenResult = 'reopened' | 'charged' | 'insufficient' | 'missing';

/**
 * The billing's storage: each method one round trip on MySQL (a statement or a procedure), a
 * transaction on SQLite, exact under any concurrency and across processes. The rules of when to
 * call which are the billing's (billing.ts); store/billing/ holds the SQL.
 */
export interface BillingStore {
  /**
   * The hot path's first round trip: authenticates an active, uncapped key with no IP
   * restriction by its hash (a restricted key must be judged first, so it never matches), takes the
   * credits from the period containing `debit.at` (for a browser request, only within the
   * failure budget, counting the attempt) and writes the ledger row, all or nothing. False says
   * only that something did not hold. `timeoutMs` bounds the statement (a frozen server).
   */
  reserveByHash(keyHash: string, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean>;
  /**
   * The same for a capped or IP-restricted key, by its id and the period it must still be in
   * (its caller's address admitted, its slot held).
   */
  reserveById(apiKeyId: number, periodEnd: number, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean>;
  /**
   * The hot path's second round trip: the reserved row becomes charged, only if the database's
   * clock says less than `windowMs` has passed since it was reserved (so a charge still in flight
   * when its request gave up can never land later). True when it was charged by this call.
   * `timeoutMs` bounds the statement, also against a frozen server.
   */
  charge(requestId: string, settlement: Settlement, windowMs: number, timeoutMs: number): Promise<boolean>;
  /**
   * The reserved row becomes refunded and its credits go back into their period, the key's
   * uncharged browser failure counted when `countFailure`, its slot freed; once, whoever calls.
   * True when it was refunded by this call. `timeoutMs` bounds the statement.
   */
  refund(requestId: string, settlement: Settlement, countFailure: boolean, settledBy: 'request' | 'reconcile', timeoutMs?: number): Promise<boolean>;
  /**
   * A job item's next attempt takes its ledger row again (the row's id is the item's): a reserved
   * row left by an attempt that died gives its credits back, then the key is debited anew and the
   * row is reserved again in the key's current period, outside the failure budget. All or nothing,
   * with the row locked. `charged`: the item was already charged, nothing changed.
   */
  reopen(requestId: string, key: { id: number; periodEnd: number }, debit: Debit, entry: LedgerEntry, timeoutMs?: number): Promise<ReopenResult>;
  /** Where a request's row stands (after an answer lost on the way). */
  outcomeOf(requestId: string, timeoutMs: number): Promise<LedgerOutcome | undefined>;
  /** The key hashed `keyHash`, revoked or not; reads only. */
  findKey(keyHash: string): Promise<KeyAccount | undefined>;
  /** Closes the period ending `from` (its balance kept for the books) and opens `next` with a full balance, once. */
  rollPeriod(apiKeyId: number, from: number, next: { start: number; end: number }, at: number): Promise<void>;
  /** Takes `lease.slot` until `expiresAt`: true when it was free, or its holder's lease had expired at `now`. */
  takeSlot(lease: Lease, expiresAt: number, now: number): Promise<boolean>;
  /** Frees the slot, only if `lease` still holds it. `timeoutMs` bounds the statement. */
  releaseSlot(lease: Lease, timeoutMs?: number): Promise<void>;
}

/** A key's period whose credits consumed differ from what its ledger says was spent. */
export interface Discrepancy {
  apiKeyId: number;
  prefix: string;
  periodStart: number;
  periodEnd: number;
  /** Credits the key's balance says were consumed in the period. */
  consumed: number;
  /** The costs of its charged (and still reserved) requests, by the ledger and the daily totals. */
  ledger: number;
}

/** The ledger's upkeep and its books: what reconciliation, retention and `billing verify` need. */
export interface LedgerBooks {
  /** Requests reserved longer ago than their settle limit plus `marginMs`, on the database's clock. */
  staleReservations(marginMs: number, limit: number): Promise<string[]>;
  /**
   * Frees the slots of requests already settled (a release that met an outage), and deletes
   * leases expired more than `expiredForMs` ago (a slot taken by a request that died before its
   * reservation landed): they hold nothing, but an operator counting rows would see them.
   */
  releaseSettledSlots(expiredForMs: number): Promise<number>;
  /** Recomputes one UTC day's per-key totals (`YYYY-MM-DD`) from the ledger. */
  rollupDay(day: string, at: number): Promise<void>;
  /** Deletes up to `limit` settled rows that started before `before`, on days already totalled. */
  prune(before: number, limit: number): Promise<number>;
  /** A named mark of the upkeep (the last day totalled for good). */
  mark(name: string): Promise<string | undefined>;
  setMark(name: string, value: string): Promise<void>;
  /** Every period of every key since the ledger began whose consumption its ledger does not explain. */
  discrepancies(): Promise<Discrepancy[]>;
}
