import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { AddressPolicy } from '../egress/target-policy/address-policy.js';
import type { OwnPorts } from '../egress/target-policy/own-ports.js';
import { TargetPolicy } from '../egress/target-policy/target-policy.js';
import type { Metrics } from '../observability/metrics.js';
import { WebhookMetrics } from '../observability/webhook-metrics.js';
import type { Database } from '../store/database.js';
import { translated } from '../store/driver-errors.js';
import { KeyJobsSql } from '../store/key-jobs-sql.js';
import { WebhookDeliveriesSql } from '../store/webhook-deliveries-sql.js';
import { WebhookSecretsSql } from '../store/webhook-secrets-sql.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { WebhookDeliverer } from '../webhooks/webhook-deliverer.js';
import { DurableOutbox } from '../webhooks/webhook-outbox.js';
import { WebhookTargets } from '../webhooks/webhook-policy.js';

/** Overrides for tests: a faster look at the outbox. */
export interface WebhookOverrides {
  pollMs?: number;
}

/**
 * The webhooks: the outbox the job engine writes events to (in its transactions), the policy its
 * submissions check webhook URLs with, this instance's deliverer, and the operator's view. The
 * policy is the scrapes' target policy over the same own ports (the API's port included, once it
 * listens), with WEBHOOK_ALLOW_CIDRS as its only allowance: ALLOW_PRIVATE_TARGETS and
 * TARGET_ALLOW_CIDRS open targets to scrapes, never to callbacks.
 */
export function webhookParts(config: Config, with_: { db: Database; ownPorts: OwnPorts; metrics: Metrics; logger: Logger; overrides?: WebhookOverrides }) {
  const { db, metrics, logger } = with_;
  const settings = config.jobs.webhooks;
  const deliveries = translated(new WebhookDeliveriesSql(db));
  const secrets = translated(new WebhookSecretsSql(db));
  const addresses = new AddressPolicy({ allowPrivate: false, allowCidrs: settings.allowCidrs, ownPorts: with_.ownPorts });
  const policy = new WebhookTargets(new TargetPolicy(addresses, undefined, (reason) => metrics.refused(reason)));
  const deliverer = new WebhookDeliverer({
    store: deliveries,
    secrets,
    targets: policy,
    metrics: new WebhookMetrics(metrics.registry),
    scheduleMs: settings.retryScheduleMs,
    timeoutMs: settings.timeoutMs,
    logger,
    pollMs: with_.overrides?.pollMs,
  });
  const wake = () => deliverer.wake();
  return {
    /** jobs/job-ports.ts WebhookOutbox: give it to the job engine. */
    outbox: new DurableOutbox({ store: deliveries, firstAttemptMs: settings.retryScheduleMs[0], wake }),
    /** jobs/job-ports.ts WebhookPolicy: the edge checks a submission's webhook URL with it (WebhookRefusedError → 400). */
    policy,
    admin: new WebhookAdmin({ deliveries, secrets, jobs: translated(new KeyJobsSql(db)), wake, onRotate: () => metrics.adminAction('rotate_webhook') }),
    start: () => deliverer.start(),
    /** Attempts in flight finish (each within WEBHOOK_TIMEOUT_SECONDS); none starts after. */
    stop: () => deliverer.stop(),
  };
}

export type WebhookParts = ReturnType<typeof webhookParts>;
