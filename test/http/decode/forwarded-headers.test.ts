import { expect } from 'chai';
import { UnprocessableEntityError } from '../../../src/http/errors/api-error.js';
import { inQuery, toApiError } from '../../../src/http/errors/to-api-error.js';
import { forwardedHeaders } from '../../../src/http/decode/forwarded-headers.js';

describe('forwardedHeaders', () => {
  it('forwards only svc- headers, prefix removed, name case kept', () => {
    const out = forwardedHeaders(['svc-Content-Type', 'application/json', 'Accept', 'text/html', 'SVC-X-Trace', '7']);
    expect(out.headers).to.deep.equal({ 'Content-Type': 'application/json', 'X-Trace': '7' });
  });

  it('never forwards hop-by-hop headers, Host, Content-Length or the API key', () => {
    const names = ['Connection', 'Keep-Alive', 'Transfer-Encoding', 'Upgrade', 'Host', 'Content-Length', 'x-api-key', 'TE', 'Proxy-Authorization'];
    const raw = names.flatMap((n) => [`svc-${n}`, 'v']);
    expect(forwardedHeaders(raw).headers).to.deep.equal({});
  });

  it('turns a forwarded Cookie header into cookies', () => {
    expect(forwardedHeaders(['svc-Cookie', 'a=1; b=2']).cookies).to.deep.equal([
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
  });

  it('refuses values a target could be attacked with, too many headers and too long ones (422)', () => {
    const issue = (raw: string[]) => {
      try {
        forwardedHeaders(raw);
      } catch (err) {
        // Raised naming the header; placed (and made a 422) by the one translation at the edge.
        const answer = toApiError(err, inQuery, 0);
        if (answer instanceof UnprocessableEntityError) return answer.issues[0];
        throw err;
      }
      return undefined;
    };
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\u0000b', 'caf\u00e9', 'a\u007fb']) {
      expect(issue(['svc-X-Test', value]), JSON.stringify(value)).to.deep.include({ loc: ['header', 'svc-X-Test'], type: 'value_error.header' });
    }
    expect(issue(['svc-Cookie', 'a=b\r\nc=d'])?.loc).to.deep.equal(['header', 'svc-Cookie']);
    expect(issue(['svc-Cookie', 'a=b;c=d"'])?.type).to.equal('value_error.cookie');
    expect(issue(['svc-Long', 'x'.repeat(8193)])?.msg).to.contain('at most 8192');
    expect(issue(Array.from({ length: 51 }, (_, i) => [`svc-H${i}`, 'v']).flat())?.msg).to.contain('at most 50');
    expect(issue(['svc-X-Test', 'plain value\twith tab'])).to.equal(undefined);
  });
});
