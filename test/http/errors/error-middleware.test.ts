import { expect } from 'chai';
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ConflictError, LockedError, TooManyRequestsError, UnprocessableEntityError } from '../../../src/http/errors/api-error.js';
import { BrowserBudgetExceededError, ConcurrencyLimitError, InsufficientCreditsError, InvalidKeyError } from '../../../src/billing/billing-refusals.js';
import { errorMiddleware } from '../../../src/http/errors/error-middleware.js';
import { TargetUnreachableError } from '../../../src/egress/fetch-errors.js';
import { EngineUnavailableError, InvalidSelectorError } from '../../../src/engines/engine-errors.js';
import { InvalidActionError } from '../../../src/engines/browser/actions/action-limits.js';
import { AntiBotDetectedError } from '../../../src/scrape/anti-bot-error.js';
import { InvalidValueError } from '../../../src/scrape/invalid-value-error.js';
import { inQuery, toApiError, type ParamLocator } from '../../../src/http/errors/to-api-error.js';

describe('errorMiddleware', () => {
  async function answer(thrown: unknown): Promise<{ status: number; body: unknown; logged: string }> {
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (s: string) => void lines.push(s) });
    const app = express();
    app.get('/', () => {
      throw thrown;
    });
    app.use(errorMiddleware(logger, 1024));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      return { status: res.status, body: await res.json(), logged: lines.join('') };
    } finally {
      server.close();
    }
  }

  it('answers an ApiError with its status and detail', async () => {
    expect(await answer(new ConflictError('busy'))).to.include({ status: 409 }).and.deep.include({ body: { detail: 'busy' } });
  });

  it('answers anything unexpected with a bare 500 and logs it, leaking nothing', async () => {
    const { status, body, logged } = await answer(new Error('secret db password in /etc/x'));
    expect(status).to.equal(500);
    expect(body).to.deep.equal({ detail: 'Internal server error' });
    expect(logged).to.contain('secret db password');
  });
});

describe('toApiError, the one translation', () => {
  const translate = (err: unknown, locate: ParamLocator = inQuery) => toApiError(err, locate, 1024);
  const v1Post: ParamLocator = (param) => [['url', 'browser', 'x-api-key'].includes(param) ? 'body' : 'query', param];

  it('never makes a target-side failure a 5xx', () => {
    expect(translate(new TargetUnreachableError('refused'))?.status).to.equal(404);
    expect(translate(new AntiBotDetectedError('Cloudflare', 'challenge'))).to.be.instanceOf(LockedError);
    expect(translate(new Error('bug'))).to.equal(undefined);
  });

  it('places an invalid value where the operation declares it: the query, a JSON body, a header', () => {
    const loc = (err: unknown, locate?: ParamLocator) => (translate(err, locate) as UnprocessableEntityError).issues.map((i) => i.loc);
    expect(loc(new EngineUnavailableError('off'))).to.deep.equal([['query', 'browser']]);
    expect(loc(new EngineUnavailableError('off'), v1Post)).to.deep.equal([['body', 'browser']]);
    expect(loc(new InvalidSelectorError('bad'), v1Post)).to.deep.equal([['query', 'wait_for_selector']]);
    expect(toApiError(new InvalidActionError('actions.2.selector', 'action 2: no element matches "#a"'), inQuery, 1)).to.deep.include({ issues: [{ loc: ['query', 'actions.2.selector'], msg: 'action 2: no element matches "#a"', type: 'value_error.actions' }] });
    expect(loc(new InvalidValueError('url', 'refused', 'value_error.url.forbidden'), v1Post)).to.deep.equal([['body', 'url']]);
    expect(loc(new InvalidValueError('svc-X', 'bad', 'value_error.header', 'header'), v1Post)).to.deep.equal([['header', 'svc-X']]);
  });

  it('answers the billing refusals 403, 409 and 429 (with the seconds to wait)', () => {
    expect(translate(new InvalidKeyError())?.status).to.equal(403);
    expect(translate(new InsufficientCreditsError(10, 1, 0))?.status).to.equal(403);
    expect(translate(new ConcurrencyLimitError(1))).to.be.instanceOf(ConflictError);
    const limited = translate(new BrowserBudgetExceededError(100, 120, 42));
    expect(limited).to.be.instanceOf(TooManyRequestsError);
    expect((limited as TooManyRequestsError).retryAfterSeconds).to.equal(42);
  });
});
