import { expect } from 'chai';
import { IpAllowList } from '../../src/ip/ip-allow-list.js';
import { NO_PROXIES, resolveClientAddress } from '../../src/http/client-address.js';

describe('the client address', () => {
  const proxies = IpAllowList.of(['127.0.0.1', '203.0.113.0/24', '::1']);

  it('is the peer when the peer is no trusted proxy, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress('127.0.0.1', '127.0.0.2', NO_PROXIES)).to.equal('127.0.0.1');
    expect(resolveClientAddress('192.0.2.9', ['127.0.0.2', '203.0.113.1'], proxies)).to.equal('192.0.2.9');
    expect(resolveClientAddress('::ffff:192.0.2.9', '127.0.0.2', proxies), 'mapped, given as IPv4').to.equal('192.0.2.9');
    expect(resolveClientAddress('192.0.2.9', undefined, proxies)).to.equal('192.0.2.9');
  });

  it('from a trusted proxy, is the rightmost address of X-Forwarded-For that is no trusted proxy', () => {
    expect(resolveClientAddress('127.0.0.1', '127.0.0.2', proxies)).to.equal('127.0.0.2');
    expect(resolveClientAddress('::ffff:127.0.0.1', '127.0.0.2', proxies), 'a mapped peer is trusted as IPv4').to.equal('127.0.0.2');
    // A client's own (spoofed) entries stand left of the address the proxy appended: never read.
    expect(resolveClientAddress('127.0.0.1', '127.0.0.9, 198.51.100.1, 203.0.113.7', proxies)).to.equal('198.51.100.1');
    expect(resolveClientAddress('::1', '2001:db8::5', proxies)).to.equal('2001:db8::5');
    expect(resolveClientAddress('127.0.0.1', ' [2001:DB8::5]:443 , 203.0.113.11:8080', proxies), 'ports and brackets as balancers write them').to.equal('2001:db8::5');
    expect(resolveClientAddress('127.0.0.1', '::ffff:198.51.100.2', proxies)).to.equal('198.51.100.2');
  });

  it('reads several X-Forwarded-For lines as one list, in order', () => {
    expect(resolveClientAddress('127.0.0.1', ['198.51.100.1, 203.0.113.2', '203.0.113.3'], proxies)).to.equal('198.51.100.1');
    expect(resolveClientAddress('127.0.0.1', ['198.51.100.1', '198.51.100.2, 203.0.113.3'], proxies)).to.equal('198.51.100.2');
  });

  it('when every address is a trusted proxy, is the leftmost of them', () => {
    expect(resolveClientAddress('127.0.0.1', '203.0.113.1, 203.0.113.2', proxies)).to.equal('203.0.113.1');
    expect(resolveClientAddress('127.0.0.1', undefined, proxies)).to.equal('127.0.0.1');
    expect(resolveClientAddress('127.0.0.1', [], proxies)).to.equal('127.0.0.1');
  });

  it('stops at an element that is not an address: the last address read stands', () => {
    expect(resolveClientAddress('127.0.0.1', 'garbage', proxies)).to.equal('127.0.0.1');
    expect(resolveClientAddress('127.0.0.1', '198.51.100.1, garbage, 203.0.113.2', proxies)).to.equal('203.0.113.2');
    expect(resolveClientAddress('127.0.0.1', '198.51.100.1,', proxies), 'an empty element').to.equal('127.0.0.1');
    expect(resolveClientAddress('127.0.0.1', 'unknown, 198.51.100.1', proxies), 'what is right of it still counts').to.equal('198.51.100.1');
    expect(resolveClientAddress('127.0.0.1', '127.1', proxies), 'no loose IPv4 spellings').to.equal('127.0.0.1');
    expect(resolveClientAddress('127.0.0.1', '2001:db8::1%eth0', proxies)).to.equal('2001:db8::1');
  });

  it('is `unknown` when the socket no longer has a peer, which no restriction allows', () => {
    expect(resolveClientAddress(undefined, '198.51.100.1', proxies)).to.equal('unknown');
    expect(IpAllowList.of(['0.0.0.0/0', '::/0']).allows('unknown')).to.equal(false);
  });
});
