import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestStore } from './keys.js';

const run = promisify(execFile);

/** Ledger rows still reserved: neither their request nor reconciliation has settled them yet. */
export async function unsettled(store: TestStore): Promise<number> {
  const row = await store.db.knex('request_ledger').where({ outcome: 'reserved' }).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** `scrapegate billing verify` on the database, as an operator runs it: true when it exits 0, else its output. */
export async function booksBalance(databaseUrl: string): Promise<true | string> {
  try {
    const { stdout } = await run('node', ['scripts/scrapegate.js', 'billing', 'verify'], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    return stdout.includes('The books balance') ? true : stdout;
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return `exit ${failed.code}: ${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
}

export interface ReceivedAnswer {
  status: number;
  requestId?: string;
  cost: number;
}

export interface LedgerRow {
  request_id: string;
  api_key_id: number;
  outcome: string;
  cost: number;
  started_at: number;
  ended_at: number | null;
}

export async function ledgerRows(store: TestStore): Promise<LedgerRow[]> {
  const rows = (await store.db.knex('request_ledger').select('request_id', 'api_key_id', 'outcome', 'cost', 'started_at', 'ended_at')) as LedgerRow[];
  return rows.map((r) => ({ ...r, api_key_id: Number(r.api_key_id), cost: Number(r.cost), started_at: Number(r.started_at), ended_at: r.ended_at === null ? null : Number(r.ended_at) }));
}

/**
 * Each answer a client received against its ledger row: a 200 charged at its `Svc-credits-cost`,
 * anything else refunded (or, refused before billing, no row at all). `uncertain`: requests the
 * server answered 500 because the database stayed out of reach for all of their charge's window
 * (it logs each); their charge may have landed. Returns what disagrees.
 */
export function answersAgainstLedger(answers: ReceivedAnswer[], rows: LedgerRow[], uncertain: ReadonlySet<string> = new Set()): string[] {
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  const wrong: string[] = [];
  for (const a of answers) {
    if (a.requestId === undefined) {
      if (a.status === 200) wrong.push('a 200 without Svc-request-id');
      continue;
    }
    const row = byId.get(a.requestId);
    if (!row) wrong.push(`${a.status} ${a.requestId}: no ledger row`);
    else if (a.status === 200 && (row.outcome !== 'charged' || row.cost !== a.cost)) wrong.push(`200 ${a.requestId} costing ${a.cost}: ${row.outcome} ${row.cost}`);
    else if (a.status !== 200 && row.outcome !== 'refunded' && !(a.status === 500 && uncertain.has(a.requestId))) wrong.push(`${a.status} ${a.requestId}: ${row.outcome}`);
  }
  return wrong;
}

/** The requests a server logged as answered 500 with a charge that may have landed. */
export function uncertainCharges(logs: Array<Record<string, unknown>>): Set<string> {
  return new Set(logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('a charge may have landed')).map((l) => String(l.requestId)));
}
