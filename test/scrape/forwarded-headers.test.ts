import { expect } from 'chai';
import { forwardedHeaders } from '../../src/scrape/forwarded-headers.js';

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
});
