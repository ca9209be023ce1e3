import { KeyNotFoundError } from '../accounts/account-errors.js';
import { DeliveryNotFoundError } from './webhook-errors.js';
import type { DeliveryRecord, DeliveryStorePort, KeyJobRecord, KeyJobsPort, WebhookSecretsPort } from './webhook-ports.js';
import { newWebhookSecret } from './webhook-secret.js';

export interface WebhookAdminOptions {
  deliveries: DeliveryStorePort;
  secrets: WebhookSecretsPort;
  jobs: KeyJobsPort;
  /** This instance's deliverer: a replay is sent at once. */
  wake: () => void;
  /** Every rotation made (the admin actions metric). */
  onRotate?: () => void;
  now?: () => number;
}

const MAX_LIST = 200;

/** What the operator reads and does about a key's webhooks and jobs: the admin API and the dashboard both call these. */
export class WebhookAdmin {
  private readonly now: () => number;

  constructor(private readonly options: WebhookAdminOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The key's signing secret, made the first time it is asked for. */
  async secret(apiKeyId: number): Promise<string> {
    const secret = await this.options.secrets.secretOf(apiKeyId, newWebhookSecret);
    if (secret === undefined) throw new KeyNotFoundError();
    return secret;
  }

  /** A new secret at once: every attempt from now on (retries of earlier events too) is signed with it. Audit-logged. */
  async rotate(actor: string, apiKeyId: number): Promise<string> {
    const secret = newWebhookSecret();
    if (!(await this.options.secrets.rotate({ actor, apiKeyId, secret }))) throw new KeyNotFoundError();
    this.options.onRotate?.();
    return secret;
  }

  async deliveries(apiKeyId: number, limit = 50): Promise<DeliveryRecord[]> {
    const records = await this.options.deliveries.recent(apiKeyId, Math.min(Math.max(1, limit), MAX_LIST));
    if (records === undefined) throw new KeyNotFoundError();
    return records;
  }

  async jobs(apiKeyId: number, limit = 50): Promise<KeyJobRecord[]> {
    const jobs = await this.options.jobs.recent(apiKeyId, Math.min(Math.max(1, limit), MAX_LIST));
    if (jobs === undefined) throw new KeyNotFoundError();
    return jobs;
  }

  /** A new attempt now, with the same webhook-id and body (signed afresh); whatever the delivery's state. */
  async replay(id: string): Promise<DeliveryRecord> {
    const record = await this.options.deliveries.replay(id, this.now());
    if (!record) throw new DeliveryNotFoundError();
    this.options.wake();
    return record;
  }
}
