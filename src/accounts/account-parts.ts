import type { Catalog } from '../config/catalog.js';
import type { AccountHistoryPort, KeyStorePort } from './account-ports.js';
import { AccountReports } from './account-reports.js';
import type { AuditAction } from './audit-entry.js';
import { KeyAdmin } from './key-admin.js';

/** The account operations over the storage they are given, as the server and the CLI both build them. */
export function accountParts(
  ports: { keys: KeyStorePort; history: AccountHistoryPort },
  catalog: Catalog,
  onAction?: (action: AuditAction) => void,
): { admin: KeyAdmin; reports: AccountReports } {
  return {
    admin: new KeyAdmin({ keys: ports.keys, catalog, onAction }),
    reports: new AccountReports({ keys: ports.keys, history: ports.history }),
  };
}
