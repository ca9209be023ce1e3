import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { BillingRefusal, BrowserBudgetExceededError } from '../../billing/billing-refusals.js';
import { StoreUnavailableError } from '../../billing/store-unavailable-error.js';
import { JobNotFoundError, JobRefusedError } from '../../jobs/job-errors.js';
import { outcomeOf } from '../../scrape/outcome.js';
import { ApiError, ClientClosedRequestError, MethodNotAllowedError, TooManyRequestsError, UnprocessableEntityError, type ValidationIssue } from './api-error.js';
import { inQuery, toApiError } from './to-api-error.js';

/** One field found wrong, as a Firecrawl 400 lists it. */
export interface FirecrawlIssue {
  path: Array<string | number>;
  message: string;
}

/** Firecrawl's error body: `{success: false, error, code?}`, with the fields found wrong on a 400. */
export interface FirecrawlErrorBody {
  success: false;
  error: string;
  code?: string;
  details?: FirecrawlIssue[];
}

export interface FirecrawlErrorAnswer {
  status: number;
  body: FirecrawlErrorBody;
  retryAfterSeconds?: number;
}

/** Batch work asked of a server that runs no job engine. */
export class JobsUnavailableError extends Error {
  readonly outcome = 'jobs_unavailable';
  constructor() {
    super('Batch jobs are not available on this server.');
    this.name = 'JobsUnavailableError';
  }
}

const TOO_LARGE = 'value_error.body.too_large';

function answer(status: number, error: string, code?: string, details?: FirecrawlIssue[]): FirecrawlErrorAnswer {
  return { status, body: { success: false, error, ...(code ? { code } : {}), ...(details ? { details } : {}) } };
}

/** Where a field stood, as Firecrawl says it: inside the body, without the `body`/`query` prefix. */
function issue({ loc, msg }: ValidationIssue): FirecrawlIssue {
  const path = loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'path' || loc[0] === 'header' ? loc.slice(1) : loc;
  return { path, message: msg };
}

function badRequest(issues: ValidationIssue[]): FirecrawlErrorAnswer {
  const details = issues.map(issue);
  const said = details.map((d) => (d.path.length > 0 ? `${d.path.join('.')}: ${d.message}` : d.message)).join('; ');
  return answer(400, `Bad Request: ${said}`, 'BAD_REQUEST', details);
}

/** A refusal of the key or its plan, in Firecrawl's statuses (401, 402, 403, 429). */
function fromBilling(err: BillingRefusal): FirecrawlErrorAnswer {
  switch (err.outcome) {
    case 'invalid_key':
      return answer(401, 'Unauthorized: Invalid token', 'UNAUTHORIZED');
    case 'ip_restricted':
      return answer(403, err.message, 'IP_RESTRICTED');
    case 'out_of_credits':
      return answer(402, err.message, 'INSUFFICIENT_CREDITS');
    case 'budget_exceeded':
      return { ...answer(429, err.message, 'RATE_LIMIT_EXCEEDED'), retryAfterSeconds: (err as BrowserBudgetExceededError).retryAfterSeconds };
    default:
      return answer(429, err.message, 'RATE_LIMIT_EXCEEDED');
  }
}

/**
 * What went wrong, as Firecrawl's clients read it: the status Firecrawl gives it and its body.
 * The Firecrawl dialect's refusals (the key, the plan, a job) are mapped here; everything else
 * goes through the service's own mapping (to-api-error.ts) and is reshaped, its status kept
 * except where Firecrawl says otherwise: an invalid value is a 400, a timeout a 408. Undefined:
 * the caller has gone, nobody to answer.
 */
export function toFirecrawlError(err: unknown, maxBodyBytes: number): FirecrawlErrorAnswer | undefined {
  if (err instanceof BillingRefusal) return fromBilling(err);
  if (err instanceof JobNotFoundError) return answer(404, err.message, 'NOT_FOUND');
  if (err instanceof JobRefusedError) return answer(400, err.message, 'BAD_REQUEST');
  if (err instanceof JobsUnavailableError) return answer(503, err.message, 'UNAVAILABLE');
  const outcome = (err as { outcome?: unknown } | null)?.outcome;
  if (outcome === 'webhook_refused') return answer(400, `Bad Request: webhook: ${(err as Error).message}`, 'BAD_REQUEST', [{ path: ['webhook'], message: (err as Error).message }]);
  if (outcomeOf(err) === 'timeout') return answer(408, `The scrape timed out: ${(err as Error).message}`, 'SCRAPE_TIMEOUT');
  const translated = toApiError(err, inQuery, maxBodyBytes);
  if (translated instanceof ClientClosedRequestError) return undefined;
  if (translated instanceof UnprocessableEntityError) {
    if (translated.issues.some((i) => i.type === TOO_LARGE)) return answer(413, `Payload Too Large: the body may have at most ${maxBodyBytes} bytes`, 'PAYLOAD_TOO_LARGE');
    return badRequest(translated.issues);
  }
  if (translated === undefined) return answer(500, 'An unexpected error occurred; nothing was charged. Retry later.', 'INTERNAL_ERROR');
  return fromApiError(translated);
}

function fromApiError(err: ApiError): FirecrawlErrorAnswer {
  const codes: Record<number, string> = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'SCRAPE_FAILED', 405: 'METHOD_NOT_ALLOWED', 409: 'RATE_LIMIT_EXCEEDED', 423: 'SCRAPE_BLOCKED', 429: 'RATE_LIMIT_EXCEEDED', 500: 'INTERNAL_ERROR' };
  // A plan's concurrency, refused: Firecrawl's clients know it as a 429.
  const status = err.status === 409 ? 429 : err.status;
  const result = answer(status, err.detail, codes[err.status]);
  return err instanceof TooManyRequestsError ? { ...result, retryAfterSeconds: err.retryAfterSeconds } : result;
}

/** The Firecrawl routes' one error answer; the cause of a 500 goes to the log, never to the caller. */
export function firecrawlErrorMiddleware(logger: Logger, maxBodyBytes: number): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const found = toFirecrawlError(err, maxBodyBytes);
    if (found === undefined) {
      res.destroy();
      return;
    }
    if (found.status >= 500) {
      const what = err instanceof StoreUnavailableError ? 'database unavailable' : 'failure inside the service';
      logger.error({ err, method: req.method, path: req.path }, what);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof MethodNotAllowedError) res.setHeader('Allow', err.allowed.join(', '));
    if (found.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    if (found.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(found.retryAfterSeconds));
    res.status(found.status).json(found.body);
  };
}
