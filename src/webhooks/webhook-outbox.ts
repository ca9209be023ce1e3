import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { JobEvent, WebhookOutbox } from '../jobs/job-ports.js';
import { subscriberHeaders } from './webhook-headers.js';
import { eventName, webhookPayload } from './webhook-payload.js';
import type { DeliveryStorePort } from './webhook-ports.js';

export interface OutboxOptions {
  store: DeliveryStorePort;
  /** The first attempt's time after the event (WEBHOOK_RETRY_SCHEDULE's first value). */
  firstAttemptMs: number;
  /** This instance's deliverer (WebhookDeliverer.wake). */
  wake: () => void;
  now?: () => number;
}

/**
 * The job engine's outbox: each event a subscription wants becomes one delivery row, written in
 * the engine's transaction, with its webhook-id (`msg_` + a uuid) fixed for every attempt and its
 * body fixed as it will be signed and sent.
 */
export class DurableOutbox implements WebhookOutbox {
  private readonly now: () => number;

  constructor(private readonly options: OutboxOptions) {
    this.now = options.now ?? Date.now;
  }

  async enqueue(event: JobEvent, trx?: Knex.Transaction): Promise<void> {
    if (!event.subscription.events.includes(event.type)) return;
    const id = `msg_${randomUUID()}`;
    const createdAt = this.now();
    await this.options.store.insert(
      {
        id,
        apiKeyId: event.apiKeyId,
        jobId: event.jobId,
        event: eventName(event),
        payload: webhookPayload(event, id),
        url: event.subscription.url,
        headers: subscriberHeaders(event.subscription.headers),
        createdAt,
        nextAttemptAt: createdAt + this.options.firstAttemptMs,
      },
      trx,
    );
  }

  wake(): void {
    this.options.wake();
  }
}
