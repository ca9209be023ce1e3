/** A request still running when the shutdown grace period ended: not charged, safe to retry elsewhere. */
export class ShuttingDownError extends Error {
  readonly outcome = 'shutting_down';

  constructor() {
    super('The server is shutting down and could not finish this request in time; it was not charged. Retry it.');
    this.name = 'ShuttingDownError';
  }
}
