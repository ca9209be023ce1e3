/**
 * A 200's charge could not be made durable before the answer: the request is refunded and
 * answered 500 instead. `uncertain`: the database was unreachable throughout, so the charge may
 * have landed after all; the request id is logged for the operator.
 */
export class ChargeNotRecordedError extends Error {
  readonly detail = "The service could not record this request's charge; it was not charged. Retry it.";

  constructor(
    readonly requestId: string,
    readonly uncertain: boolean,
  ) {
    super(`the charge of request ${requestId} was not recorded${uncertain ? ' (uncertain: the database was unreachable)' : ''}`);
    this.name = 'ChargeNotRecordedError';
  }
}
