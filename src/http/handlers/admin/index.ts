import type { AdminOperationHandlers } from '../../routing/operations.js';
import type { AccountReports } from '../../../accounts/account-reports.js';
import type { KeyAdmin } from '../../../accounts/key-admin.js';
import type { WebhookAdmin } from '../../../webhooks/webhook-admin.js';
import { adminKeyHandlers } from './admin-keys.js';
import { adminReportHandlers } from './admin-reports.js';
import { adminWebhookHandlers } from './admin-webhooks.js';

/** Every operationId of the admin document and the handler that answers it. */
export function adminHandlers(admin: KeyAdmin, reports: AccountReports, webhooks: WebhookAdmin): AdminOperationHandlers {
  return { ...adminKeyHandlers(admin), ...adminReportHandlers(reports, admin.catalog), ...adminWebhookHandlers(webhooks) };
}
