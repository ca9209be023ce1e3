/**
 * A 200's charge could not be made durable before the answer: the request is refunded and
 * answered 500 instead. `uncertain`: the database was unreachable throughout, so the charge may
 * have landed after all; the request id is logged for the operator.
 */
export const CHARGE_NOT_RECORDED_DETAIL = "The service could not record this request's charge; it was not charged. Retry it.";
export const CHARGE_UNCERTAIN_DETAIL =
  "The service's database was unavailable while this request's charge was recorded, so it may have been charged (Svc-request-id names it in the ledger). Retry shortly.";

export class ChargeNotRecordedError extends Error {
  readonly outcome = 'charge_not_recorded';
  readonly detail: string;

  constructor(
    readonly requestId: string,
    readonly uncertain: boolean,
  ) {
    super(`the charge of request ${requestId} was not recorded${uncertain ? ' (uncertain: the database was unreachable)' : ''}`);
    this.name = 'ChargeNotRecordedError';
    this.detail = uncertain ? CHARGE_UNCERTAIN_DETAIL : CHARGE_NOT_RECORDED_DETAIL;
  }
}
