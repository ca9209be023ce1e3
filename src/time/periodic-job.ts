/**
 * Work every instance does on a timer of its own (reconciliation, the ledger's upkeep, the
 * dashboard's upkeep, the browser pool's check of its idle sessions), all run one way: once at
 * start, then every `intervalMs`; never two passes at once (a pass due while one runs is
 * skipped); a pass that fails is reported and the next one comes as planned; `stop` waits for the
 * pass in flight. The timer never keeps the process alive.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** `immediately`: the first pass now (else after one interval). */
  start(immediately = true): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runNow(), this.intervalMs);
    this.timer.unref();
    if (immediately) void this.runNow();
  }

  /** One pass now, unless one is running: then that one. Never rejects (a failure is reported). */
  runNow(): Promise<void> {
    this.running ??= this.pass()
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
