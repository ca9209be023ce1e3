import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabases } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { booksBalance, unsettled } from '../helpers/ledger-checks.js';
import { useSuite } from '../helpers/suite.js';

interface LedgerRow {
  request_id: string;
  outcome: string;
  cost: number;
  status_sent: number | null;
  ended_at: number | null;
}

/** What the client did with one request: the answer it read, or when it hung up. */
interface Sent {
  status?: number;
  requestId?: string;
  cost: number;
  hungUpAt?: number;
}

/**
 * A caller who hangs up before its answer stops the work and pays nothing: the fetch is cut, the
 * render stopped and its session returned, and the ledger records the request as the client's
 * cancellation (status 499). No charge is committed once the caller is gone; one committed
 * before is the only charge a client that hung up can have.
 */
for (const database of testDatabases()) {
  describe(`clients that hang up (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
    let key: string;
    /** When each request to /observed ended on the target's side (its connection closed or its answer sent). */
    const observed: number[] = [];
    before(async () => {
      key = await s.store.key();
      s.target.route('/observed', (_req, res) => {
        const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 3_000);
        res.on('close', () => {
          clearTimeout(timer);
          observed.push(Date.now());
        });
      });
    });

    const rowOf = async (requestId: string): Promise<LedgerRow> =>
      (await s.store.db.knex('request_ledger').where({ request_id: requestId }).first()) as LedgerRow;

    /** Sends a request and hangs up after `afterMs`; the ledger id arrives with the answer's headers, which never come. */
    const hangUp = async (url: string, browser: boolean, afterMs: number) => {
      const started = Date.now();
      const res = await s
        .call('/v2/general', [['x-api-key', key], ['url', url], ['browser', String(browser)], ['timeout', '10']], { signal: AbortSignal.timeout(afterMs) })
        .catch((err: Error) => err);
      expect(res, 'the answer the client hung up on').to.be.instanceOf(Error);
      return started;
    };

    /** The newest ledger row, once its request has settled. */
    const lastSettled = async (): Promise<LedgerRow> => {
      let row: LedgerRow | undefined;
      await eventually(async () => {
        row = (await s.store.db.knex('request_ledger').orderBy('started_at', 'desc').first()) as LedgerRow | undefined;
        return row !== undefined && row.outcome !== 'reserved';
      }, 10_000, 'the hung-up request settled');
      return row!;
    };

    for (const browser of [false, true]) {
      const engine = browser ? 'browser' : 'plain';
      it(`${engine}: a client that hangs up after 1 s on a 3 s target is not charged, and the target's request is cut with it`, async () => {
        const before = await s.store.remaining(key);
        const seen = observed.length;
        const started = await hangUp(s.target.url('/observed'), browser, 1_000);
        await eventually(() => observed.length > seen, 5_000, "the target's request ended");
        expect(observed[seen] - started, "ms until the target's request was cut").to.be.below(2_500);
        const row = await lastSettled();
        expect({ outcome: row.outcome, status: Number(row.status_sent) }).to.deep.equal({ outcome: 'refunded', status: 499 });
        expect(await s.store.remaining(key)).to.equal(before);
        if (browser) {
          // The session came back, reset, at once: the next render does not wait for the 3 s target.
          const t0 = Date.now();
          const next = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['timeout', '10']]);
          expect(next.status).to.equal(200);
          expect(Date.now() - t0, 'ms for the next render').to.be.below(2_000);
        }
      });
    }

    it('browser: twenty hung-up requests do not hold the pool', async () => {
      const before = await s.store.remaining(key);
      await Promise.all(Array.from({ length: 20 }, () => hangUp(s.target.url('/slow?ms=5000'), true, 300)));
      const t0 = Date.now();
      const next = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/page')], ['timeout', '20']]);
      expect(next.status).to.equal(200);
      // Twenty renders of 5 s would take 100 s; each stopped one gives its session back within a few.
      expect(Date.now() - t0, 'ms for a render after twenty hang-ups').to.be.below(8_000);
      await eventually(async () => (await unsettled(s.store)) === 0, 15_000, 'every hung-up request settled');
      const cost = Number(next.headers.get('svc-credits-cost'));
      expect(await s.store.remaining(key)).to.equal(before - cost);
    });

    it('random hang-ups under load: every credit is a 200 received, or a charge committed before its client hung up', async () => {
      const own = await s.store.key({ credits: 100_000 });
      const sent: Sent[] = [];
      const started = Date.now();
      const worker = async (w: number) => {
        for (let i = 0; Date.now() - started < 12_000; i++) {
          const browser = (w + i) % 4 === 0;
          const targetMs = Math.floor(Math.random() * 600);
          const hangUpMs = Math.random() < 0.5 ? Math.floor(Math.random() * 900) : undefined;
          const one: Sent = { cost: 0 };
          sent.push(one);
          const controller = new AbortController();
          const timer = hangUpMs === undefined ? undefined : setTimeout(() => {
            one.hungUpAt = Date.now();
            controller.abort();
          }, hangUpMs);
          try {
            const res = await s.call('/v2/general', [['x-api-key', own], ['url', s.target.url(`/slow?ms=${targetMs}`)], ['browser', String(browser)], ['timeout', '10']], { signal: controller.signal });
            await res.arrayBuffer();
            clearTimeout(timer);
            if (one.hungUpAt !== undefined) continue;
            one.status = res.status;
            one.requestId = res.headers.get('svc-request-id') ?? undefined;
            one.cost = Number(res.headers.get('svc-credits-cost') ?? 0);
          } catch {
            clearTimeout(timer);
            await sleep(10);
          }
        }
      };
      await Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
      await eventually(async () => (await unsettled(s.store)) === 0, 20_000, 'every request settled');

      const record = (await s.store.keys.find(own))!;
      const rows = ((await s.store.db.knex('request_ledger').where({ api_key_id: record.id })) as LedgerRow[]).map((r) => ({
        ...r, cost: Number(r.cost), status_sent: r.status_sent === null ? null : Number(r.status_sent), ended_at: r.ended_at === null ? null : Number(r.ended_at),
      }));
      const received = sent.filter((one) => one.status === 200);
      const hangUps = sent.filter((one) => one.hungUpAt !== undefined).map((one) => one.hungUpAt!);
      const receivedIds = new Set(received.map((one) => one.requestId));
      for (const one of received) {
        const row = rows.find((r) => r.request_id === one.requestId);
        expect(row && { outcome: row.outcome, cost: row.cost }, `200 ${one.requestId}`).to.deep.equal({ outcome: 'charged', cost: one.cost });
      }
      // A charge nobody received began before some client hung up (the cancellation is seen within
      // an event-loop turn, hence the margin); there are no more of them than hang-ups.
      const chargedUnseen = rows.filter((r) => r.outcome === 'charged' && !receivedIds.has(r.request_id));
      for (const r of chargedUnseen) expect(hangUps.some((at) => at >= (r.ended_at ?? 0) - 100), `charged row ${r.request_id} ended ${r.ended_at}`).to.equal(true);
      const cancelled = rows.filter((r) => r.outcome === 'refunded' && r.status_sent === 499);
      expect(chargedUnseen.length + cancelled.length, 'rows of hung-up requests').to.be.at.most(hangUps.length);
      expect(cancelled.length, 'requests refunded as cancelled').to.be.greaterThan(10);
      const consumed = record.creditsTotal - record.creditsRemaining;
      const charged = rows.filter((r) => r.outcome === 'charged').reduce((sum, r) => sum + r.cost, 0);
      expect({ consumed, charged }).to.deep.equal({ consumed: charged, charged: received.reduce((sum, one) => sum + one.cost, 0) + chargedUnseen.reduce((sum, r) => sum + r.cost, 0) });
      // The books of the whole database: on SQLite the suite's own file (MySQL suites share a schema).
      if (database.name === 'sqlite') expect(await booksBalance(s.databaseUrl)).to.equal(true);
      console.log(`      ${sent.length} requests, ${received.length} × 200 received, ${hangUps.length} hang-ups: ${cancelled.length} refunded as cancelled, ${chargedUnseen.length} charged before the hang-up`);
    });
  });
}
