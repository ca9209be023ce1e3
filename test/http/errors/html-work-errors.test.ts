import { expect } from 'chai';
import { NotFoundError, TooManyRequestsError, UnprocessableEntityError } from '../../../src/http/errors/api-error.js';
import { HtmlWorkBusyError, HtmlWorkCancelledError, HtmlWorkTooCostlyError } from '../../../src/content/html-work/html-work-errors.js';
import { inQuery, toApiError } from '../../../src/http/errors/to-api-error.js';

describe('HTML work errors at the edge', () => {
  it('a full queue is a 429 with its Retry-After, for the key or for everyone', () => {
    const mine = toApiError(new HtmlWorkBusyError('key', 3), inQuery, 0);
    expect(mine).to.be.instanceOf(TooManyRequestsError).and.deep.include({ status: 429, retryAfterSeconds: 3 });
    expect(mine?.message).to.match(/^Too many requests of this key are waiting/);
    expect(toApiError(new HtmlWorkBusyError('all', 1), inQuery, 0)?.message).to.match(/as many pages as it can queue/);
  });

  it('a task past its limits is a 422 at what the caller can change: the rules, else the page', () => {
    const rules = toApiError(new HtmlWorkTooCostlyError('extract_rules', 'applying extract_rules to this page takes longer than 15,000 ms'), inQuery, 0);
    expect(rules).to.be.instanceOf(UnprocessableEntityError);
    expect((rules as UnprocessableEntityError).issues).to.deep.equal([
      { loc: ['query', 'extract_rules'], msg: 'applying extract_rules to this page takes longer than 15,000 ms', type: 'value_error.extract_rules.too_costly' },
    ]);
    const page = toApiError(new HtmlWorkTooCostlyError('url', 'converting this page to Markdown takes more than 1024 MB of memory'), inQuery, 0);
    expect((page as UnprocessableEntityError).issues).to.deep.equal([
      { loc: ['query', 'url'], msg: 'converting this page to Markdown takes more than 1024 MB of memory', type: 'value_error.page.too_costly' },
    ]);
  });

  it('a task dropped because its request ended is the request timing out (404)', () => {
    const dropped = toApiError(new HtmlWorkCancelledError(), inQuery, 0);
    expect(dropped).to.be.instanceOf(NotFoundError);
    expect(dropped?.message).to.equal('The request timed out: the request ended while its page waited to be worked on');
  });
});
