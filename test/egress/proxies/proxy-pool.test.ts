import { expect } from 'chai';
import { ProxyUnavailableError } from '../../../src/egress/fetch-errors.js';
import { parseProxyCatalog } from '../../../src/egress/proxies/proxy-config.js';
import { ProxyHealth } from '../../../src/egress/proxies/proxy-health.js';
import { ProxyPool } from '../../../src/egress/proxies/proxy-pool.js';
import { DirectEgress } from '../../../src/egress/proxies/proxy-provider.js';

const catalog = parseProxyCatalog({
  datacenter: { US: ['http://u:p@us-1:8000', 'http://u:p@us-2:8000', 'http://u:p@us-3:8000'], DE: ['http://de-1:8000'] },
  residential: { '*': ['http://user-country-{country}:secret@gw:7000'], FR: ['http://fr-1:7000'] },
});

function unavailable(f: () => unknown): ProxyUnavailableError {
  try {
    f();
  } catch (err) {
    if (err instanceof ProxyUnavailableError) return err;
    throw err;
  }
  throw new Error('expected ProxyUnavailableError');
}

describe('ProxyPool', () => {
  it('rotates round-robin within a country, case-insensitively', () => {
    const pool = new ProxyPool(catalog);
    const first = ['us', 'US', 'Us', 'us'].map((c) => pool.route('datacenter', c).current!.url.hostname);
    expect(first).to.deep.equal(['us-1', 'us-2', 'us-3', 'us-1']);
  });

  it('fills a "*" template with the country, and prefers a country listed on its own', () => {
    const pool = new ProxyPool(catalog);
    const de = pool.route('residential', 'DE').current!;
    expect(de.url.username).to.equal('user-country-de');
    expect(de.label).to.equal('http://gw:7000 (residential/*/0:de)');
    expect(de.label).to.not.contain('secret');
    expect(pool.route('residential', 'fr').current!.url.hostname).to.equal('fr-1');
  });

  it('picks a random configured country when none is asked for', () => {
    const pool = new ProxyPool(catalog, new ProxyHealth(), () => 0.99);
    expect(pool.route('datacenter', undefined).country).to.equal('DE');
    // Only listed countries are drawn while there are some (FR here); a type with only "*" draws any ISO country.
    expect(pool.route('residential', undefined).country).to.equal('FR');
    const templateOnly = new ProxyPool(parseProxyCatalog({ residential: { '*': ['http://u-{country}:p@gw:1'] } }), new ProxyHealth(), () => 0);
    expect(templateOnly.route('residential', undefined).country).to.equal('AD');
  });

  it('refuses a type or country that is not configured, naming what is available', () => {
    const pool = new ProxyPool(parseProxyCatalog({ datacenter: { US: ['http://a:1'], DE: ['http://b:1'] } }));
    const country = unavailable(() => pool.route('datacenter', 'BR'));
    expect(country.param).to.equal('proxy_country');
    expect(country.message).to.equal('no datacenter proxy for country BR on this server; available: US, DE');
    const type = unavailable(() => pool.route('residential', 'US'));
    expect(type.param).to.equal('proxy_type');
    expect(type.message).to.contain('available: datacenter');
    expect(unavailable(() => new ProxyPool(catalog).route('residential', 'XX')).param).to.equal('proxy_country');
  });

  it('without PROXY_CONFIG goes direct, and any proxy_country or a residential type is refused', () => {
    const direct = new DirectEgress();
    expect(direct.route('datacenter', undefined).proxied).to.equal(false);
    expect(unavailable(() => direct.route('datacenter', 'US')).param).to.equal('proxy_country');
    expect(unavailable(() => direct.route('residential', undefined)).param).to.equal('proxy_type');
  });
});

describe('EgressRoute and ProxyHealth', () => {
  it('moves on from a failed proxy, cools it down with growing backoff, and avoids it while it cools', () => {
    let now = 1_000_000;
    const health = new ProxyHealth(() => now);
    const pool = new ProxyPool(catalog, health);
    const route = pool.route('datacenter', 'US');
    const dead = route.current!;
    expect(dead.url.hostname).to.equal('us-1');
    expect(route.failed(dead)!.url.hostname).to.equal('us-2');
    expect(health.cooling(dead.id)).to.equal(true);
    // The next request would start at us-2 anyway; the one after that would have been us-3, then
    // us-1 again: us-1 is skipped while it cools.
    pool.route('datacenter', 'US');
    pool.route('datacenter', 'US');
    expect(pool.route('datacenter', 'US').current!.url.hostname).to.equal('us-2');
    now += 1_001;
    expect(health.cooling(dead.id)).to.equal(false);
    health.cooldown(dead.id);
    expect(health.coolUntil(dead.id) - now).to.equal(2_000);
    health.cooldown(dead.id);
    expect(health.coolUntil(dead.id) - now).to.equal(4_000);
    health.recovered(dead.id);
    expect(health.failures(dead.id)).to.equal(0);
  });

  it('runs out after every proxy failed once, and may start over for a new attempt', () => {
    const route = new ProxyPool(catalog).route('datacenter', 'US');
    for (let i = 0; i < 3; i++) route.failed(route.current!);
    expect(route.current).to.equal(undefined);
    expect(route.restart()).to.not.equal(undefined);
  });

  it('rotates past a walled proxy to one it has not tried', () => {
    const route = new ProxyPool(catalog).route('datacenter', 'US');
    const seen = [route.current!.url.hostname];
    while (route.rotate()) seen.push(route.current!.url.hostname);
    expect(seen).to.deep.equal(['us-1', 'us-2', 'us-3']);
    expect(new ProxyPool(catalog).route('datacenter', 'DE').rotate()).to.equal(false);
  });
});
