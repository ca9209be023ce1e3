import { expect } from 'chai';
import { toScrapeRequest, type RequestContext, type ScrapeParams } from '../../../src/http/decode/request-params.js';
import { InvalidValueError } from '../../../src/scrape/invalid-value-error.js';

const CONTEXT: RequestContext = { method: 'GET', body: undefined, forwardFrom: [], timeoutSeconds: 30 };
const actions = (list: unknown[]) => Buffer.from(JSON.stringify(list)).toString('base64');

function refusal(params: Partial<ScrapeParams>): InvalidValueError {
  try {
    toScrapeRequest({ url: 'https://example.com/', browser: true, proxy_type: 'datacenter', ...params } as ScrapeParams, CONTEXT);
  } catch (err) {
    if (err instanceof InvalidValueError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('toScrapeRequest: what the sync API refuses at its edge', () => {
  it('return_page_source with actions: refused by name, before any engine', () => {
    const err = refusal({ return_page_source: true, actions: actions([{ type: 'scrape' }]) });
    expect(err.values[0]).to.deep.include({ param: 'return_page_source', type: 'value_error.actions' });
    expect(err.values[0].msg).to.match(/return_page_source.*actions/);
  });

  it('either alone is a request', () => {
    const base = { url: 'https://example.com/', browser: true, proxy_type: 'datacenter' } as ScrapeParams;
    expect(toScrapeRequest({ ...base, return_page_source: true }, CONTEXT).returnPageSource).to.equal(true);
    expect(toScrapeRequest({ ...base, actions: actions([{ type: 'scrape' }]) }, CONTEXT).actions).to.have.length(1);
  });
});
