/** One parameter's value the service will not act on. */
export interface InvalidValue {
  /** The parameter's name as the document spells it, or a forwarded header's name ('' for all of them). */
  param: string;
  msg: string;
  type: string;
  /** Set for a header, which the document may not declare (a forwarded `svc-` header). */
  place?: 'header';
}

/**
 * A caller's parameter holds a value the service will not act on: a URL it does not reach, a
 * cookie it cannot send, a selector Chrome does not take, a key given twice. Raised where that is
 * found, naming the parameter; where the parameter stood (query, body, header) and the 422 are
 * the HTTP edge's (errors/to-api-error.ts).
 */
export class InvalidValueError extends Error {
  readonly outcome = 'invalid_value';
  readonly values: InvalidValue[];

  constructor(param: string, msg: string, type: string, place?: 'header') {
    super(`${param}: ${msg}`);
    this.name = 'InvalidValueError';
    this.values = [{ param, msg, type, place }];
  }

  /** Several parameters at once (each named in the 422). */
  static of(values: InvalidValue[]): InvalidValueError {
    const err = new InvalidValueError(values[0].param, values[0].msg, values[0].type, values[0].place);
    err.values.splice(0, 1, ...values);
    return err;
  }
}
