import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Counts of jobs by state, read from the database when Prometheus scrapes (every instance answers the same). */
export type JobCounts = () => Promise<Array<{ kind: string; status: string; count: number }>>;

/** The job engine's Prometheus metrics, on the service's registry (observability/metrics.ts). */
export class JobMetrics {
  private readonly items: Counter<'kind' | 'outcome'>;
  private readonly retries: Counter<'kind'>;
  private readonly itemSeconds: Histogram<'kind'>;
  private readonly jobs: Counter<'kind' | 'outcome'>;

  constructor(registry: Registry, counts?: JobCounts) {
    const registers = [registry];
    this.items = new Counter({ name: 'scrapegate_job_items_total', help: 'Job items finished, by job kind and outcome (done, failed, refused).', labelNames: ['kind', 'outcome'], registers });
    this.retries = new Counter({ name: 'scrapegate_job_item_retries_total', help: 'Job item attempts that failed and were queued again.', labelNames: ['kind'], registers });
    this.itemSeconds = new Histogram({
      name: 'scrapegate_job_item_seconds', help: 'Time of a job item attempt that finished, in seconds.', labelNames: ['kind'], registers,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    });
    this.jobs = new Counter({ name: 'scrapegate_jobs_finished_total', help: 'Jobs finished by this instance, by kind and outcome.', labelNames: ['kind', 'outcome'], registers });
    if (counts) {
      new Gauge({
        name: 'scrapegate_jobs', help: 'Jobs kept, by kind and state (from the database).', labelNames: ['kind', 'status'], registers,
        async collect() {
          this.reset();
          for (const { kind, status, count } of await counts()) this.set({ kind, status }, count);
        },
      });
    }
  }

  itemFinished(kind: string, outcome: 'done' | 'failed' | 'refused', seconds: number): void {
    this.items.inc({ kind, outcome });
    this.itemSeconds.observe({ kind }, seconds);
  }

  itemRetried(kind: string): void {
    this.retries.inc({ kind });
  }

  jobFinished(kind: string, outcome: 'completed' | 'failed' | 'cancelled'): void {
    this.jobs.inc({ kind, outcome });
  }
}
