import type {
  BillingStore,
  BrowserFailureBudget,
  Debit,
  Discrepancy,
  KeyAccount,
  Lease,
  LedgerBooks,
  LedgerEntry,
  LedgerOutcome,
  ReopenResult,
  Settlement,
} from '../../src/billing/billing-store.js';
import { LedgerRowExistsError } from '../../src/billing/ledger-row-errors.js';
import { StoreUnavailableError } from '../../src/billing/store-unavailable-error.js';

interface FakeKey extends KeyAccount {
  keyHash: string;
}

interface FakeRow {
  requestId: string;
  apiKeyId: number;
  periodEnd: number;
  cost: number;
  browser: boolean;
  startedAt: number;
  reservedAt: number;
  settleLimitMs: number;
  outcome: LedgerOutcome;
  settledBy?: string;
  /** What the settlement recorded: the status answered, why it failed, whether it counted against the budget. */
  settlement?: Settlement;
  countedFailure?: boolean;
}

/**
 * The billing's storage and books in memory, for unit tests of its rules: each method does
 * what the SQL store's statement or procedure does (test/billing/billing.test.ts runs the same
 * rules on both, so the two cannot drift). The database's clock is `clock`; `down` makes every
 * call fail as an unreachable database does, and `loseAnswers` makes a write land and its
 * answer be lost, as a connection cut after the commit does.
 */
export class FakeBillingStore implements BillingStore, LedgerBooks {
  readonly keys = new Map<number, FakeKey>();
  readonly ledger = new Map<string, FakeRow>();
  readonly periods = new Map<string, { apiKeyId: number; periodStart: number; periodEnd: number; creditsTotal: number; creditsRemaining: number }>();
  readonly slots = new Map<string, { leaseId: string; expiresAt: number }>();
  readonly marks = new Map<string, string>();
  down = false;
  loseAnswers = false;
  clock: () => number = Date.now;
  calls: string[] = [];
  private nextId = 1;

  add(keyHash: string, spec: Partial<KeyAccount> & Pick<KeyAccount, 'creditsTotal' | 'periodStart' | 'periodEnd'>): FakeKey {
    const key: FakeKey = {
      id: this.nextId++,
      keyHash,
      prefix: keyHash.slice(0, 10),
      label: null,
      planName: 'test',
      creditsRemaining: spec.creditsTotal,
      maxConcurrency: null,
      allowedIps: [],
      createdAt: spec.periodStart,
      revokedAt: null,
      browserWindowStart: 0,
      browserAttempts: 0,
      browserFailures: 0,
      ...spec,
    };
    this.keys.set(key.id, key);
    return key;
  }

  async reserveByHash(keyHash: string, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry): Promise<boolean> {
    this.enter('reserveByHash');
    const key = this.byHash(keyHash);
    if (!key || key.revokedAt !== null || key.maxConcurrency !== null || key.allowedIps.length > 0 || !(key.periodStart <= debit.at && debit.at < key.periodEnd)) return false;
    return this.answer(() => this.reserve(key, debit, budget, entry));
  }

  async reserveById(apiKeyId: number, periodEnd: number, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry): Promise<boolean> {
    this.enter('reserveById');
    const key = this.keys.get(apiKeyId);
    if (!key || key.periodEnd !== periodEnd || key.revokedAt !== null) return false;
    return this.answer(() => this.reserve(key, debit, budget, entry));
  }

  async charge(requestId: string, settlement: Settlement, windowMs: number): Promise<boolean> {
    this.enter('charge');
    const row = this.ledger.get(requestId);
    if (!row || row.outcome !== 'reserved' || this.clock() - row.reservedAt >= Math.min(windowMs, row.settleLimitMs)) return false;
    return this.answer(() => {
      row.outcome = 'charged';
      row.settledBy = 'request';
      row.settlement = settlement;
      return true;
    });
  }

  async refund(requestId: string, settlement: Settlement, countFailure: boolean, settledBy: 'request' | 'reconcile'): Promise<boolean> {
    this.enter('refund');
    const row = this.ledger.get(requestId);
    if (!row || row.outcome !== 'reserved') return false;
    return this.answer(() => {
      row.outcome = 'refunded';
      row.settledBy = settledBy;
      row.settlement = settlement;
      row.countedFailure = countFailure;
      const key = this.keys.get(row.apiKeyId)!;
      if (key.periodEnd === row.periodEnd) {
        key.creditsRemaining += row.cost;
        if (countFailure && row.browser && key.browserWindowStart <= row.startedAt) key.browserFailures++;
      }
      const closed = this.periods.get(`${row.apiKeyId}|${row.periodEnd}`);
      if (closed) closed.creditsRemaining += row.cost;
      for (const [id, slot] of this.slots) if (slot.leaseId === requestId) this.slots.delete(id);
      return true;
    });
  }

  async reopen(requestId: string, key: { id: number; periodEnd: number }, debit: Debit, entry: LedgerEntry): Promise<ReopenResult> {
    this.enter('reopen');
    const row = this.ledger.get(requestId);
    if (!row) return 'missing';
    if (row.outcome === 'charged') return 'charged';
    return this.answer(() => {
      if (row.outcome === 'reserved') {
        const held = this.keys.get(row.apiKeyId)!;
        if (held.periodEnd === row.periodEnd) held.creditsRemaining += row.cost;
      }
      const current = this.keys.get(key.id);
      if (!current || current.periodEnd !== key.periodEnd || current.revokedAt !== null || current.creditsRemaining < debit.cost) {
        row.outcome = 'refunded';
        return 'insufficient';
      }
      current.creditsRemaining -= debit.cost;
      Object.assign(row, {
        apiKeyId: key.id, periodEnd: key.periodEnd, cost: debit.cost, browser: false, startedAt: debit.at,
        reservedAt: this.clock(), settleLimitMs: entry.settleLimitMs, outcome: 'reserved', settledBy: undefined, settlement: undefined,
      });
      return 'reopened';
    });
  }

