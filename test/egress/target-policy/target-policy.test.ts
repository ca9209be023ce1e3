import { expect } from 'chai';
import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import { EgressError, TargetForbiddenError } from '../../../src/egress/fetch-errors.js';
import { TargetPolicy } from '../../../src/egress/target-policy/target-policy.js';
import { targetPolicy } from '../../helpers/egress.js';

/** Names resolved from a table: these tests decide on addresses and never open a socket. */
const table = (entries: Record<string, string[]>) => async (host: string) => {
  const found = entries[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('AddressPolicy (decisions only, no traffic)', () => {
  const strict = targetPolicy().addresses;

  it('refuses loopback, private, link-local, CGNAT, multicast, unspecified, reserved and mapped addresses', () => {
    const refused = [
      '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '169.254.0.1',
      '100.64.0.1', '100.127.255.254', '0.0.0.0', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.18.0.1',
      '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
      '64:ff9b::7f00:1', '2002:7f00:1::', '2001:db8::1',
    ];
    for (const a of refused) expect(strict.refusal(a), a).to.be.a('string');
    expect(strict.refusal('169.254.169.254')).to.equal('169.254.169.254 is a link-local address');
    expect(strict.refusal('::ffff:7f00:1')).to.equal('127.0.0.1 is a loopback address');
    expect(strict.refusal('100.64.0.1')).to.equal('100.64.0.1 is a carrier-grade NAT address');
  });

  it('refuses IPv4-compatible IPv6 (::/96), which carries an IPv4 address as the mapped forms do', () => {
    for (const a of ['::7f00:1', '::127.0.0.1', '::a00:5', '::a9fe:a9fe']) {
      expect(strict.decide(a), a).to.deep.equal({ reason: 'ipv4Compatible', text: `${a === '::127.0.0.1' ? '::7f00:1' : a} is an IPv4-compatible IPv6 address` });
    }
    // Deprecated and never a real target: refused even where private targets are allowed.
    expect(targetPolicy({ allowPrivate: true }).addresses.refusal('::7f00:1')).to.equal('::7f00:1 is an IPv4-compatible IPv6 address');
  });

  it("refuses the ports browsers refuse (SMTP, IRC …) whatever the address, unless TARGET_ALLOW_CIDRS names it", () => {
    const open = targetPolicy({ allowPrivate: true }).addresses;
    for (const port of [25, 22, 6667, 10080]) {
      expect(strict.decide('93.184.216.34', port), String(port)).to.deep.equal({ reason: 'unsafe-port', text: `port ${port} is not allowed` });
      expect(open.decide('127.0.0.1', port), String(port)).to.deep.equal({ reason: 'unsafe-port', text: `port ${port} is not allowed` });
    }
    expect(strict.refusal('93.184.216.34', 443)).to.equal(undefined);
    const listed = targetPolicy({ allowCidrs: '127.0.0.2/32' }).addresses;
    expect(listed.refusal('127.0.0.2', 25)).to.equal(undefined);
    expect(listed.refusal('127.0.0.3', 25)).to.equal('port 25 is not allowed');
  });

  it('refuses the services scrapegate uses elsewhere (a Grid, the database) at their own address and port', () => {
    const ownPorts = new OwnPorts();
    ownPorts.addRemote('::ffff:10.0.0.7', 4444);
    const open = targetPolicy({ allowPrivate: true, ownPorts }).addresses;
    expect(open.decide('10.0.0.7', 4444)).to.deep.include({ reason: 'own-port' });
    expect(open.refusal('10.0.0.7', 4445)).to.equal(undefined);
    expect(open.refusal('10.0.0.8', 4444)).to.equal(undefined);
  });

  it('allows public unicast addresses', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(strict.refusal(a), a).to.equal(undefined);
  });

  it('TARGET_ALLOW_CIDRS opens exactly its ranges; ALLOW_PRIVATE_TARGETS opens all', () => {
    const cidr = targetPolicy({ allowCidrs: '127.0.0.2/32, 10.9.0.0/16' }).addresses;
    expect(cidr.refusal('127.0.0.2')).to.equal(undefined);
    expect(cidr.refusal('10.9.3.4')).to.equal(undefined);
    expect(cidr.refusal('127.0.0.1')).to.be.a('string');
    expect(cidr.refusal('::ffff:127.0.0.2')).to.equal(undefined);
    expect(cidr.refusal('10.8.0.1')).to.be.a('string');
    const open = targetPolicy({ allowPrivate: true }).addresses;
    expect(open.refusal('127.0.0.1')).to.equal(undefined);
    expect(open.refusal('10.0.0.1')).to.equal(undefined);
  });

  it("never allows scrapegate's own ports on this machine, even with ALLOW_PRIVATE_TARGETS", () => {
    const ownPorts = new OwnPorts();
    ownPorts.add(8080);
    const open = targetPolicy({ allowPrivate: true, ownPorts }).addresses;
    expect(open.refusal('127.0.0.1', 8080)).to.contain("scrapegate's own");
    expect(open.refusal('0.0.0.0', 8080)).to.contain("scrapegate's own");
    expect(open.refusal('::ffff:127.0.0.1', 8080)).to.contain("scrapegate's own");
    expect(open.refusal('127.0.0.1', 8081)).to.equal(undefined);
    expect(open.refusal('93.184.216.34', 8080)).to.equal(undefined);
  });
});

describe('TargetPolicy', () => {
  const policy = targetPolicy({
    lookup: table({ 'rebind.test': ['93.184.216.34', '127.0.0.1'], 'inside.test': ['10.0.0.5'], 'public.test': ['93.184.216.34'], localhost: ['127.0.0.1', '::1'] }),
  });

  it('refuses every scheme but http and https, whatever the settings', () => {
    const open = targetPolicy({ allowPrivate: true });
    for (const url of ['file:///etc/passwd', 'chrome://version', 'data:text/html,hi', 'javascript:alert(1)', 'view-source:http://x/', 'ftp://x/', 'ws://x/']) {
      expect(() => open.checkScheme(new URL(url)), url).to.throw(TargetForbiddenError);
    }
    expect(() => open.checkScheme(new URL('https://example.com/'))).to.not.throw();
  });

  it('decides on the resolved addresses, never on the name: only allowed ones are handed out', async () => {
    expect(await policy.resolve('public.test', 80)).to.deep.equal([{ address: '93.184.216.34', family: 4 }]);
    expect(await policy.resolve('rebind.test', 80)).to.deep.equal([{ address: '93.184.216.34', family: 4 }]);
    const refused = await policy.resolve('inside.test', 80).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(TargetForbiddenError);
    // Says that the target is refused, never where the name points (no map of internal DNS).
    expect((refused as TargetForbiddenError).reason).to.equal('inside.test is not an allowed target');
    expect((refused as TargetForbiddenError).message).to.not.contain('10.0.0.5');
    expect(await policy.resolve('localhost', 80).catch((e: unknown) => e)).to.be.instanceOf(TargetForbiddenError);
  });

  it('checks IP literals in every spelling the URL parser accepts', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://017700000001/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://0.0.0.0/', 'http://[::]/', 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/']) {
      expect(await policy.checkUrl(new URL(url)).catch((e: unknown) => e), url).to.be.instanceOf(TargetForbiddenError);
    }
  });

  it('tells its observer the reason of every refusal, in closed words (the metrics labels)', async () => {
    const reasons: string[] = [];
    const ownPorts = new OwnPorts();
    ownPorts.add(8080);
    const observed = new TargetPolicy(targetPolicy({ ownPorts }).addresses, table({ 'inside.test': ['10.0.0.5'] }), (r) => reasons.push(r));
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:8080/', 'http://[fe80::1]/', 'http://100.64.0.1/', 'http://inside.test/', 'file:///etc/passwd']) {
      expect(await observed.checkUrl(new URL(url)).catch((e: unknown) => e), url).to.be.instanceOf(TargetForbiddenError);
    }
    expect(reasons).to.deep.equal(['linkLocal', 'own-port', 'linkLocal', 'carrierGradeNat', 'private', 'scheme']);
  });

  it('a name that does not resolve is a dns failure, not a refusal', async () => {
    const err = await policy.resolve('nowhere.test', 80).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(EgressError).and.not.be.instanceOf(TargetForbiddenError);
    expect((err as EgressError).message).to.equal('the host nowhere.test does not resolve');
  });
});
