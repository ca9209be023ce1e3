import { expect } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHARGE_NOT_RECORDED_DETAIL, CHARGE_UNCERTAIN_DETAIL } from '../../src/billing/charge-not-recorded-error.js';
import { DATABASE_UNAVAILABLE_DETAIL } from '../../src/http/errors/to-api-error.js';
import { eventually, waitUntil } from '../helpers/eventually.js';
import { exchange } from '../helpers/exchange.js';
import { answersAgainstLedger, booksBalance, ledgerRows, uncertainCharges, unsettled } from '../helpers/ledger-checks.js';
import { useMariaDbFaults } from '../helpers/mariadb-faults.js';

const TIMEOUT_S = 5;
/** An answer may come this long after the request's deadline (the answer is made and sent). */
const ANSWER_SLACK_MS = 1_500;
/**
 * A slot whose take committed as the connection died has no owner left to give it back: it is
 * freed only when its lease expires (the request's deadline plus this grace) and reconciliation
 * (every second, after a 1 s margin) deletes it. Short here, so the wait for it is bounded.
 */
const LEASE_GRACE_S = 2;
const LEASE_EXPIRY_BOUND_MS = (TIMEOUT_S + LEASE_GRACE_S + 1 + 1) * 1_000 + 5_000;

interface Answer {
  key: 'uncapped' | 'capped';
  status: number;
  detail?: string;
  cost: number;
  requestId?: string;
  started: number;
  ended: number;
}

/**
 * The production store failing as it does for real, on a private MariaDB (the machine's shared
 * one is never touched): SIGKILLed while debits and settlements commit, then frozen by SIGSTOP
 * for 20 s. Under a steady stream of requests every answer comes within its deadline, and once
 * the database is back and reconciliation has settled what the failure left reserved, every
 * credit is where the answers say: each 200 charged once, everything else refunded, the books
 * balanced, no slot held.
 */
