import type { Knex } from 'knex';
import type { BrowserFailureBudget, Debit, LedgerEntry, Settlement } from '../../billing/billing-store.js';
import { changedRows } from '../changed-rows.js';
import { chargeStatement } from './mysql-batch-procedures.js';
import { MysqlBatcher } from './mysql-batcher.js';
import { budgetBindings } from './budget-bindings.js';

const CHARGE = chargeStatement({ endedAt: '?', status: '?', pageStatus: '?', durationMs: '?', proxyCountry: '?', requestId: '?', windowMs: '?' });

/** The first row's `column` a procedure answers: `[[{ reserved: … }], okPacket]` from mysql2. */
function answer(result: unknown, column: string): unknown {
  const sets = (Array.isArray(result) ? result[0] : []) as unknown[];
  const rows = (Array.isArray(sets) ? sets[0] : []) as Array<Record<string, unknown>>;
  return rows?.[0]?.[column];
}

/** A batch procedure's answer: one '1' or '0' per item, in order. */
function flags(result: unknown, column: string, count: number): boolean[] {
  const text = String(answer(result, column) ?? '');
  if (text.length !== count) throw new Error(`the ledger answered ${text.length} outcomes for a batch of ${count}`);
  return [...text].map((c) => c === '1');
}

/** A statement's own time limit, when its caller gives one (else the connection's default applies). */
function limited(timeoutMs: number | undefined): { timeout?: number } {
  return timeoutMs === undefined ? {} : { timeout: Math.max(1, Math.ceil(timeoutMs)) };
}

type KeyRef = { hash: string } | { id: number; periodEnd: number };

interface Reservation {
  key: KeyRef;
  debit: Debit;
  budget: BrowserFailureBudget;
  entry: LedgerEntry;
}

interface Charge {
  requestId: string;
  s: Settlement;
  windowMs: number;
}

/** Uncapped keys (by hash) before capped ones (by id), each in order: every batch locks keys in one order. */
function keyOrder(a: KeyRef, b: KeyRef): number {
  if ('hash' in a) return 'hash' in b ? (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0) : -1;
  return 'hash' in b ? 1 : a.id - b.id;
}

/**
 * The ledger's writes on MySQL, one round trip each: the reservation and the refund are stored
 * procedures (mysql-procedures.ts), atomic and rolled back whole on any error; the charge is one
 * statement. Reservations and charges arriving together share a round trip and a commit
 * (mysql-batcher.ts). Every time limit is measured on the database's clock.
 */
export class MysqlLedger {
  private readonly reservations: MysqlBatcher<Reservation, boolean>;
  private readonly charges: MysqlBatcher<Charge, boolean>;

  constructor(private readonly knex: Knex) {
    this.reservations = new MysqlBatcher<Reservation, boolean>({
      one: (r, timeoutMs) => this.reserveOne(r, timeoutMs),
      many: async (rs, timeoutMs) => flags(await this.knex.raw('CALL scrapegate_reserve_batch(?)', [JSON.stringify(rs.map(reservationJson))]).options(limited(timeoutMs)), 'reserved', rs.length),
      compare: (a, b) => keyOrder(a.key, b.key),
    });
    this.charges = new MysqlBatcher<Charge, boolean>({
      one: async (c, timeoutMs) => changedRows(await this.knex.raw(CHARGE, [c.s.endedAt, c.s.status, c.s.pageStatus, c.s.durationMs, c.s.proxyCountry, c.requestId, c.windowMs]).options(limited(timeoutMs))) === 1,
      many: async (cs, timeoutMs) => flags(await this.knex.raw('CALL scrapegate_charge_batch(?)', [JSON.stringify(cs.map(chargeJson))]).options(limited(timeoutMs)), 'charged', cs.length),
      compare: (a, b) => (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0),
    });
  }

  reserve(key: KeyRef, debit: Debit, budget: BrowserFailureBudget, entry: LedgerEntry, timeoutMs?: number): Promise<boolean> {
    return this.reservations.submit({ key, debit, budget, entry }, timeoutMs);
  }

  charge(requestId: string, s: Settlement, windowMs: number, timeoutMs: number): Promise<boolean> {
    return this.charges.submit({ requestId, s, windowMs }, timeoutMs);
  }

  async refund(requestId: string, s: Settlement, countFailure: boolean, settledBy: string, timeoutMs?: number): Promise<boolean> {
    const result = await this.knex.raw('CALL scrapegate_refund(?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      requestId, s.endedAt, s.status, s.pageStatus, s.durationMs, s.failure, countFailure ? 1 : 0, settledBy, s.proxyCountry,
    ]).options(limited(timeoutMs));
    return Number(answer(result, 'refunded') ?? 0) === 1;
  }

  private async reserveOne({ key, debit, budget, entry }: Reservation, timeoutMs: number | undefined): Promise<boolean> {
    const b = budgetBindings(debit.at, budget);
    const byHash = 'hash' in key;
    const result = await this.knex.raw('CALL scrapegate_reserve(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      entry.requestId, byHash ? key.hash : null, byHash ? null : key.id, byHash ? null : key.periodEnd,
      debit.cost, debit.budgeted ? 1 : 0, debit.at, b.expired, b.from, b.allowance,
      entry.settleLimitMs, entry.instanceId, entry.operation, entry.engine, entry.proxyType, entry.proxyCountry, entry.targetHost,
    ]).options(limited(timeoutMs));
    return Number(answer(result, 'reserved') ?? 0) === 1;
  }
}

/** One reservation as scrapegate_reserve_batch reads it (mysql-batch-procedures.ts names the fields). */
function reservationJson({ key, debit, budget, entry }: Reservation): Record<string, string | number | null> {
  const b = budgetBindings(debit.at, budget);
  const byHash = 'hash' in key;
  return {
    r: entry.requestId, h: byHash ? key.hash : null, k: byHash ? null : key.id, p: byHash ? null : key.periodEnd,
    c: debit.cost, b: debit.budgeted ? 1 : 0, a: debit.at, e: b.expired, f: b.from, w: b.allowance,
    s: entry.settleLimitMs, i: entry.instanceId, o: entry.operation, g: entry.engine, t: entry.proxyType, y: entry.proxyCountry, n: entry.targetHost,
  };
}

function chargeJson({ requestId, s, windowMs }: Charge): Record<string, string | number | null> {
  return { r: requestId, e: s.endedAt, s: s.status, p: s.pageStatus, d: s.durationMs, y: s.proxyCountry, w: windowMs };
}
