import { ApiError, BadRequestError, ClientClosedRequestError, ConflictError, ForbiddenError, InternalError, LockedError, NotFoundError, TooManyRequestsError, UnprocessableEntityError } from './api-error.js';
import { BrowserBudgetExceededError, ConcurrencyLimitError, BillingRefusal } from '../../billing/billing-refusals.js';
import { ChargeNotRecordedError } from '../../billing/charge-not-recorded-error.js';
import { ClientCancelledError } from '../../scrape/client-cancelled-error.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../../store/database-errors.js';
import {
  AntiBotDetectedError,
  BrowserFailureError,
  DeadlineExceededError,
  EngineError,
  EngineUnavailableError,
  ElementNotFoundError,
  InvalidSelectorError,
  PageCrashedError,
  ProxyUnavailableError,
  SelectorTimeoutError,
  TargetUnusableError,
  TargetUnreachableError,
} from '../../engines/engine-errors.js';
import { ExtractRulesError } from '../../content/extract/extract-rules-error.js';
import { HtmlWorkBusyError, HtmlWorkCancelledError, HtmlWorkError, HtmlWorkTooCostlyError } from '../../content/html-work/html-work-errors.js';
import { InvalidAccountChangeError, KeyNotFoundError, KeyRevokedError, AccountError, SecretReplacedError } from '../../accounts/account-errors.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';

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
 * The one place where what went wrong becomes an API answer: its status, and for a 422 where
 * the parameter stood (`locate`, from the operation's own document). A target-side failure is
 * never a 5xx: established clients retry every 5xx, and retrying a dead target only burns their
 * time. Undefined: a bug, answered 500 with nothing internal in it.
 */
export function toApiError(err: unknown, locate: ParamLocator, maxRequestBodyBytes: number): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof InvalidValueError) {
    return new UnprocessableEntityError(
      err.values.map(({ param, msg, type, place }) => ({ loc: place === 'header' ? ['header', ...(param ? [param] : [])] : locate(param), msg, type })),
    );
  }
  if (err instanceof ExtractRulesError) {
    return new UnprocessableEntityError(err.issues.map(({ path, msg, type }) => ({ loc: [...locate('extract_rules'), ...path], msg, type })));
  }
  if (err instanceof HtmlWorkError) return fromHtmlWork(err, locate);
  if (err instanceof AccountError) return fromAccount(err, locate);
  if (err instanceof BillingRefusal) {
    if (err instanceof ConcurrencyLimitError) return new ConflictError(err.message);
    if (err instanceof BrowserBudgetExceededError) return new TooManyRequestsError(err.message, err.retryAfterSeconds);
    return new ForbiddenError(err.message);
  }
  if (err instanceof ChargeNotRecordedError) return new InternalError(err.detail);
  if (err instanceof ClientCancelledError) return new ClientClosedRequestError(err.message);
  if (err instanceof EngineError) return fromEngine(err, locate);
  if (isDatabaseUnavailable(err)) return new DatabaseUnavailableError({ cause: err });
  return fromBodyParser(err, maxRequestBodyBytes);
}

/** A full queue is a 429 to retry; a task past its limits, the caller's page or rules (422); a task dropped, its request's end. */
function fromHtmlWork(err: HtmlWorkError, locate: ParamLocator): ApiError {
  if (err instanceof HtmlWorkBusyError) return new TooManyRequestsError(err.message, err.retryAfterSeconds);
  if (err instanceof HtmlWorkTooCostlyError) {
    const type = err.param === 'extract_rules' ? 'value_error.extract_rules.too_costly' : 'value_error.page.too_costly';
    return invalid(locate(err.param), err.message, type);
  }
  if (err instanceof HtmlWorkCancelledError) return new NotFoundError(`The request timed out: ${err.message}`);
  return new InternalError();
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

function fromEngine(err: EngineError, locate: ParamLocator): ApiError {
  if (err instanceof TargetUnreachableError) return new NotFoundError(`The target could not be reached: ${err.message}`);
  if (err instanceof DeadlineExceededError || err instanceof SelectorTimeoutError) return new NotFoundError(`The request timed out: ${err.message}`);
  if (err instanceof PageCrashedError) return new NotFoundError(`The page crashed the browser's renderer: ${err.message}`);
  if (err instanceof TargetUnusableError) return new NotFoundError(`The target's answer is not usable: ${err.message}`);
  if (err instanceof AntiBotDetectedError) {
    return new LockedError(`The target's anti-bot detection blocked the request (${err.vendor} ${err.wall}). Retry, or change the proxy type or country.`);
  }
  if (err instanceof InvalidSelectorError) return invalid(locate(err.param), err.message, 'value_error.selector');
  if (err instanceof ElementNotFoundError) return new NotFoundError(`The element to capture was not found: ${err.message}`);
  if (err instanceof ProxyUnavailableError) return invalid(locate(err.param), err.message, 'value_error.proxy_unavailable');
  if (err instanceof EngineUnavailableError) return invalid(locate('browser'), err.message, 'value_error.engine_unavailable');
  if (err instanceof BrowserFailureError) return new InternalError('The browser rendering the page failed; the request was not charged. Retry it.');
  return new InternalError();
}
