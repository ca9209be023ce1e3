export interface SyncDemandOptions {
  /** Background work starts only after this long without a synchronous request in flight. */
  quietMs: number;
  /** While synchronous requests keep coming, one waiting piece of background work starts this often. */
  trickleMs: number;
}

const DEFAULTS: SyncDemandOptions = { quietMs: 50, trickleMs: 1_000 };

/**
 * Synchronous requests before background work (job items), on this instance's CPU. A caller
 * waits on a synchronous request; nobody waits on one batch item. Plain items share the CPU with
 * plain requests (the browser pool's share is kept by its own split), so a job worker asks for its
 * turn before it takes an item: at once when no synchronous request is in flight, else once none
 * has been for `quietMs` (a sequential client's gaps between requests are not quiet). So a batch
 * never starves under a steady synchronous load, one waiting item starts every `trickleMs` anyway.
 */
export class SyncDemand {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  private quiet: NodeJS.Timeout | undefined;
  private trickle: NodeJS.Timeout | undefined;
  private lastEnd = 0;
  private readonly options: SyncDemandOptions;

  constructor(options: Partial<SyncDemandOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Synchronous requests in flight now. */
  get busy(): number {
    return this.inFlight;
  }

  /** A synchronous request begins: call what this answers when it ends (once; later calls do nothing). */
  begin(): () => void {
    this.inFlight++;
    clearTimeout(this.quiet);
    this.quiet = undefined;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.lastEnd = Date.now();
      if (this.inFlight === 0 && this.waiting.length > 0) this.releaseWhenQuiet();
    };
  }

  /** Resolves when background work may start (`stop` aborted: at once). */
  turn(stop?: AbortSignal): Promise<void> {
    if (stop?.aborted || (this.inFlight === 0 && Date.now() - this.lastEnd >= this.options.quietMs)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const go = () => {
        stop?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        go();
      };
      stop?.addEventListener('abort', abort, { once: true });
      this.waiting.push(go);
      if (this.inFlight === 0) this.releaseWhenQuiet();
      this.armTrickle();
    });
  }

  private releaseWhenQuiet(): void {
    if (this.quiet) return;
    this.quiet = setTimeout(() => {
      this.quiet = undefined;
      if (this.inFlight > 0) return;
      clearTimeout(this.trickle);
      this.trickle = undefined;
      for (const go of this.waiting.splice(0)) go();
    }, Math.max(0, this.options.quietMs - (Date.now() - this.lastEnd)));
    this.quiet.unref();
  }

  private armTrickle(): void {
    if (this.trickle) return;
    this.trickle = setTimeout(() => {
      this.trickle = undefined;
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.armTrickle();
    }, this.options.trickleMs);
    this.trickle.unref();
  }
}
