import type { Catalog } from '../config/catalog.js';
import type { Metrics } from '../observability/metrics.js';
import { ApiKeyStore } from '../store/api-key-store.js';
import type { Database } from '../store/database.js';
import { KeyAdminStore } from '../store/key-admin-store.js';
import { UsageReportsSql } from '../store/usage-reports-sql.js';
import { AccountReports } from './account-reports.js';
import { KeyAdmin } from './key-admin.js';

/** The account operations over one database, as the server and the CLI both build them. */
export function accountParts(db: Database, catalog: Catalog, metrics?: Metrics): { admin: KeyAdmin; reports: AccountReports } {
  const store = new KeyAdminStore(db);
  return {
    admin: new KeyAdmin({ keys: new ApiKeyStore(db.knex), store, catalog, onAction: (action) => metrics?.adminAction(action) }),
    reports: new AccountReports({ db, store, usage: new UsageReportsSql(db) }),
  };
}
