import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Billing, hashApiKey } from '../../src/billing/billing.js';
import { addMonths } from '../../src/billing/billing-period.js';
import type { BillingStore, KeyAccount } from '../../src/billing/billing-store.js';
import { DeferredWrites } from '../../src/billing/deferred-writes.js';
import { Reconciler } from '../../src/billing/reconciler.js';
import { BrowserBudgetExceededError, ConcurrencyLimitError, InsufficientCreditsError, InvalidKeyError, IpRestrictedError } from '../../src/billing/billing-refusals.js';
import { ChargeNotRecordedError } from '../../src/billing/charge-not-recorded-error.js';
import { AlreadyChargedError } from '../../src/billing/ledger-row-errors.js';
import { migrate, openDatabase, type Database } from '../../src/store/database.js';
import { SqlBillingStore } from '../../src/store/billing/sql-billing-store.js';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { FakeBillingStore } from '../helpers/fake-billing-store.js';

type KeySpec = Partial<KeyAccount> & Pick<KeyAccount, 'creditsTotal'>;

interface Harness {
  name: string;
  store(): BillingStore;
  /** A new key with a plaintext secret, in the period starting at `start`. */
  addKey(spec: KeySpec, start: number): Promise<{ key: string; id: number }>;
  read(id: number): Promise<KeyAccount>;
  before?(): Promise<void>;
  after?(): Promise<void>;
}

const secret = () => `sg_${randomBytes(24).toString('base64url')}`;

function fakeHarness(): Harness {
  let fake = new FakeBillingStore();
  return {
    name: 'in memory',
    before: async () => void (fake = new FakeBillingStore()),
    store: () => fake,
    addKey: async (spec, start) => {
      const key = secret();
      const added = fake.add(hashApiKey(key), { periodStart: start, periodEnd: addMonths(start, 1), ...spec });
      return { key, id: added.id };
    },
    read: async (id) => ({ ...fake.keys.get(id)! }),
  };
}

function sqlHarness(database: (typeof testDatabases extends () => Array<infer D> ? D : never)): Harness {
  let db: Database;
  let store: SqlBillingStore;
  return {
    name: database.name,
    before: async () => {
      db = openDatabase(database.freshUrl());
      await migrate(db);
      store = new SqlBillingStore(db);
    },
    after: () => db.close(),
    store: () => store,
    addKey: async (spec, start) => {
      const key = secret();
      const [id] = await db.knex('api_keys').insert({
        key_hash: hashApiKey(key),
        key_prefix: key.slice(0, 10),
        plan_name: 'test',
        credits_total: spec.creditsTotal,
        credits_remaining: spec.creditsRemaining ?? spec.creditsTotal,
        max_concurrency: spec.maxConcurrency ?? null,
        allowed_ips: spec.allowedIps?.length ? JSON.stringify(spec.allowedIps) : null,
        period_start: spec.periodStart ?? start,
        period_end: spec.periodEnd ?? addMonths(start, 1),
        created_at: start,
        revoked_at: spec.revokedAt ?? null,
      });
      return { key, id: Number(id) };
    },
    read: async (id) => (await store.findKey((await db.knex('api_keys').where({ id }).first()).key_hash))!,
  };
}

const HOUR = 3_600_000;
const FACTS = { operation: 'v2GeneralGet', engine: 'plain', proxyType: 'datacenter', proxyCountry: null, targetHost: 'example.com' };
const OK = { status: 200, pageStatus: 200, failure: null, proxyCountry: null };
const FAILED = { status: 404, pageStatus: null, failure: 'the target could not be reached', proxyCountry: null };
const T0 = Date.UTC(2026, 0, 10, 12);

/**
 * Every rule of the billing, on a store in memory (fast, and able to fail on demand) and on the
 * SQL store on each database (so the fake cannot drift from the statements it stands for).
 */
