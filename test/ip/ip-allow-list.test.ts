import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { InvalidIpEntryError, normalizeIpEntry, parseIpEntries } from '../../src/ip/ip-range.js';
import { IpAllowList } from '../../src/ip/ip-allow-list.js';
import { parseIpAddress } from '../../src/ip/ip-address.js';

describe('IP allow lists', () => {
  it('normalizes every entry to the CIDR it stands for: single addresses, host bits, IPv6 compressed, mapped IPv4 as IPv4', () => {
    const cases: Array<[string, string]> = [
      ['203.0.113.7', '203.0.113.7/32'],
      [' 203.0.113.7/8 ', '203.0.0.0/8'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['::1', '::1/128'],
      ['2001:DB8:0:0::1/32', '2001:db8::/32'],
      ['::/0', '::/0'],
      ['::ffff:192.0.2.1', '192.0.2.1/32'],
      ['::ffff:203.0.113.0/120', '203.0.113.0/24'],
      // IPv4-compatible (deprecated) is not mapped: it stays the IPv6 address the kernel reads.
      ['::1.2.3.4', '::102:304/128'],
    ];
    for (const [entry, normalized] of cases) expect(normalizeIpEntry(entry), entry).to.equal(normalized);
  });

  it('refuses what is not an address or range, naming the entry', () => {
    for (const entry of ['', 'localhost', '127.1', '0x7f.0.0.1', '010.0.0.1', '256.0.0.1', '1.2.3.4/33', '1.2.3.4/', '1.2.3.4/-1', '1.2.3.4/8/8',
      '1.2.3.4 /8', '2001:db8::/129', '2001:db8:::1', '2001:db8::1%eth0', '::ffff:1.2.3.4/95', '1.2.3.4:80']) {
      expect(() => normalizeIpEntry(entry), JSON.stringify(entry)).to.throw(InvalidIpEntryError, `"${entry.trim()}" is not an IP address or CIDR range`);
    }
  });

  it('reads a comma-separated list: spaces allowed, duplicates once, empty means none', () => {
    expect(parseIpEntries('127.0.0.2, 203.0.0.0/8,,127.0.0.2/32 ,::1')).to.deep.equal(['127.0.0.2/32', '203.0.0.0/8', '::1/128']);
    expect(parseIpEntries('')).to.deep.equal([]);
    expect(parseIpEntries(' , ')).to.deep.equal([]);
    expect(() => parseIpEntries('127.0.0.2, 203.0.0.0/88')).to.throw(InvalidIpEntryError, '203.0.0.0/88');
  });

  it('matches IPv4, IPv6 and CIDR ranges of either; an IPv4 client seen as ::ffff:a.b.c.d matches IPv4 entries', () => {
    const list = IpAllowList.of(parseIpEntries('127.0.0.2, 203.0.0.0/8, 2001:db8::/32, ::1'));
    for (const address of ['127.0.0.2', '::ffff:127.0.0.2', '::FFFF:7f00:2', '203.0.0.0', '203.255.255.255', '::ffff:203.0.113.7', '2001:db8::1', '2001:db8:ffff::', '::1']) {
      expect(list.allows(address), address).to.equal(true);
    }
    for (const address of ['127.0.0.1', '127.0.0.3', '::ffff:127.0.0.1', '204.0.0.0', '202.255.255.255', '2001:db9::', '::2', '::7f00:2', 'unknown', '', '127.0.0.2/32']) {
      expect(list.allows(address), address).to.equal(false);
    }
    // A mapped entry admits the IPv4 client however it is seen.
    const mapped = IpAllowList.of(['::ffff:127.0.0.0/120']);
    expect(mapped.allows('127.0.0.9')).to.equal(true);
    expect(mapped.allows('::ffff:127.0.0.9')).to.equal(true);
    expect(mapped.allows('127.0.1.9')).to.equal(false);
  });

  it('admits nobody when empty (whether an empty list means anywhere is the caller\'s rule)', () => {
    const none = IpAllowList.of([]);
    expect(none.empty).to.equal(true);
    expect(none.allows('127.0.0.1')).to.equal(false);
    expect(IpAllowList.of(['::/0']).allows('::ffff:127.0.0.1'), 'an IPv4 client is not an IPv6 one').to.equal(false);
    expect(IpAllowList.of(['0.0.0.0/0']).allows('::ffff:127.0.0.1')).to.equal(true);
  });

  it('takes ranges parsed elsewhere (config\'s CIDR lists), a mapped one as IPv4', () => {
    const list = IpAllowList.ofRanges([ipaddr.parseCIDR('::ffff:127.0.0.0/104'), ipaddr.parseCIDR('::1/128')]);
    expect(['127.1.2.3', '::ffff:127.1.2.3', '::1'].map((a) => list.allows(a))).to.deep.equal([true, true, true]);
    expect(list.allows('128.0.0.1')).to.equal(false);
  });

  it('reads a socket\'s or a header\'s address strictly, a zone ignored', () => {
    expect(parseIpAddress('::ffff:127.0.0.1')?.toString()).to.equal('127.0.0.1');
    expect(parseIpAddress('2001:db8::1%eth0')?.toString()).to.equal('2001:db8::1');
    for (const text of ['127.1', '1.2.3.4.5', ' 1.2.3.4', 'example.com', '']) expect(parseIpAddress(text), text).to.equal(undefined);
  });
});
