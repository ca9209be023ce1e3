import { expect } from 'chai';
import { parseProxyCatalog } from '../../../src/egress/proxies/proxy-config.js';
import { ProxyHealth } from '../../../src/egress/proxies/proxy-health.js';
import { ProxyPool } from '../../../src/egress/proxies/proxy-pool.js';
import { DirectEgress } from '../../../src/egress/proxies/proxy-provider.js';
import { SessionPins } from '../../../src/egress/proxies/session-pins.js';
import type { StickySession } from '../../../src/egress/proxies/sticky-session.js';

const catalog = parseProxyCatalog({
  datacenter: {
    US: ['http://u:p@us-1:8000', 'http://u:p@us-2:8000', 'http://u:p@us-3:8000', 'http://u:p@us-4:8000'],
    DE: ['http://de-1:8000', 'http://de-2:8000'],
  },
  residential: { '*': ['http://user-country-{country}-session-{session}:secret@gw:7000'], FR: ['http://fr-1:7000'] },
});

const TTL_MS = 300_000;
const session = (id: number, key = '42'): StickySession => ({ key, id });

/** One instance: its own health, pins and clock, as two servers behind a load balancer have. */
function instance(clock: { now: number } = { now: 1_000_000 }, random: () => number = Math.random): ProxyPool {
  return new ProxyPool(catalog, new ProxyHealth(() => clock.now), random, new SessionPins(TTL_MS, undefined, () => clock.now));
}

const host = (pool: ProxyPool, s: StickySession, country: string | undefined = 'US') => pool.route('datacenter', country, s).current!.url.hostname;

