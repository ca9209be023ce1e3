import { expect } from 'chai';
import { TargetPolicy } from '../../src/egress/target-policy.js';
import { TargetForbiddenError } from '../../src/errors/engine-errors.js';

describe('TargetPolicy', () => {
  const strict = new TargetPolicy(false);

  it('refuses loopback, private, link-local, unspecified and mapped addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '100.64.0.1']) {
      expect(strict.isAllowedAddress(a), a).to.equal(false);
    }
  });

  it('allows public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(strict.isAllowedAddress(a), a).to.equal(true);
  });

  it('checks IP-literal URLs before connecting, and only http(s)', () => {
    expect(() => strict.checkUrl(new URL('http://127.0.0.1:8080/'))).to.throw(TargetForbiddenError);
    expect(() => strict.checkUrl(new URL('http://[::1]/'))).to.throw(TargetForbiddenError);
    expect(() => strict.checkUrl(new URL('file:///etc/passwd'))).to.throw(TargetForbiddenError);
    expect(() => strict.checkUrl(new URL('https://93.184.216.34/'))).to.not.throw();
  });

  it('refuses a hostname that resolves to a private address', (done) => {
    strict.lookup('localhost', {}, (err) => {
      expect(err).to.be.instanceOf(TargetForbiddenError);
      done();
    });
  });

  it('allows everything with ALLOW_PRIVATE_TARGETS', () => {
    const open = new TargetPolicy(true);
    expect(open.isAllowedAddress('127.0.0.1')).to.equal(true);
    expect(() => open.checkUrl(new URL('http://127.0.0.1/'))).to.not.throw();
  });
});
