import { expect } from 'chai';
import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import { urlRefusal } from '../../../src/egress/target-policy/url-refusal.js';
import { targetPolicy } from '../../helpers/egress.js';

/** A URL judged by the target policy's decision alone (a batch's, a crawl's links): no lookup, no socket. */
describe('URL refusal: judged without a socket', () => {
  const own = new OwnPorts();
  own.add(8080);
  const policy = targetPolicy({ ownPorts: own, lookup: () => Promise.reject(new Error('no lookup may happen at submission')) });

  it('refuses what is not an absolute http(s) URL', () => {
    expect(urlRefusal('not a url', policy)).to.equal('not an absolute URL');
    expect(urlRefusal('ftp://example.com/x', policy)).to.match(/only http and https/);
    expect(urlRefusal(`http://${'a'.repeat(254)}/`, policy)).to.match(/longer than 253/);
    expect(urlRefusal(`http://example.com/${'a'.repeat(8200)}`, policy)).to.match(/longer than 8192/);
  });

  it('refuses addresses the target policy refuses: loopback, private, link-local, metadata, IPv6 loopback, the service itself', () => {
    for (const url of ['http://127.0.0.1/', 'http://10.0.0.1/', 'http://192.168.1.1:8443/', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'http://0.0.0.0/', 'http://[::ffff:127.0.0.1]/']) {
      expect(urlRefusal(url, policy), url).to.be.a('string');
    }
  });

  it('leaves host names to be resolved when their item runs, and accepts public addresses', () => {
    expect(urlRefusal('https://example.com/a', policy)).to.equal(undefined);
    expect(urlRefusal('http://93.184.215.14/', policy)).to.equal(undefined);
  });
});