describe('sticky sessions', () => {
  it('send a session to the same exit on two instances that share nothing, with or without a country', () => {
    const a = instance(undefined, () => 0);
    const b = instance(undefined, () => 0.99);
    // b has served other requests: its round-robin turns and random draws differ from a's.
    for (let i = 0; i < 3; i++) b.route('datacenter', 'US');
    const ids = Array.from({ length: 40 }, (_, i) => i * 250_001);
    for (const id of ids) {
      expect(host(b, session(id)), `session ${id}`).to.equal(host(a, session(id)));
      const [ra, rb] = [a.route('datacenter', undefined, session(id)), b.route('datacenter', undefined, session(id))];
      expect(rb.country, `country of session ${id}`).to.equal(ra.country);
      expect(rb.current!.id, `session ${id} without a country`).to.equal(ra.current!.id);
      // A type with only "*" draws from every ISO country, by the session's hash too.
      expect(b.route('residential', undefined, session(id)).country).to.equal(a.route('residential', undefined, session(id)).country);
    }
    // The choice is the session's, not a constant: sessions and keys land in different places.
    expect(new Set(ids.map((id) => host(a, session(id))))).to.have.length(4);
    expect(new Set(ids.map((id) => a.route('datacenter', undefined, session(id)).country))).to.deep.equal(new Set(['US', 'DE']));
    expect(ids.some((id) => host(a, session(id, '43')) !== host(a, session(id)))).to.equal(true);
  });

  it('keep a session on its exit request after request, and order the rest deterministically', () => {
    const pool = instance();
    const first = pool.route('datacenter', 'us', session(7));
    for (let i = 0; i < 5; i++) {
      const again = pool.route('datacenter', 'US', session(7));
      expect(again.candidates.map((p) => p.id)).to.deep.equal(first.candidates.map((p) => p.id));
    }
    expect(first.candidates).to.have.length(4);
  });

  it('spread 1,000 sessions evenly over 4 exits', () => {
    const pool = instance();
    const counts = new Map<string, number>();
    for (let id = 0; id < 1000; id++) {
      const h = host(pool, session(id));
      counts.set(h, (counts.get(h) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).to.deep.equal(['us-1', 'us-2', 'us-3', 'us-4']);
    for (const [h, n] of counts) expect(n, h).to.be.within(150, 350);
  });

  it('leave session-less requests rotating round-robin, undisturbed by sessions in between', () => {
    const pool = instance();
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      seen.push(pool.route('datacenter', 'US').current!.url.hostname);
      pool.route('datacenter', 'US', session(i));
    }
    expect(seen).to.deep.equal(['us-1', 'us-2', 'us-3', 'us-4', 'us-1']);
  });

  it('move a session off a failed exit, where the other instance moves it too, and keep it there after the cool-down', () => {
    const clock = { now: 1_000_000 };
    const a = instance(clock);
    const route = a.route('datacenter', 'US', session(11));
    const pinnedFirst = route.current!;
    const moved = route.failed(pinnedFirst)!;
    expect(moved.id).to.equal(route.candidates[1].id);
    expect(moved.id).to.not.equal(pinnedFirst.id);
    route.succeeded(moved);

    // Another instance meets the same failure on its own and moves the session to the same exit.
    const b = instance(clock);
    const onB = b.route('datacenter', 'US', session(11));
    expect(onB.current!.id).to.equal(pinnedFirst.id);
    expect(onB.failed(onB.current!)!.id).to.equal(moved.id);

    clock.now += 1_001;
    expect(a.health.cooling(pinnedFirst.id)).to.equal(false);
    for (let i = 0; i < 3; i++) expect(a.route('datacenter', 'US', session(11)).current!.id).to.equal(moved.id);
    // Without the pin the session would be back on the exit that failed.
    expect(instance(clock).route('datacenter', 'US', session(11)).current!.id).to.equal(pinnedFirst.id);
    expect(a.pins.size).to.equal(1);
  });

  it('move a session again when its pinned exit cools down, the pin following it', () => {
    const clock = { now: 1_000_000 };
    const pool = instance(clock);
    const [first, second, third] = pool.route('datacenter', 'US', session(12)).candidates;
    const r1 = pool.route('datacenter', 'US', session(12));
    r1.succeeded(r1.failed(first)!);
    expect(pool.route('datacenter', 'US', session(12)).current!.id).to.equal(second.id);

    // The pinned exit fails while the first still cools: on to the third, and the pin with it.
    const r2 = pool.route('datacenter', 'US', session(12));
    expect(r2.candidates.map((p) => p.id).slice(0, 2)).to.deep.equal([second.id, first.id]);
    const next = r2.failed(second)!;
    expect(next.id).to.equal(third.id);
    r2.succeeded(next);
    clock.now += 10_000;
    expect(pool.route('datacenter', 'US', session(12)).current!.id).to.equal(third.id);

    // Pinned exit cooling, rendezvous exit healthy again: back to the rendezvous exit, pin dropped.
    pool.health.cooldown(third.id);
    const r3 = pool.route('datacenter', 'US', session(12));
    expect(r3.current!.id).to.equal(first.id);
    r3.succeeded(r3.current!);
    expect(pool.pins.size).to.equal(0);
  });

  it(`forget a pin SESSION_TTL_SECONDS after the session's last request, each request renewing it`, () => {
    const clock = { now: 1_000_000 };
    const pool = instance(clock);
    const route = pool.route('datacenter', 'DE', session(13));
    const [first, second] = route.candidates;
    route.succeeded(route.failed(first)!);
    clock.now += TTL_MS - 1;
    expect(host(pool, session(13), 'DE')).to.equal(second.url.hostname);
    clock.now += TTL_MS - 1;
    expect(host(pool, session(13), 'DE')).to.equal(second.url.hostname);
    clock.now += TTL_MS;
    expect(host(pool, session(13), 'DE')).to.equal(first.url.hostname);
    expect(pool.pins.size).to.equal(0);
  });

  it('fill {session} with the session\'s own value on every instance, and a fresh one per session-less request', () => {
    const [a, b] = [instance(), instance()];
    const user = (pool: ProxyPool, s?: StickySession, country = 'DE') => pool.route('residential', country, s).current!.url.username;
    const key = 'key-row-981';
    const one = user(a, session(5, key));
    expect(one).to.match(/^user-country-de-session-[0-9a-f]{16}$/);
    expect(one).to.not.contain(key);
    expect(user(b, session(5, key))).to.equal(one);
    expect(user(a, session(5, key))).to.equal(one);
    expect(user(a, session(6, key))).to.not.equal(one);
    expect(user(a, session(5, 'key-row-982'))).to.not.equal(one);
    expect(user(a, session(5, key), 'NL').replace('-nl-', '-de-')).to.not.equal(one);

    const plain = [user(a), user(a), user(b)];
    for (const u of plain) expect(u).to.match(/^user-country-de-session-[0-9a-f]{16}$/);
    expect(new Set(plain)).to.have.length(3);

    // The session value is no part of the id or label: health and pins are per gateway and country.
    const endpoint = a.route('residential', 'DE', session(5, key)).current!;
    expect(endpoint.id).to.equal('residential/*/0:de');
    expect(endpoint.label).to.equal('http://gw:7000 (residential/*/0:de)');
  });

  it('are accepted and ignored by direct egress: one address, nothing to pin', () => {
    expect(new DirectEgress().route('datacenter', undefined, session(1)).proxied).to.equal(false);
  });
});
