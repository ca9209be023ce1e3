import type { Logger } from 'pino';
import type { AccountReports } from '../accounts/account-reports.js';
import type { KeyAdmin } from '../accounts/key-admin.js';
import type { Metrics } from '../observability/metrics.js';
import type { DashboardSessions } from './dashboard-sessions.js';
import type { SignInLimit } from '../accounts/sign-in-limit.js';
import type { VisitParts } from './visits.js';
import type { WebhookViewPort } from './dashboard-ports.js';

/** Everything the dashboard uses; it holds no rule of its own about keys (accounts/ does). */
export interface DashboardParts extends VisitParts {
  sessions: DashboardSessions;
  signInLimit: SignInLimit;
  keyAdmin: KeyAdmin;
  reports: AccountReports;
  /** A key's webhook secret, deliveries and jobs. */
  webhooks: WebhookViewPort;
  /** The admin document's validation of an operation (OpenApiRouter.validate): a form's body meets the API's schema. */
  validate(operationId: string, request: { path?: Record<string, string>; body?: unknown }): unknown;
  metrics: Metrics;
  logger: Logger;
  now?: () => number;
}
