import type { WebhookViewPort } from './dashboard-ports.js';
import type { WebhookView } from './pages/webhook-sections.js';

/** What a key page shows of the key's webhooks and jobs: its secret, its last 20 deliveries and jobs. */
export async function webhookView(webhooks: WebhookViewPort, apiKeyId: number): Promise<WebhookView> {
  const [secret, deliveries, jobs] = await Promise.all([webhooks.secret(apiKeyId), webhooks.deliveries(apiKeyId, 20), webhooks.jobs(apiKeyId, 20)]);
  return { secret, deliveries, jobs };
}
