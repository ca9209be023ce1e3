import { Counter, Histogram, type Registry } from 'prom-client';

/** What one attempt ended in: delivered (2xx), failed with retries left, stopped (410), or failed with the schedule exhausted. */
export type AttemptOutcome = 'delivered' | 'failed_attempt' | 'stopped' | 'exhausted';

/** Webhook delivery metrics, on the service's registry (observability/metrics.ts). */
export class WebhookMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly seconds: Histogram<'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'scrapegate_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered: 2xx; failed_attempt: retried later; stopped: 410; exhausted: the last attempt of the schedule failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.seconds = new Histogram({
      name: 'scrapegate_webhook_attempt_duration_seconds',
      help: 'Time one webhook attempt took, from the check of its URL to its answer or failure, by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
  }

  attempted(outcome: AttemptOutcome, seconds: number): void {
    this.attempts.inc({ outcome });
    this.seconds.observe({ outcome }, seconds);
  }
}
