/**
 * The request-body bytes this process may hold at once, across every request. Each request takes
 * what it is about to buffer before reading it (all of a declared Content-Length at once, a
 * chunked body chunk by chunk) and gives it back when its answer is done, so a crowd of callers
 * uploading at once is refused instead of growing the heap without bound.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  /** Whether `bytes` more fit; if so they are taken. */
  tryTake(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  get heldBytes(): number {
    return this.held;
  }
}
