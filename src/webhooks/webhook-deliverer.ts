import type { Logger } from 'pino';
import type { AttemptOutcome, WebhookMetrics } from '../observability/webhook-metrics.js';
import { PeriodicJob } from '../time/periodic-job.js';
import { withinMs } from '../time/time-limit.js';
import { nextAttemptAt, retryAfterMs } from './retry-plan.js';
import { attemptHeaders } from './webhook-headers.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryStorePort, WebhookSecretsPort } from './webhook-ports.js';
import { newWebhookSecret } from './webhook-secret.js';
import { AttemptFailedError, sendAttempt } from './webhook-sender.js';
import { signedHeaders } from './webhook-signature.js';
import type { WebhookTargets } from './webhook-policy.js';

export interface DelivererOptions {
  store: DeliveryStorePort;
  secrets: WebhookSecretsPort;
  targets: Pick<WebhookTargets, 'resolve'>;
  metrics?: WebhookMetrics;
  /** Each attempt's time after the event (WEBHOOK_RETRY_SCHEDULE); its length is the number of attempts. */
  scheduleMs: readonly number[];
  timeoutMs: number;
  logger: Pick<Logger, 'warn'>;
  /** How often the outbox is looked at when nothing wakes the deliverer (deliveries other instances recorded, retries come due). */
  pollMs?: number;
  /** Attempts this instance makes at once. */
  maxInFlight?: number;
  now?: () => number;
  random?: () => number;
  send?: typeof sendAttempt;
}

/** Finished deliveries are kept this long for the operator (and replay), then pruned. */
export const DELIVERY_RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 1_000;

/** What is kept of an error in the row: short, one line. */
const errorText = (text: string) => text.replace(/\s+/g, ' ').slice(0, 300);

/**
 * Sends the outbox's due deliveries, on every instance. Each is claimed by a conditional update
 * with a lease long past the attempt's own timeout, so two deliverers never send one attempt at
 * once, and a deliverer that dies mid-attempt leaves it to another once the lease ends (the
 * receiver may then get the attempt twice, with the same webhook-id: delivery is at least once).
 */
export class WebhookDeliverer {
  private readonly job: PeriodicJob;
  private readonly pruning: PeriodicJob;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly now: () => number;
  private readonly maxInFlight: number;
  private readonly leaseMs: number;
  private again = false;
  private stopping = false;

  constructor(private readonly options: DelivererOptions) {
    this.now = options.now ?? Date.now;
    this.maxInFlight = options.maxInFlight ?? 16;
    this.leaseMs = options.timeoutMs * 2 + 30_000;
    this.job = new PeriodicJob(() => this.pass(), options.pollMs ?? 1_000, (err) => options.logger.warn({ err }, 'webhook deliveries could not be read; trying again'));
    this.pruning = new PeriodicJob(() => this.prune(), PRUNE_EVERY_MS, (err) => options.logger.warn({ err }, 'old webhook deliveries could not be pruned; trying again'));
  }

  start(): void {
    this.stopping = false;
    this.job.start();
    this.pruning.start();
  }

  /** Looks at the outbox now (deliveries were just recorded or replayed). */
  wake(): void {
    if (this.stopping) return;
    this.again = true;
    void this.job.runNow();
  }

  /** No new attempt starts; those in flight finish (each within its timeout) and are recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.job.stop();
    await this.pruning.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async pass(): Promise<void> {
    do {
      this.again = false;
      const room = this.maxInFlight - this.inFlight.size;
      if (this.stopping || room <= 0) return;
      const claimed = await this.options.store.claimDue(this.now(), this.leaseMs, room);
      for (const delivery of claimed) {
        const attempt = this.attempt(delivery).finally(() => {
          this.inFlight.delete(attempt);
          // A slot is free: more may be due.
          if (claimed.length === room) this.wake();
        });
        this.inFlight.add(attempt);
      }
    } while (this.again && !this.stopping);
  }

  /** Every instance prunes; each pass deletes a bounded batch until none is left. */
  private async prune(): Promise<void> {
    while (!this.stopping && (await this.options.store.prune(this.now() - DELIVERY_RETENTION_MS, PRUNE_BATCH)) === PRUNE_BATCH);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const started = this.now();
    let secret: string | undefined;
    try {
      secret = await this.options.secrets.secretOf(delivery.apiKeyId, newWebhookSecret);
    } catch (err) {
      // The database failed before anything was sent: the attempt was not made, and is given back.
      this.options.logger.warn({ err, webhookId: delivery.id }, 'a webhook attempt could not start; it is given back');
      await this.options.store.release(delivery.id, delivery.claimToken).catch(() => undefined);
      return;
    }
    let record: AttemptRecord;
    let outcome: AttemptOutcome;
    try {
      const sent = await this.send(delivery, secret);
      if (sent.status >= 200 && sent.status < 300) {
        record = { state: 'delivered', status: sent.status };
        outcome = 'delivered';
      } else if (sent.status === 410) {
        record = { state: 'stopped', status: 410, error: 'the receiver answered 410 Gone: no more attempts' };
        outcome = 'stopped';
      } else {
        const why = sent.status >= 300 && sent.status < 400 ? `the receiver answered ${sent.status} (redirects are not followed)` : `the receiver answered ${sent.status}`;
        [record, outcome] = this.failed(delivery, sent.status, why, retryAfterMs(sent.retryAfter, this.now()));
      }
    } catch (err) {
      [record, outcome] = this.failed(delivery, undefined, err instanceof Error ? err.message : String(err), undefined);
    }
    this.options.metrics?.attempted(outcome, (this.now() - started) / 1000);
    const kept = await this.options.store.finish(delivery.id, delivery.claimToken, record, this.now()).catch((err: unknown) => {
      this.options.logger.warn({ err, webhookId: delivery.id }, 'a webhook attempt could not be recorded; it runs again once its lease ends');
      return true;
    });
    if (!kept) this.options.logger.warn({ webhookId: delivery.id }, 'a webhook attempt outlived its lease; another instance may have sent it again');
  }

  private failed(delivery: ClaimedDelivery, status: number | undefined, why: string, retryAfter: number | undefined): [AttemptRecord, AttemptOutcome] {
    const error = errorText(why);
    const next = nextAttemptAt(this.options.scheduleMs, delivery.attempts, delivery.createdAt, this.now(), retryAfter, this.options.random);
    if (next === undefined) return [{ state: 'failed', status, error }, 'exhausted'];
    return [{ state: 'pending', nextAttemptAt: next, status, error }, 'failed_attempt'];
  }

  private async send(delivery: ClaimedDelivery, secret: string | undefined) {
    const { timeoutMs } = this.options;
    if (secret === undefined) throw new AttemptFailedError('no_key', 'the key no longer exists');
    const target = await withinMs(this.options.targets.resolve(delivery.url), timeoutMs, () => new AttemptFailedError('timeout', `the webhook host did not resolve within ${timeoutMs} ms`));
    const signed = signedHeaders(secret, delivery.id, Math.floor(this.now() / 1000), delivery.payload);
    const headers = attemptHeaders(delivery.headers, signed, Buffer.byteLength(delivery.payload));
    return (this.options.send ?? sendAttempt)(target, headers, delivery.payload, timeoutMs);
  }
}
