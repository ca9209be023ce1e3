import type { AdminHandler } from '../../routing/operations.js';
import { NotFoundError } from '../../errors/api-error.js';
import { DeliveryNotFoundError } from '../../../webhooks/webhook-errors.js';
import type { DeliveryRecord, KeyJobRecord } from '../../../webhooks/webhook-ports.js';
import type { WebhookAdmin } from '../../../webhooks/webhook-admin.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function deliveryBody(d: DeliveryRecord) {
  return {
    id: d.id,
    job_id: d.jobId,
    event: d.event,
    url: d.url,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_status: d.lastStatus ?? null,
    last_error: d.lastError ?? null,
    created_at: new Date(d.createdAt).toISOString(),
    delivered_at: iso(d.deliveredAt),
  };
}

function jobBody(j: KeyJobRecord) {
  return {
    id: j.id,
    kind: j.kind,
    status: j.status,
    total: j.total,
    done_count: j.doneCount,
    failed_count: j.failedCount,
    credits_used: j.creditsUsed,
    created_at: new Date(j.createdAt).toISOString(),
    expires_at: new Date(j.expiresAt).toISOString(),
  };
}

/** A key's webhook secret, deliveries and jobs; a delivery's replay. Changes are made as `admin`. */
export function adminWebhookHandlers(webhooks: WebhookAdmin): {
  adminGetWebhookSecret: AdminHandler<'adminGetWebhookSecret'>;
  adminRotateWebhookSecret: AdminHandler<'adminRotateWebhookSecret'>;
  adminKeyWebhookDeliveries: AdminHandler<'adminKeyWebhookDeliveries'>;
  adminKeyJobs: AdminHandler<'adminKeyJobs'>;
  adminReplayWebhookDelivery: AdminHandler<'adminReplayWebhookDelivery'>;
} {
  return {
    adminGetWebhookSecret: async ({ path }, _req, res) => {
      const secret = await webhooks.secret(path.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ secret });
    },
    adminRotateWebhookSecret: async ({ path }, _req, res) => {
      const secret = await webhooks.rotate('admin', path.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ secret });
    },
    adminKeyWebhookDeliveries: async ({ path, query }, _req, res) => void res.json({ items: (await webhooks.deliveries(path.id, query.limit)).map(deliveryBody) }),
    adminKeyJobs: async ({ path, query }, _req, res) => void res.json({ items: (await webhooks.jobs(path.id, query.limit)).map(jobBody) }),
    adminReplayWebhookDelivery: async ({ path }, _req, res) => {
      try {
        res.json(deliveryBody(await webhooks.replay(path.id)));
      } catch (err) {
        if (err instanceof DeliveryNotFoundError) throw new NotFoundError(err.message);
        throw err;
      }
    },
  };
}
