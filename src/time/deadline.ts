/** One point in time by which a whole request must be answered, shared by every step of it. */
export class Deadline {
  readonly at: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly budgetMs: number) {
    this.at = Date.now() + budgetMs;
    this.timer = setTimeout(() => this.controller.abort(new Error('deadline passed')), budgetMs);
    this.timer.unref();
  }

  remainingMs(): number {
    return Math.max(0, this.at - Date.now());
  }

  get expired(): boolean {
    return this.remainingMs() === 0;
  }

  /** Aborts when the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
