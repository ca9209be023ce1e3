import { InternalError } from '../http/errors/api-error.js';

/** A request still running when the shutdown grace period ended: not charged, safe to retry elsewhere. */
export class ShuttingDownError extends InternalError {
  constructor() {
    super('The server is shutting down and could not finish this request in time; it was not charged. Retry it.');
  }
}
