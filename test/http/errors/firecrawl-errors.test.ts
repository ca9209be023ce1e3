import { expect } from 'chai';
import { BrowserBudgetExceededError, ConcurrencyLimitError, InsufficientCreditsError, InvalidKeyError, IpRestrictedError } from '../../../src/billing/billing-refusals.js';
import { StoreUnavailableError } from '../../../src/billing/store-unavailable-error.js';
import { HtmlWorkBusyError } from '../../../src/content/html-work/html-work-errors.js';
import { DeadlineExceededError, ProxyUnavailableError, TargetUnreachableError } from '../../../src/egress/fetch-errors.js';
import { BadRequestError, MethodNotAllowedError, UnauthorizedError, UnprocessableEntityError } from '../../../src/http/errors/api-error.js';
import { JobsUnavailableError, toFirecrawlError } from '../../../src/http/errors/firecrawl-errors.js';
import { JobNotFoundError, JobRefusedError } from '../../../src/jobs/job-errors.js';
import { AntiBotDetectedError } from '../../../src/scrape/anti-bot-error.js';
import { InvalidValueError } from '../../../src/scrape/invalid-value-error.js';
import { ClientCancelledError } from '../../../src/time/client-cancelled-error.js';

const MAX = 8 * 1024 * 1024;
const map = (err: unknown) => toFirecrawlError(err, MAX);

/** Every outcome in Firecrawl's shape `{success: false, error, code?}`, with the status Firecrawl's clients expect. */
describe('toFirecrawlError: each status, in Firecrawl\'s shape', () => {
  const cases: Array<[string, unknown, number, string]> = [
    ['a bad body', new BadRequestError('The request body must be proper JSON.'), 400, 'BAD_REQUEST'],
    ['an invalid value', new InvalidValueError('formats.0', 'the json format is not supported by this server', 'value_error.not_supported'), 400, 'BAD_REQUEST'],
    ['a proxy type the server lacks', new ProxyUnavailableError('proxy_type', 'no residential proxies are configured'), 400, 'BAD_REQUEST'],
    ['a job refused', new JobRefusedError('no URL'), 400, 'BAD_REQUEST'],
    ['no key', new UnauthorizedError('Unauthorized: send your API key'), 401, 'UNAUTHORIZED'],
    ['a wrong key', new InvalidKeyError(), 401, 'UNAUTHORIZED'],
    ['no credits', new InsufficientCreditsError(1, 0, Date.now()), 402, 'INSUFFICIENT_CREDITS'],
    ['an IP restriction', new IpRestrictedError('203.0.113.9'), 403, 'IP_RESTRICTED'],
    ['a job not found', new JobNotFoundError(), 404, 'NOT_FOUND'],
    ['a job expired', new JobNotFoundError(true), 404, 'NOT_FOUND'],
    ['a target unreachable', new TargetUnreachableError('connection refused'), 404, 'SCRAPE_FAILED'],
    ['a method not allowed', new MethodNotAllowedError(['POST']), 405, 'METHOD_NOT_ALLOWED'],
    ['a timeout', new DeadlineExceededError('the page did not answer within 1 s'), 408, 'SCRAPE_TIMEOUT'],
    ['a wall', new AntiBotDetectedError('cloudflare', 'challenge'), 423, 'SCRAPE_BLOCKED'],
    ['the plan\'s concurrency', new ConcurrencyLimitError(1), 429, 'RATE_LIMIT_EXCEEDED'],
    ['the browser budget', new BrowserBudgetExceededError(10, 10, 120), 429, 'RATE_LIMIT_EXCEEDED'],
    ['the HTML workers full', new HtmlWorkBusyError('all', 3), 429, 'RATE_LIMIT_EXCEEDED'],
    ['the database down', new StoreUnavailableError(false), 500, 'INTERNAL_ERROR'],
    ['no job engine', new JobsUnavailableError(), 503, 'UNAVAILABLE'],
  ];
  for (const [what, err, status, code] of cases) {
    it(`${what}: ${status} ${code}`, () => {
      const found = map(err);
      expect(found?.status).to.equal(status);
      expect(found?.body).to.include({ success: false, code });
      expect(found?.body.error).to.be.a('string').and.not.equal('');
    });
  }

  it('a 400 lists each field found wrong, located in the body', () => {
    const found = map(new UnprocessableEntityError([{ loc: ['body', 'fastMode'], msg: 'extra fields not permitted', type: 'value_error.extra' }, { loc: ['query', 'limit'], msg: 'ensure this value is less than or equal to 1000', type: 'value_error.number.not_le' }]));
    expect(found?.status).to.equal(400);
    expect(found?.body.details).to.deep.equal([{ path: ['fastMode'], message: 'extra fields not permitted' }, { path: ['limit'], message: 'ensure this value is less than or equal to 1000' }]);
    expect(found?.body.error).to.equal('Bad Request: fastMode: extra fields not permitted; limit: ensure this value is less than or equal to 1000');
  });

  it('a body over the limit is a 413', () => {
    const found = map(new UnprocessableEntityError([{ loc: ['body'], msg: 'too large', type: 'value_error.body.too_large' }]));
    expect(found).to.deep.include({ status: 413 });
    expect(found?.body.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('a refused webhook is a 400 naming it', () => {
    const refused = Object.assign(new Error('the webhook URL points to a private address'), { outcome: 'webhook_refused' });
    expect(map(refused)).to.deep.include({ status: 400 });
    expect(map(refused)?.body.details).to.deep.equal([{ path: ['webhook'], message: 'the webhook URL points to a private address' }]);
  });

  it('Retry-After for the limits that lift on their own', () => {
    expect(map(new BrowserBudgetExceededError(10, 10, 120))?.retryAfterSeconds).to.equal(120);
    expect(map(new HtmlWorkBusyError('key', 4))?.retryAfterSeconds).to.equal(4);
  });

  it('a bug is a 500 that says nothing of it; a caller gone is answered nothing', () => {
    const found = map(new TypeError("Cannot read properties of undefined (reading 'secret') at /srv/src/x.ts:12"));
    expect(found?.status).to.equal(500);
    expect(found?.body.error).not.to.match(/secret|x\.ts|TypeError/);
    expect(map(new ClientCancelledError())).to.equal(undefined);
  });
});