for (const harness of [fakeHarness(), ...testDatabases().map(sqlHarness)]) {
  describe(`Billing (${harness.name})`, () => {
    let now = T0;
    const billing = (allowance = 3) =>
      new Billing({
        store: harness.store(),
        deferred: new DeferredWrites({ firstDelayMs: 10, maxDelayMs: 20 }),
        budget: { allowance, windowMs: HOUR },
        leaseGraceMs: 1_000,
        instanceId: 'test-instance',
        now: () => now,
      });
    const plain = (cost: number) => ({ cost, budgeted: false, at: now });
    const browser = (cost = 10) => ({ cost, budgeted: true, at: now });
    const refused = (work: Promise<unknown>) => work.then(() => undefined, (err: unknown) => err);
    /** A request's deadline 5 s after `now`, as the scrape service gives it. */
    const deadline = () => ({ at: now + 5_000, budgetMs: 5_000 });

    before(async () => harness.before?.());
    after(async () => harness.after?.());
    beforeEach(() => void (now = T0));

    it('takes the credits before the request, keeps them on charge and gives them back on refund, once', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 100 }, T0);
      const b = billing();
      const charged = await b.reserve(hashApiKey(key), plain(30), FACTS, deadline());
      expect((await harness.read(id)).creditsRemaining).to.equal(70);
      await charged.charge(OK);
      expect((await harness.read(id)).creditsRemaining).to.equal(70);
      expect(await refused(charged.refund(FAILED, false))).to.be.instanceOf(Error);
      const refunded = await b.reserve(hashApiKey(key), plain(30), FACTS, deadline());
      await refunded.refund(FAILED, false);
      expect((await harness.read(id)).creditsRemaining).to.equal(70);
    });

    it('refuses an unknown or revoked key (403) and a request the credits do not cover (403), taking nothing', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 10 }, T0);
      const revoked = await harness.addKey({ creditsTotal: 10, revokedAt: T0 }, T0);
      const b = billing();
      expect(await refused(b.reserve(hashApiKey(secret()), plain(1), FACTS, deadline()))).to.be.instanceOf(InvalidKeyError);
      expect(await refused(b.reserve(hashApiKey(revoked.key), plain(1), FACTS, deadline()))).to.be.instanceOf(InvalidKeyError);
      expect(await refused(b.accountByHash(hashApiKey(revoked.key)))).to.be.instanceOf(InvalidKeyError);
      const short = await refused(b.reserve(hashApiKey(key), plain(11), FACTS, deadline()));
      expect(short).to.be.instanceOf(InsufficientCreditsError);
      expect((short as Error).message).to.equal(`Not enough credits: this request costs 11 and 10 remain until ${new Date(addMonths(T0, 1)).toISOString()}.`);
      expect((await harness.read(id)).creditsRemaining).to.equal(10);
    });

    it('rolls an ended period over with a full balance (no rollover of credits), once, on use', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 100, creditsRemaining: 5 }, T0);
      now = addMonths(addMonths(T0, 1), 1) + 1_000; // two periods later
      const account = await billing().accountByHash(hashApiKey(key));
      expect(account).to.include({ creditsRemaining: 100, periodStart: addMonths(addMonths(T0, 1), 1), periodEnd: addMonths(T0, 3) });
      await (await billing().reserve(hashApiKey(key), plain(1), FACTS, deadline())).charge(OK);
      expect((await harness.read(id)).creditsRemaining).to.equal(99);
    });

    it('gives a refund back only into the period it was taken from, and never above the total', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 50 }, T0);
      const b = billing();
      const before = await b.reserve(hashApiKey(key), plain(20), FACTS, deadline());
      now = addMonths(T0, 1) + 1;
      await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline())).charge(OK); // the period rolls over: 50 - 1
      await before.refund(FAILED, false);
      expect((await harness.read(id)).creditsRemaining).to.equal(49);
    });

    it('holds a capped plan to its slots (409 past them), frees a slot on charge, refund and refusal, and lets an expired one be taken over', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 100, maxConcurrency: 2 }, T0);
      const b = billing();
      const first = await b.reserve(hashApiKey(key), plain(1), FACTS, deadline());
      const second = await b.reserve(hashApiKey(key), plain(1), FACTS, deadline());
      const third = await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline()));
      expect(third).to.be.instanceOf(ConcurrencyLimitError);
      expect((third as Error).message).to.equal('Concurrent request limit of your plan (2) reached. Wait for a request to finish or upgrade the plan.');
      await first.charge(OK);
      await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline())).refund(FAILED, false);
      expect(await refused(b.reserve(hashApiKey(key), plain(1000), FACTS, deadline()))).to.be.instanceOf(InsufficientCreditsError);
      // Still one slot free: the refusal gave its slot back.
      const again = await b.reserve(hashApiKey(key), plain(1), FACTS, deadline());
      // A server that died holding a slot: it expires on its own after the deadline and the grace.
      now += 5_000 + 1_000 + 1;
      await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline())).charge(OK);
      await second.charge(OK);
      await again.charge(OK);
      expect((await harness.read(id)).creditsRemaining).to.equal(96);
    });

    it('counts uncharged browser failures and refuses a key past its budget (429) until the hour ends; plain requests go on', async () => {
      for (const spec of [{ creditsTotal: 1000 }, { creditsTotal: 1000, maxConcurrency: 1 }]) {
        now = T0;
        const { key } = await harness.addKey(spec, T0);
        const b = billing(3);
        for (let i = 0; i < 3; i++) await (await b.reserve(hashApiKey(key), browser(), FACTS, deadline())).refund(FAILED, true);
        now += 60_000;
        const past = await refused(b.reserve(hashApiKey(key), browser(), FACTS, deadline()));
        expect(past).to.be.instanceOf(BrowserBudgetExceededError);
        expect((past as BrowserBudgetExceededError).retryAfterSeconds).to.equal(3_540);
        await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline())).charge(OK);
        // Successes buy room: failures may be up to half of the browser requests.
        now = T0 + HOUR;
        for (let i = 0; i < 5; i++) await (await b.reserve(hashApiKey(key), browser(), FACTS, deadline())).charge(OK);
        for (let i = 0; i < 4; i++) await (await b.reserve(hashApiKey(key), browser(), FACTS, deadline())).refund(FAILED, true);
        expect(await refused(b.reserve(hashApiKey(key), browser(), FACTS, deadline())), '4 failures of 9').to.equal(undefined);
      }
    });

    it('refuses a restricted key from any other address (403) before it tells or takes anything, and reserves it from an allowed one', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 10, allowedIps: ['127.0.0.2/32', '2001:db8::/32'] }, T0);
      const b = billing();
      const outside = await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.1'));
      expect(outside).to.be.instanceOf(IpRestrictedError);
      expect((outside as Error).message).to.equal('An IP restriction applies to this API key: requests from this address (127.0.0.1) are not allowed.');
      expect(await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline())), 'an unknown caller').to.be.instanceOf(IpRestrictedError);
      expect(await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '::1'))).to.be.instanceOf(IpRestrictedError);
      expect(await refused(b.reserve(hashApiKey(key), plain(11), FACTS, deadline(), '127.0.0.1')), 'not a word of its balance').to.be.instanceOf(IpRestrictedError);
      expect(await refused(b.accountByHash(hashApiKey(key), '127.0.0.1'))).to.be.instanceOf(IpRestrictedError);
      expect(await refused(b.accountByHash(hashApiKey(key)))).to.be.instanceOf(IpRestrictedError);
      expect((await harness.read(id)).creditsRemaining).to.equal(10);
      for (const from of ['127.0.0.2', '::ffff:127.0.0.2', '2001:db8::7']) await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), from)).charge(OK);
      expect(await b.accountByHash(hashApiKey(key), '127.0.0.2')).to.deep.include({ creditsRemaining: 7, allowedIps: ['127.0.0.2/32', '2001:db8::/32'] });
      expect(await refused(b.reserve(hashApiKey(key), plain(8), FACTS, deadline(), '127.0.0.2')), 'from inside, the usual refusals').to.be.instanceOf(InsufficientCreditsError);
      const revoked = await harness.addKey({ creditsTotal: 10, allowedIps: ['127.0.0.2/32'], revokedAt: T0 }, T0);
      expect(await refused(b.reserve(hashApiKey(revoked.key), plain(1), FACTS, deadline(), '127.0.0.1'))).to.be.instanceOf(InvalidKeyError);
    });

    it('judges a restricted capped key\'s caller before its slots: a refused caller never meets nor holds one', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 100, maxConcurrency: 1, allowedIps: ['127.0.0.2/32'] }, T0);
      const b = billing();
      const holding = await b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.2');
      expect(await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.1')), 'not a 409: the slot is not its business').to.be.instanceOf(IpRestrictedError);
      expect(await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.2'))).to.be.instanceOf(ConcurrencyLimitError);
      await holding.charge(OK);
      expect(await refused(b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.1'))).to.be.instanceOf(IpRestrictedError);
      await (await b.reserve(hashApiKey(key), plain(1), FACTS, deadline(), '127.0.0.2')).charge(OK);
      expect((await harness.read(id)).creditsRemaining).to.equal(98);
    });

    it('leaves a restricted key\'s ended period alone for a refused caller; an allowed one rolls it over', async () => {
      const { key, id } = await harness.addKey({ creditsTotal: 100, creditsRemaining: 5, allowedIps: ['127.0.0.2/32'] }, T0);
      now = addMonths(T0, 1) + 1_000;
      expect(await refused(billing().accountByHash(hashApiKey(key), '127.0.0.3'))).to.be.instanceOf(IpRestrictedError);
      expect(await harness.read(id)).to.include({ periodStart: T0, creditsRemaining: 5 });
      expect(await billing().accountByHash(hashApiKey(key), '127.0.0.2')).to.include({ periodStart: addMonths(T0, 1), creditsRemaining: 100 });
    });

    it('a budget of 0 never refuses', async () => {
      const { key } = await harness.addKey({ creditsTotal: 1000 }, T0);
      const b = billing(0);
      for (let i = 0; i < 5; i++) await (await b.reserve(hashApiKey(key), browser(), FACTS, deadline())).refund(FAILED, true);
      await (await b.reserve(hashApiKey(key), browser(), FACTS, deadline())).charge(OK);
    });

    describe('a given request id (a job item, the same on every attempt)', () => {
      const itemId = () => `item-${randomBytes(6).toString('hex')}`;
      const again = (b: Billing, key: string, cost: number, id: string) => b.reserve(hashApiKey(key), plain(cost), FACTS, deadline(), undefined, id);

      it('is charged at most once: an attempt after the charge is told so, and takes nothing', async () => {
        const { key, id } = await harness.addKey({ creditsTotal: 100 }, T0);
        const b = billing();
        const item = itemId();
        const first = await again(b, key, 10, item);
        expect(first.requestId).to.equal(item);
        await first.charge(OK);
        expect(await refused(again(b, key, 10, item))).to.be.instanceOf(AlreadyChargedError);
        expect((await harness.read(id)).creditsRemaining).to.equal(90);
      });

      it('after a refund, the next attempt reserves the same row again and is charged once', async () => {
        const { key, id } = await harness.addKey({ creditsTotal: 100 }, T0);
        const b = billing();
        const item = itemId();
        await (await again(b, key, 10, item)).refund(FAILED, false);
        const second = await again(b, key, 10, item);
        expect((await harness.read(id)).creditsRemaining).to.equal(90);
        await second.charge(OK);
        expect((await harness.read(id)).creditsRemaining).to.equal(90);
      });

      it('an attempt that died holding its reservation gives it back to the next one: the key pays once', async () => {
        const { key, id } = await harness.addKey({ creditsTotal: 100 }, T0);
        const b = billing();
        const item = itemId();
        await again(b, key, 10, item);
        const retried = await again(b, key, 10, item);
        expect((await harness.read(id)).creditsRemaining).to.equal(90);
        await retried.charge(OK);
        expect((await harness.read(id)).creditsRemaining).to.equal(90);
        expect(await refused(again(b, key, 10, item))).to.be.instanceOf(AlreadyChargedError);
      });

      it('a next attempt the credits no longer cover is refused (403), with the earlier reservation given back', async () => {
        const { key, id } = await harness.addKey({ creditsTotal: 15 }, T0);
        const b = billing();
        const item = itemId();
        await again(b, key, 10, item);
        await (await b.reserve(hashApiKey(key), plain(5), FACTS, deadline())).charge(OK);
        expect((await harness.read(id)).creditsRemaining).to.equal(0);
        expect(await refused(again(b, key, 11, item))).to.be.instanceOf(InsufficientCreditsError);
        expect((await harness.read(id)).creditsRemaining).to.equal(10);
      });
    });

    if (harness.name === 'in memory') {
      it('debits an uncapped key with one statement, and reads it only when that changes nothing', async () => {
        const fake = harness.store() as FakeBillingStore;
        const { key } = await harness.addKey({ creditsTotal: 100 }, T0);
        fake.calls = [];
        await (await billing().reserve(hashApiKey(key), plain(1), FACTS, deadline())).charge(OK);
        expect(fake.calls).to.deep.equal(['reserveByHash', 'charge']);
        const capped = await harness.addKey({ creditsTotal: 100, maxConcurrency: 1 }, T0);
        fake.calls = [];
        await (await billing().reserve(hashApiKey(capped.key), plain(1), FACTS, deadline())).charge(OK);
        expect(fake.calls).to.deep.equal(['reserveByHash', 'findKey', 'takeSlot', 'reserveById', 'charge', 'releaseSlot']);
      });

      it('reads a restricted key to judge its caller: reserved by id when admitted, refused with nothing taken when not', async () => {
        const fake = harness.store() as FakeBillingStore;
        const restricted = await harness.addKey({ creditsTotal: 100, allowedIps: ['127.0.0.2/32'] }, T0);
        fake.calls = [];
        await (await billing().reserve(hashApiKey(restricted.key), plain(1), FACTS, deadline(), '127.0.0.2')).charge(OK);
        expect(fake.calls).to.deep.equal(['reserveByHash', 'findKey', 'reserveById', 'charge']);
        const capped = await harness.addKey({ creditsTotal: 100, maxConcurrency: 1, allowedIps: ['127.0.0.2/32'] }, T0);
        fake.calls = [];
        const rows = fake.ledger.size;
        expect(await refused(billing().reserve(hashApiKey(capped.key), plain(1), FACTS, deadline(), '127.0.0.1'))).to.be.instanceOf(IpRestrictedError);
        expect(fake.calls, 'no slot, no debit').to.deep.equal(['reserveByHash', 'findKey']);
        expect(fake.ledger.size, 'no ledger row').to.equal(rows);
      });

      it('keeps a refund and a slot release that meet an outage, and applies them once the database is back', async () => {
        const fake = harness.store() as FakeBillingStore;
        const { key, id } = await harness.addKey({ creditsTotal: 100, maxConcurrency: 1 }, T0);
        const b = billing();
        const reservation = await b.reserve(hashApiKey(key), plain(10), FACTS, deadline());
        fake.down = true;
        await reservation.refund(FAILED, false);
        expect(fake.keys.get(id)?.creditsRemaining).to.equal(90);
        fake.down = false;
        await eventually(() => fake.keys.get(id)?.creditsRemaining === 100 && !fake.slots.has(`${id}/0`), 2_000, 'the deferred refund and release');
        expect(fake.ledger.get(reservation.requestId)?.outcome).to.equal('refunded');
      });
    }
  });
}

