/** One issue in a 422 body, in the FastAPI shape established clients parse. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** Every error the API answers is an ApiError; its status and detail are what the caller sees. */
export abstract class ApiError extends Error {
  abstract readonly status: number;
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
  body(): { detail: string | ValidationIssue[] } {
    return { detail: this.detail };
  }
}

export class BadRequestError extends ApiError {
  readonly status = 400;
}

/** The admin API's bearer token is missing or wrong (the answer says `WWW-Authenticate: Bearer`). */
export class UnauthorizedError extends ApiError {
  readonly status = 401;
}

export class ForbiddenError extends ApiError {
  readonly status = 403;
}

export class NotFoundError extends ApiError {
  readonly status = 404;
}

export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  constructor(readonly allowed: string[]) {
    super(`Method not allowed. This endpoint accepts ${allowed.join(', ')}.`);
  }
}

export class ConflictError extends ApiError {
  readonly status = 409;
}

export class UnprocessableEntityError extends ApiError {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
  override body(): { detail: ValidationIssue[] } {
    return { detail: this.issues };
  }
}

export class LockedError extends ApiError {
  readonly status = 423;
}

/** A limit that lifts on its own: `Retry-After` says when. */
export class TooManyRequestsError extends ApiError {
  readonly status = 429;
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}

/**
 * The caller closed its connection before the answer (nginx's 499): nobody reads this answer; the
 * status is what the ledger records of the request.
 */
export class ClientClosedRequestError extends ApiError {
  readonly status = 499;
}

/** A 500 says only what the caller can act on (retry later); the cause goes to the log. */
export class InternalError extends ApiError {
  readonly status = 500;
  constructor(detail = 'Internal server error') {
    super(detail);
  }
}