describe('faults: the database killed mid-commit, and frozen (private MariaDB)', function () {
  this.timeout(150_000);
  const f = useMariaDbFaults({
    serverEnv: { LEASE_GRACE_SECONDS: String(LEASE_GRACE_S) },
    // A POST the target resets: a fast 404, refunded.
    prepare: ({ target }) => target.route('/reset', (req: IncomingMessage, _res: ServerResponse) => void setTimeout(() => req.socket.destroy(), 20)),
  });
  const { mariadb, target, keys, initial } = f;

  async function scrape(key: Answer['key'], ok: boolean): Promise<Answer> {
    const query = new URLSearchParams([['x-api-key', keys[key]], ['url', target.url(ok ? '/slow?ms=30' : '/reset')], ['browser', 'false'], ['timeout', String(TIMEOUT_S)]]);
    const started = Date.now();
    const res = await exchange(`${f.server.base}/v2/general?${query}`, ok ? 'GET' : 'POST', ok ? undefined : 'x');
    const detail = res.status === 200 ? undefined : (JSON.parse(res.text) as { detail: string }).detail;
    return { key, status: res.status, detail, cost: Number(res.headers.get('svc-credits-cost') ?? 0), requestId: res.headers.get('svc-request-id') ?? undefined, started, ended: Date.now() };
  }

  /** Eight clients, half per key, two pages for each failure, until `stop` is called. */
  function load() {
    const answers: Answer[] = [];
    const failures: unknown[] = [];
    let running = true;
    const worker = async (key: Answer['key'], n: number) => {
      for (let i = 0; running; i++) {
        try {
          const answer = await scrape(key, (i + n) % 3 !== 2);
          answers.push(answer);
          if (answer.status === 500) await sleep(25);
        } catch (err) {
          failures.push(err);
          await sleep(25);
        }
      }
    };
    const workers = [0, 1, 2, 3].flatMap((n) => [worker('uncapped', n), worker('capped', n)]);
    return {
      answers,
      failures,
      stop: async () => {
        running = false;
        await Promise.all(workers);
      },
      /** Both keys answered 200 to a request started after `since`. */
      recoveredSince: (since: number) => (['uncapped', 'capped'] as const).every((key) => answers.some((a) => a.key === key && a.status === 200 && a.started >= since)),
    };
  }

  /** Every answer clean and in time; then, once all is settled, every credit where the answers say. */
  async function expectExact(answers: Answer[], failures: unknown[], spentBefore: Record<Answer['key'], number>): Promise<void> {
    expect(failures, 'requests that got no HTTP answer').to.deep.equal([]);
    expect(f.server.logs.filter((l) => l.msg === 'unhandled error')).to.deep.equal([]);
    for (const a of answers) {
      const seen = JSON.stringify(a);
      // 409: the capped key's slots, whose release met the failure, are held until they expire.
      expect(a.status, seen).to.be.oneOf(a.key === 'capped' ? [200, 404, 409, 500] : [200, 404, 500]);
      if (a.status === 500) expect(a.detail, seen).to.be.oneOf([DATABASE_UNAVAILABLE_DETAIL, CHARGE_NOT_RECORDED_DETAIL, CHARGE_UNCERTAIN_DETAIL]);
      expect(a.ended - a.started, `answered after its deadline: ${seen}`).to.be.below(TIMEOUT_S * 1_000 + ANSWER_SLACK_MS);
    }
    await waitUntil(async () => (await unsettled(f.store).catch(() => 1)) === 0, 45_000);
    expect(await unsettled(f.store), 'reservations never settled').to.equal(0);
    const rows = await ledgerRows(f.store);
    const uncertain = uncertainCharges(f.server.logs);
    expect(answersAgainstLedger(answers, rows, uncertain), 'answers whose ledger row disagrees').to.deep.equal([]);
    for (const key of ['uncapped', 'capped'] as const) {
      const received = answers.filter((a) => a.key === key && a.status === 200).reduce((sum, a) => sum + a.cost, 0);
      const ids = new Set(answers.filter((a) => a.key === key && a.status === 500 && a.requestId !== undefined && uncertain.has(a.requestId)).map((a) => a.requestId));
      const landed = rows.filter((r) => ids.has(r.request_id) && r.outcome === 'charged').reduce((sum, r) => sum + r.cost, 0);
      const spent = initial - (await f.store.remaining(keys[key])) - spentBefore[key];
      expect(spent, `${key}: credits spent against the 200s its clients received`).to.equal(received + landed);
    }
    let leases = -1;
    await waitUntil(async () => (leases = await f.store.leasesOf(keys.capped)) === 0, LEASE_EXPIRY_BOUND_MS);
    expect(leases, 'concurrency slots left held').to.equal(0);
    expect(await booksBalance(mariadb.url)).to.equal(true);
    if (uncertain.size > 0) console.log(`      ${uncertain.size} charges left uncertain (answered 500)`);
  }

  const spentNow = async () => ({ uncapped: initial - (await f.store.remaining(keys.uncapped)), capped: initial - (await f.store.remaining(keys.capped)) });

  it('SIGKILLed three times while debits and settlements commit: every answer in time, every credit exact', async () => {
    const before = await spentNow();
    const run = load();
    await sleep(1_000);
    const rounds: string[] = [];
    for (let round = 0; round < 3; round++) {
      await sleep(200 + Math.random() * 500);
      const inFlight = run.answers.length;
      await mariadb.kill();
      const killedAt = Date.now();
      await sleep(500);
      await mariadb.start();
      const upAt = Date.now();
      await eventually(() => run.recoveredSince(upAt), 20_000, 'requests succeed after the database is back');
      rounds.push(`down ${upAt - killedAt} ms, ${run.answers.length - inFlight} answers`);
    }
    await sleep(500);
    await run.stop();
    expect(run.answers.filter((a) => a.status === 500).length, 'the kills were met').to.be.greaterThan(0);
    await expectExact(run.answers, run.failures, before);
    console.log(`      ${run.answers.length} answers; ${rounds.join('; ')}`);
  });

  it('frozen by SIGSTOP for 20 s: answers within their deadlines meanwhile, and exact credits once it thaws', async () => {
    const before = await spentNow();
    const run = load();
    await sleep(1_000);
    mariadb.freeze();
    const frozenAt = Date.now();
    try {
      await sleep(20_000);
    } finally {
      mariadb.thaw();
    }
    const thawedAt = Date.now();
    const during = run.answers.filter((a) => a.started >= frozenAt + TIMEOUT_S * 1_000 && a.ended <= thawedAt);
    const overlapping = run.answers.filter((a) => a.ended >= frozenAt && a.started <= thawedAt).map((a) => `${a.key} ${a.status} ${a.started - frozenAt}..${a.ended - frozenAt}`);
    expect(during.length, `requests answered while the database was frozen: ${overlapping.join('; ')}`).to.be.greaterThan(8);
    expect(during.filter((a) => a.status !== 500), 'answers while frozen other than "database unavailable"').to.deep.equal([]);
    await eventually(() => run.recoveredSince(thawedAt), 20_000, 'requests succeed after the database thaws');
    await sleep(500);
    await run.stop();
    await expectExact(run.answers, run.failures, before);
    console.log(`      ${run.answers.length} answers, ${during.length} of them while frozen`);
  });
});