/** The charge of a 200 against a database that loses answers, goes away, or freezes: on a real clock. */
describe('Billing: a charge is durable before the 200, or never lands', function () {
  this.timeout(20_000);
  let fake: FakeBillingStore;
  let key: string;
  const realBilling = () =>
    new Billing({ store: fake, deferred: new DeferredWrites({ firstDelayMs: 10, maxDelayMs: 20 }), budget: { allowance: 0, windowMs: HOUR }, leaseGraceMs: 1_000, instanceId: 'test' });
  const debit = () => ({ cost: 10, budgeted: false, at: Date.now() });
  const deadline = (ms: number) => ({ at: Date.now() + ms, budgetMs: ms });
  beforeEach(() => {
    fake = new FakeBillingStore();
    key = secret();
    fake.add(hashApiKey(key), { creditsTotal: 100, periodStart: Date.now() - 1_000, periodEnd: Date.now() + HOUR });
  });

  it('an answer lost after the charge landed: the row is asked, and the 200 stands', async () => {
    const r = await realBilling().reserve(hashApiKey(key), debit(), FACTS, deadline(5_000));
    fake.loseAnswers = true;
    const done = r.charge(OK);
    setTimeout(() => (fake.loseAnswers = false), 50);
    await done;
    expect(fake.ledger.get(r.requestId)?.outcome).to.equal('charged');
  });

  it('a database away for a moment: the charge is tried again within its window', async () => {
    const r = await realBilling().reserve(hashApiKey(key), debit(), FACTS, deadline(5_000));
    fake.down = true;
    setTimeout(() => (fake.down = false), 300);
    await r.charge(OK);
    expect(fake.ledger.get(r.requestId)?.outcome).to.equal('charged');
  });

  it('a database away past the window: not charged, the row left to reconciliation, and the request is refunded', async () => {
    const r = await realBilling().reserve(hashApiKey(key), debit(), FACTS, deadline(1_000));
    fake.down = true;
    const started = Date.now();
    const err = await r.charge(OK).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ChargeNotRecordedError);
    expect((err as ChargeNotRecordedError).uncertain, 'no charge ever reached the database: certainly not charged').to.equal(false);
    // Its deadline had about passed: it may still take 1.5 s (the last 0.5 s asking the row), no more.
    expect(Date.now() - started, 'it answers 1.5 s after the charge began').to.be.within(1_400, 2_500);
    fake.down = false;
    // The window has closed: whatever was in flight can no longer land.
    const lateCharge = await fake.charge(r.requestId, { ...OK, endedAt: 0, durationMs: 0 }, Date.now() - started);
    expect(lateCharge, 'a charge sent with its window: it lands no more').to.equal(false);
    await r.refund(FAILED, false).catch(() => undefined);
  });

  it('a charge that landed with its answer lost, then the database away: the outcome is unknown, and said so', async () => {
    const r = await realBilling().reserve(hashApiKey(key), debit(), FACTS, deadline(1_000));
    fake.loseAnswers = true;
    const done = r.charge(OK).catch((e: unknown) => e);
    // The first attempt has landed and lost its answer by now; every later call meets an unreachable database.
    fake.down = true;
    const err = await done;
    expect(err).to.be.instanceOf(ChargeNotRecordedError);
    expect((err as ChargeNotRecordedError).uncertain).to.equal(true);
    expect(fake.ledger.get(r.requestId)?.outcome, 'what the ledger says, for the operator').to.equal('charged');
    fake.down = false;
    fake.loseAnswers = false;
  });

  it('reconciliation refunds what nobody settled, once, whichever instances run it, and never what can still be charged', async () => {
    const b = realBilling();
    const cut = await b.reserve(hashApiKey(key), debit(), FACTS, deadline(1_000)); // its instance was killed: never settled
    const running = await b.reserve(hashApiKey(key), debit(), FACTS, deadline(60_000));
    expect(fake.keys.get(1)?.creditsRemaining).to.equal(80);
    const reconcilers = [1, 2].map(() => new Reconciler({ store: fake, books: fake, marginMs: 500, intervalMs: 60_000 }));
    expect(await reconcilers[0].reconcileOnce(), 'too early: the limit has not passed').to.equal(0);
    fake.clock = () => Date.now() + 12_000; // the settle limit (1 s + 10 s grace) and the 0.5 s margin have passed
    const counts = await Promise.all(reconcilers.map((r) => r.reconcileOnce()));
    expect(counts.reduce((a, n) => a + n, 0)).to.equal(1);
    expect(fake.ledger.get(cut.requestId)).to.include({ outcome: 'refunded', settledBy: 'reconcile' });
    expect(fake.ledger.get(running.requestId)?.outcome, 'a 60-second request is still in its window').to.equal('reserved');
    expect(fake.keys.get(1)?.creditsRemaining).to.equal(90);
    expect(await fake.discrepancies()).to.deep.equal([]);
  });

  it('a refund of a request whose period closed meanwhile goes back to that period, and the books balance', async () => {
    const b = realBilling();
    const old = await b.reserve(hashApiKey(key), debit(), FACTS, deadline(5_000));
    const k = fake.keys.get(1)!;
    await fake.rollPeriod(k.id, k.periodEnd, { start: k.periodEnd, end: k.periodEnd + HOUR });
    await old.refund(FAILED, false);
    expect(fake.keys.get(1)?.creditsRemaining, 'the new period is untouched').to.equal(100);
    expect([...fake.periods.values()][0].creditsRemaining, 'the closed period got it back').to.equal(100);
    expect(await fake.discrepancies()).to.deep.equal([]);
  });
});
