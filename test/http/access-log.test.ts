import { expect } from 'chai';
import { loggedTarget } from '../../src/http/access-log.js';

describe('loggedTarget', () => {
  it('keeps the scheme and host of a target, never its userinfo, path, query or fragment', () => {
    expect(loggedTarget('https://bob:hunter2@shop.example:8443/account?token=s3cret#frag')).to.equal('https://shop.example:8443');
    expect(loggedTarget('http://[::1]:8080/a')).to.equal('http://[::1]:8080');
    expect(loggedTarget('HTTP://Example.COM/')).to.equal('http://example.com');
  });

  it('writes nothing for what is not an http or https URL', () => {
    for (const value of ['not a url', 'file:///etc/passwd', 'javascript:alert(1)', undefined, 42, ['http://a/']]) {
      expect(loggedTarget(value), String(value)).to.equal(undefined);
    }
  });
});
