import { ApiKeyStore } from './api-key-store.js';
import { SqlLedgerBooks } from './billing/ledger-books-sql.js';
import { SqlBillingStore } from './billing/sql-billing-store.js';
import { DashboardSessionsSql } from './dashboard-sessions-sql.js';
import type { Database } from './database.js';
import { translated } from './driver-errors.js';
import { KeyAdminStore } from './key-admin-store.js';
import { OperatorAddressesSql } from './operator-addresses-sql.js';
import { SignInFailuresSql } from './sign-in-failures-sql.js';
import { UsageRefusalsSql } from './usage-refusals-sql.js';
import { UsageReportsSql } from './usage-reports-sql.js';

/**
 * Every port the service's rules are given, implemented on one database: what the composition
 * roots (the server, the CLI) hand out. Each answers with the ports' errors in place of its
 * driver's (driver-errors.ts).
 */
export function sqlStores(db: Database) {
  return {
    keys: translated(new ApiKeyStore(db.knex)),
    billing: translated(new SqlBillingStore(db)),
    books: translated(new SqlLedgerBooks(db)),
    refusals: translated(new UsageRefusalsSql(db)),
    accountKeys: translated(new KeyAdminStore(db)),
    history: translated(new UsageReportsSql(db)),
    sessions: translated(new DashboardSessionsSql(db)),
    signInFailures: translated(new SignInFailuresSql(db)),
    operators: translated(new OperatorAddressesSql(db)),
  };
}

export type SqlStores = ReturnType<typeof sqlStores>;
