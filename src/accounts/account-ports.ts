import type { AuditEntry, AuditRecord } from './audit-entry.js';
import type { KeyRow } from './key-row.js';

/**
 * The storage the account rules are given (store/ implements each): keys and their changes,
 * what keys did, and the sign-in limit's counts. The rules know no SQL.
 */

export interface NewKey {
  planName: string;
  credits: number;
  maxConcurrency: number | null;
  label?: string;
  /** Addresses and CIDR ranges the key may be used from (any spelling; stored normalized); empty or absent: anywhere. */
  allowedIps?: readonly string[];
}

export interface KeyFilter {
  plan?: string;
  /** A label containing it, or a display prefix starting with it. */
  q?: string;
  revoked?: boolean;
  limit: number;
  /** The previous page's last id: keys come newest first. */
  beforeId?: number;
}

/** The fields an admin change may set. */
export type KeyColumns = Partial<Pick<KeyRow, 'label' | 'plan_name' | 'credits_total' | 'credits_remaining' | 'max_concurrency' | 'allowed_ips' | 'key_hash' | 'key_prefix' | 'previous_key_hash' | 'previous_key_expires_at' | 'revoked_at'>>;

/** A change decided on the key as it stands (held against other changes), with the audit entry that records it; undefined: nothing to change. */
export type Decide<T> = (row: KeyRow) => { set: KeyColumns; audit: Omit<AuditEntry, 'apiKeyId'>; result: T } | undefined;

export type ChangeOutcome<T> = { outcome: 'changed'; row: KeyRow; result: T } | { outcome: 'unchanged'; row: KeyRow } | { outcome: 'missing' };

/** Keys, each change written with its audit entry, or neither. */
export interface KeyStorePort {
  /** A new key; `audit` makes the entry recorded with it. The secret is in the answer, and stored only as its hash. */
  create(spec: NewKey, audit: (row: KeyRow) => AuditEntry): Promise<{ key: string; row: KeyRow }>;
  byId(id: number): Promise<KeyRow | undefined>;
  list(filter: KeyFilter): Promise<KeyRow[]>;
  /** The id of a key given as its secret or its display prefix. */
  idOf(keyOrPrefix: string): Promise<number | undefined>;
  /** `decide` is asked on the key as it stands, held until the change and its entry are written. */
  change<T>(id: number, decide: Decide<T>): Promise<ChangeOutcome<T>>;
}

/** One UTC day of one key, as usage_daily keeps it. */
export interface DayTotals {
  day: string;
  requests: number;
  /** Refusals (not in the ledger, nor in `requests`): 403, 409, 429. */
  refused: number;
  charged: number;
  refunded: number;
  status200: number;
  status403: number;
  status404: number;
  status409: number;
  status422: number;
  status423: number;
  status5xx: number;
  statusOther: number;
  enginePlain: number;
  engineBrowser: number;
  credits: number;
  durationMsTotal: number;
  durationMsP95: number;
}

/** One row of the request ledger. */
export interface LedgerRecord {
  id: number;
  requestId: string;
  startedAt: number;
  endedAt: number | null;
  operation: string;
  engine: string;
  proxyType: string;
  proxyCountry: string | null;
  targetHost: string;
  outcome: string;
  status: number | null;
  pageStatus: number | null;
  cost: number;
  durationMs: number | null;
  failure: string | null;
}

/** What keys did and what was done to them. */
export interface AccountHistoryPort {
  daily(apiKeyId: number, from: string, to: string): Promise<DayTotals[]>;
  requests(apiKeyId: number, page: { limit: number; status?: number; before?: { startedAt: number; id: number } }): Promise<LedgerRecord[]>;
  audit(filter: { apiKeyId?: number; limit: number; beforeId?: number }): Promise<AuditRecord[]>;
}

/** Failed sign-ins (dashboard and admin API) per client, shared by every instance. */
export interface SignInFailuresPort {
  /** The attempt's row (a failure until it is forgiven by `forgive`); its id. */
  record(client: string, at: number): Promise<number>;
  forgive(id: number): Promise<void>;
  countSince(client: string, since: number): Promise<number>;
  /** When the client's `offset`-th failure since `since` (oldest first) happened. */
  atSince(client: string, since: number, offset: number): Promise<number | undefined>;
  /** Failures of every client since `since`, counted up to `cap`. */
  countAllSince(since: number, cap: number): Promise<number>;
  atSinceAll(since: number, offset: number): Promise<number | undefined>;
  pruneBefore(before: number): Promise<number>;
}

/** Where the admin token was accepted from, shared by every instance. */
export interface OperatorAddressesPort {
  note(client: string, at: number): Promise<void>;
  since(since: number, limit: number): Promise<string[]>;
  pruneBefore(before: number): Promise<number>;
}
