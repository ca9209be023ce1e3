import { ApiError, BadRequestError, ClientClosedRequestError, ConflictError, ForbiddenError, InternalError, LockedError, NotFoundError, TooManyRequestsError, UnprocessableEntityError } from './api-error.js';
import { InvalidAccountChangeError, KeyNotFoundError, KeyRevokedError, AccountError, SecretReplacedError } from '../../accounts/account-errors.js';
import { BrowserBudgetExceededError, BillingRefusal } from '../../billing/billing-refusals.js';
import { ChargeNotRecordedError } from '../../billing/charge-not-recorded-error.js';
import { StoreUnavailableError } from '../../billing/store-unavailable-error.js';
import { ExtractRulesError } from '../../content/extract/extract-rules-error.js';
import { HtmlWorkBusyError, HtmlWorkTooCostlyError } from '../../content/html-work/html-work-errors.js';
import { FetchError, UnservedValueError } from '../../egress/fetch-errors.js';
import { InvalidSelectorError, PageCrashedError } from '../../engines/engine-errors.js';
import { InvalidActionError } from '../../engines/browser/actions/action-limits.js';
import { AntiBotDetectedError } from '../../scrape/anti-bot-error.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { OUTCOME_STATUS, outcomeOf } from '../../scrape/outcome.js';
import { ShuttingDownError } from '../../scrape/shutting-down-error.js';
import { ClientCancelledError } from '../../time/client-cancelled-error.js';

/** What a caller is told while the database cannot be reached: the one thing to do is retry. */
export const DATABASE_UNAVAILABLE_DETAIL = "The service's database is unavailable; retry shortly.";

/** Where an operation's parameter stands in the request: `['query', 'url']`, `['body', 'browser']`. */
export type ParamLocator = (param: string) => Array<string | number>;

export const inQuery: ParamLocator = (param) => ['query', param];

function invalid(loc: Array<string | number>, msg: string, type: string): UnprocessableEntityError {
  return new UnprocessableEntityError([{ loc, msg, type }]);
}

/** body-parser's errors carry a `type`; these are the caller's fault, not ours. */
function fromBodyParser(err: unknown, maxRequestBodyBytes: number): ApiError | undefined {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new BadRequestError('The request body must be proper JSON.');
  if (type === 'entity.too.large') return invalid(['body'], `the request body exceeds ${maxRequestBodyBytes} bytes`, 'value_error.body.too_large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || type === 'request.size.invalid') return new BadRequestError('The request body could not be read.');
  // A form (the dashboard's) past its parser's parameterLimit.
  if (type === 'parameters.too.many') return new BadRequestError('The request body has too many fields.');
  return undefined;
}

/**
 * The one place where what went wrong becomes an API answer: the status its outcome has
 * (scrape/outcome.ts), the words for it, and for a 422 where the parameter stood (`locate`, from
 * the operation's own document). Undefined: a bug, answered 500 with nothing internal in it.
 */
export function toApiError(err: unknown, locate: ParamLocator, maxRequestBodyBytes: number): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof AccountError) return fromAccount(err, locate);
  if (outcomeOf(err) === 'internal') return fromBodyParser(err, maxRequestBodyBytes);
  const status = OUTCOME_STATUS[outcomeOf(err)];
  if (status === 422) return invalidValue(err, locate);
  if (status === 404) return notFound(err as Error);
  if (err instanceof AntiBotDetectedError) {
    return new LockedError(`The target's anti-bot detection blocked the request (${err.vendor} ${err.wall}). Retry, or change the proxy type or country.`);
  }
  if (err instanceof BillingRefusal) return status === 409 ? new ConflictError(err.message) : status === 429 ? new TooManyRequestsError(err.message, (err as BrowserBudgetExceededError).retryAfterSeconds) : new ForbiddenError(err.message);
  if (err instanceof HtmlWorkBusyError) return new TooManyRequestsError(err.message, err.retryAfterSeconds);
  if (err instanceof ClientCancelledError) return new ClientClosedRequestError(err.message);
  if (err instanceof ChargeNotRecordedError) return new InternalError(err.detail);
  if (err instanceof ShuttingDownError) return new InternalError(err.message);
  if (err instanceof StoreUnavailableError) return new InternalError(DATABASE_UNAVAILABLE_DETAIL);
  if (err instanceof FetchError) return new InternalError('The browser rendering the page failed; the request was not charged. Retry it.');
  return new InternalError();
}

/** The caller's value the service will not act on: each located where the operation takes it. */
function invalidValue(err: unknown, locate: ParamLocator): UnprocessableEntityError {
  if (err instanceof InvalidValueError) {
    return new UnprocessableEntityError(
      err.values.map(({ param, msg, type, place }) => ({ loc: place === 'header' ? ['header', ...(param ? [param] : [])] : locate(param), msg, type })),
    );
  }
  if (err instanceof ExtractRulesError) {
    return new UnprocessableEntityError(err.issues.map(({ path, msg, type }) => ({ loc: [...locate('extract_rules'), ...path], msg, type })));
  }
  if (err instanceof HtmlWorkTooCostlyError) {
    return invalid(locate(err.param), err.message, err.param === 'extract_rules' ? 'value_error.extract_rules.too_costly' : 'value_error.page.too_costly');
  }
  const served = err as UnservedValueError;
  const type =
    err instanceof InvalidSelectorError ? 'value_error.selector' : err instanceof InvalidActionError ? 'value_error.actions' : served.param === 'browser' ? 'value_error.engine_unavailable' : 'value_error.proxy_unavailable';
  return invalid(locate(served.param), served.message, type);
}

/** A target-side failure, in words that say which. */
function notFound(err: Error): NotFoundError {
  const outcome = outcomeOf(err);
  if (outcome === 'timeout') return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof PageCrashedError) return new NotFoundError(`The page crashed the browser's renderer: ${err.message}`);
  if (outcome === 'target_unusable') return new NotFoundError(`The target's answer is not usable: ${err.message}`);
  if (outcome === 'element_not_found') return new NotFoundError(`The element to capture was not found: ${err.message}`);
  return new NotFoundError(`The target could not be reached: ${err.message}`);
}

function fromAccount(err: AccountError, locate: ParamLocator): ApiError {
  if (err instanceof KeyNotFoundError) return new NotFoundError(err.message);
  if (err instanceof KeyRevokedError) return new ConflictError(err.message);
  if (err instanceof SecretReplacedError) return new ForbiddenError(err.message);
  if (err instanceof InvalidAccountChangeError) {
    return new UnprocessableEntityError(err.issues.map(({ field: [name, ...rest], msg, type }) => ({ loc: [...locate(name), ...rest], msg, type })));
  }
  return new InternalError();
}
