import type { AdminOperationHandlers } from '../../routing/operations.js';
import type { AccountReports } from '../../../accounts/account-reports.js';
import type { KeyAdmin } from '../../../accounts/key-admin.js';
import { adminKeyHandlers } from './admin-keys.js';
import { adminReportHandlers } from './admin-reports.js';

/** Every operationId of the admin document and the handler that answers it. */
export function adminHandlers(admin: KeyAdmin, reports: AccountReports): AdminOperationHandlers {
  return { ...adminKeyHandlers(admin), ...adminReportHandlers(reports, admin.catalog) };
}