  async outcomeOf(requestId: string): Promise<LedgerOutcome | undefined> {
    this.enter('outcomeOf');
    return this.ledger.get(requestId)?.outcome;
  }

  async findKey(keyHash: string): Promise<KeyAccount | undefined> {
    this.enter('findKey');
    const key = this.byHash(keyHash);
    return key ? { ...key } : undefined;
  }

  async rollPeriod(apiKeyId: number, from: number, next: { start: number; end: number }): Promise<void> {
    this.enter('rollPeriod');
    const key = this.keys.get(apiKeyId);
    if (!key || key.periodEnd !== from) return;
    this.periods.set(`${apiKeyId}|${from}`, { apiKeyId, periodStart: key.periodStart, periodEnd: from, creditsTotal: key.creditsTotal, creditsRemaining: key.creditsRemaining });
    Object.assign(key, { periodStart: next.start, periodEnd: next.end, creditsRemaining: key.creditsTotal });
  }

  async takeSlot(lease: Lease, expiresAt: number, now: number): Promise<boolean> {
    this.enter('takeSlot');
    const id = `${lease.apiKeyId}/${lease.slot}`;
    const held = this.slots.get(id);
    if (held && held.expiresAt >= now) return false;
    this.slots.set(id, { leaseId: lease.leaseId, expiresAt });
    return true;
  }

  async releaseSlot(lease: Lease): Promise<void> {
    this.enter('releaseSlot');
    const id = `${lease.apiKeyId}/${lease.slot}`;
    if (this.slots.get(id)?.leaseId === lease.leaseId) this.slots.delete(id);
  }

  async staleReservations(marginMs: number, limit: number): Promise<string[]> {
    this.enter('staleReservations');
    return [...this.ledger.values()]
      .filter((r) => r.outcome === 'reserved' && r.reservedAt + r.settleLimitMs + marginMs < this.clock())
      .slice(0, limit)
      .map((r) => r.requestId);
  }

  async releaseSettledSlots(): Promise<number> {
    let n = 0;
    for (const [id, slot] of this.slots) {
      const row = this.ledger.get(slot.leaseId);
      if (row && row.outcome !== 'reserved') {
        this.slots.delete(id);
        n++;
      }
    }
    return n;
  }

  async rollupDay(): Promise<void> {}

  async prune(): Promise<number> {
    return 0;
  }

  async mark(name: string): Promise<string | undefined> {
    return this.marks.get(name);
  }

  async setMark(name: string, value: string): Promise<void> {
    this.marks.set(name, value);
  }

  async discrepancies(): Promise<Discrepancy[]> {
    const spent = (apiKeyId: number, periodEnd: number) =>
      [...this.ledger.values()].filter((r) => r.apiKeyId === apiKeyId && r.periodEnd === periodEnd && r.outcome !== 'refunded').reduce((a, r) => a + r.cost, 0);
    const periods = [
      ...[...this.keys.values()].map((k) => ({ apiKeyId: k.id, prefix: k.prefix, periodStart: k.periodStart, periodEnd: k.periodEnd, consumed: k.creditsTotal - k.creditsRemaining })),
      ...[...this.periods.values()].map((p) => ({ ...p, prefix: this.keys.get(p.apiKeyId)!.prefix, consumed: p.creditsTotal - p.creditsRemaining })),
    ];
    return periods
      .map(({ apiKeyId, prefix, periodStart, periodEnd, consumed }) => ({ apiKeyId, prefix, periodStart, periodEnd, consumed, ledger: spent(apiKeyId, periodEnd) }))
      .filter((d) => d.consumed !== d.ledger);
  }

  private byHash(keyHash: string): FakeKey | undefined {
    return [...this.keys.values()].find((k) => k.keyHash === keyHash);
  }

  private reserve(key: FakeKey, { cost, budgeted, at }: Debit, { allowance, windowMs }: BrowserFailureBudget, entry: LedgerEntry): boolean {
    if (this.ledger.has(entry.requestId)) throw new LedgerRowExistsError(entry.requestId);
    if (key.creditsRemaining < cost) return false;
    if (budgeted) {
      const expired = key.browserWindowStart <= at - windowMs;
      const within = allowance === 0 || expired || key.browserFailures < allowance || key.browserFailures * 2 < key.browserAttempts;
      if (!within) return false;
      key.browserAttempts = expired ? 1 : key.browserAttempts + 1;
      key.browserFailures = expired ? 0 : key.browserFailures;
      key.browserWindowStart = expired ? at : key.browserWindowStart;
    }
    key.creditsRemaining -= cost;
    this.ledger.set(entry.requestId, {
      requestId: entry.requestId, apiKeyId: key.id, periodEnd: key.periodEnd, cost, browser: budgeted, startedAt: at,
      reservedAt: this.clock(), settleLimitMs: entry.settleLimitMs, outcome: 'reserved',
    });
    return true;
  }

  private enter(call: string): void {
    // As the store's adapters answer for their drivers (store/driver-errors.ts): refused, so it never ran.
    if (this.down) throw new StoreUnavailableError(false, { message: 'connect ECONNREFUSED' });
    this.calls.push(call);
  }

  /** The write lands; with `loseAnswers`, the caller hears only that the connection was lost. */
  private answer<T>(write: () => T): T {
    const result = write();
    if (this.loseAnswers) throw new StoreUnavailableError(true, { message: 'Connection lost: The server closed the connection.' });
    return result;
  }
}
