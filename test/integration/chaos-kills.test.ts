import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { membersOf } from '../helpers/chromium-processes.js';
import { testDatabases } from '../helpers/databases.js';
import { TestStore } from '../helpers/keys.js';
import { answersAgainstLedger, booksBalance, type LedgerRow, ledgerRows, uncertainCharges, unsettled } from '../helpers/ledger-checks.js';
import { ServerProcess } from '../helpers/server-process.js';
import { TargetServer } from '../helpers/target-server.js';

const KILLS = 6;
/** Answers of 200 a run must have received to say anything about the books. */
const MIN_ANSWERED = 50;
const WORKERS = 16;
/**
 * A 200's charge is durable before the 200 is sent, so a kill that falls between the two leaves a
 * charged request whose answer never left the process: no design that commits before it answers
 * can close that instant (about one in ten requests in flight at a kill, measured here). Each such
 * row must have ended (its charge begun) this close before a kill; any other charged row must
 * match a 200 a client received.
 */
const COMMIT_TO_ANSWER_WINDOW_MS = 1_500;
/**
 * A server sees a hang-up when its event loop reads the socket's end: a restarted one, warming
 * under sixteen clients on two cores, took 184 ms in one run, and began a request (its
 * reservation) before it saw that request's client go. Such a row must have a hung-up request
 * of its key in flight while the server had it: begun before the charge, gone no earlier than
 * this before the reservation.
 */
const HANG_UP_UNSEEN_MS = 1_000;

interface Sent {
  key: string;
  startedAt: number;
  /** When the client hung up on purpose, before its answer (a fifth of the requests). */
  hungUpAt?: number;
  /** Undefined when no complete answer arrived (the server was killed, or was not up). */
  status?: number;
  requestId?: string;
  cost: number;
}

/**
 * The service SIGKILLed at random instants under mixed load from several keys, and started again
 * on the same database each time, while a fifth of the clients hang up at random. Afterwards
 * every credit is accounted for: each 200 a client received is charged at its
 * `Svc-credits-cost`, every other answer refunded, nothing charged for a request that got no
 * answer (save one whose charge committed in the instant before a kill or before its client
 * hung up, which the ledger shows), the books balance, no slot is held, and no browser survived.
 */
for (const database of testDatabases()) {
  describe(`chaos: the server killed at random under load (${database.name})`, function () {
    this.timeout(240_000);
    let target: TargetServer;
    let store: TestStore;
    let own: { url: string; drop: () => Promise<void> };

    before(async () => {
      own = await database.isolated();
      target = await new TargetServer().start();
      store = await TestStore.open(own.url);
    });
    after(async () => {
      await store?.close();
      await target?.stop();
      await own?.drop();
    });

    it(`loses no credit and leaks no browser across ${KILLS} SIGKILLs`, async () => {
      const keys = [
        await store.key({ credits: 1_000_000 }),
        await store.key({ planName: 'startup', credits: 50_000 }),
        await store.key({ planName: 'free', credits: 10_000, maxConcurrency: 4 }),
      ];
      const env = {
        DATABASE_URL: own.url,
        ALLOW_PRIVATE_TARGETS: 'true',
        BROWSER_POOL_SIZE: '2',
        RECONCILE_INTERVAL_SECONDS: '1',
        RECONCILE_MARGIN_SECONDS: '1',
        LEASE_GRACE_SECONDS: '1',
      };
      let server = await new ServerProcess(env).start('listening');
      const servers = [server];
      const sent: Sent[] = [];
      const kills: number[] = [];
      const groupChecks: Array<Promise<string[]>> = [];
      let stopping = false;

      const worker = async (w: number) => {
        for (let i = 0; !stopping; i++) {
          const key = keys[(w + i) % keys.length];
          const roll = Math.random();
          const [path, browser] = roll < 0.15 ? ['/page', 'true'] : roll < 0.3 ? ['/loop', 'false'] : ['/page', 'false'];
          const one: Sent = { key, startedAt: Date.now(), cost: 0 };
          sent.push(one);
          const query = new URLSearchParams([['x-api-key', key], ['url', target.url(path)], ['browser', browser], ['timeout', '5']]);
          // A fifth of the clients hang up at a random instant, before or after their answer began.
          const controller = new AbortController();
          const hangUp = Math.random() < 0.2 ? setTimeout(() => {
            one.hungUpAt = Date.now();
            controller.abort();
          }, Math.random() * 1_500) : undefined;
          try {
            const res = await fetch(`${server.base}/v2/general?${query}`, { signal: AbortSignal.any([controller.signal, AbortSignal.timeout(30_000)]) });
            await res.arrayBuffer();
            clearTimeout(hangUp);
            if (one.hungUpAt !== undefined) continue;
            one.status = res.status;
            one.requestId = res.headers.get('svc-request-id') ?? undefined;
            one.cost = Number(res.headers.get('svc-credits-cost') ?? 0);
          } catch {
            clearTimeout(hangUp);
            // No answer: the client hung up, or the server was killed, or is not up again yet.
            if (one.hungUpAt === undefined) await sleep(100);
          }
        }
      };
      const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));

      for (let k = 0; k < KILLS; k++) {
        await sleep(400 + Math.random() * 1_100);
        const victim = server;
        kills.push(Date.now());
        await victim.kill();
        groupChecks.push(browsersOutlive(victim, 10_000));
        server = await new ServerProcess(env).start('listening');
        servers.push(server);
      }
      // The last server serves until the run has answers enough to judge it by: six restarts a
      // second or so apart leave little time to answer on a busy machine (43 of 200 in one run).
      const enough = Date.now() + 20_000;
      await sleep(1_000);
      while (sent.filter((one) => one.status === 200).length <= MIN_ANSWERED && Date.now() < enough) await sleep(200);
      stopping = true;
      await Promise.all(workers);

      // Every reservation left by a kill is refunded once it can no longer be charged (its
      // 5 s deadline, the 10 s settle grace, the 1 s margin) by the instance still running.
      const deadline = Date.now() + 40_000;
      while ((await unsettled(store)) > 0 && Date.now() < deadline) {
        await sleep(500);
      }
      await server.stop();
      expect(await groupChecks.reduce(async (all, one) => [...(await all), ...(await one)], Promise.resolve([] as string[])), 'browsers of a killed server alive 10 s later').to.deep.equal([]);

      const logs = servers.flatMap((one) => one.logs);
      const rows = await ledgerRows(store);
      const left = rows.filter((r) => r.outcome === 'reserved');
      // What the surviving instance said while it should have been reconciling them.
      if (left.length > 0) console.log(server.rawOutput.filter((l) => /"level":(40|50|60)/.test(l)).slice(-10).join('\n'));
      expect(left, 'reservations never settled').to.deep.equal([]);
      const answered = sent.filter((s): s is Sent & { status: number } => s.status !== undefined);
      const received200 = answered.filter((s) => s.status === 200);
      expect(received200.length, 'answers of 200 received').to.be.greaterThan(MIN_ANSWERED);
      expect(kills).to.have.length(KILLS);
      const uncertain = uncertainCharges(logs);
      expect(answersAgainstLedger(answered, rows, uncertain), 'answers whose ledger row disagrees').to.deep.equal([]);
      const receivedIds = new Set(received200.map((s) => s.requestId));
      const chargedUnseen = rows.filter((r) => r.outcome === 'charged' && !receivedIds.has(r.request_id) && !uncertain.has(r.request_id));
      const chargedUncertain = rows.filter((r) => r.outcome === 'charged' && uncertain.has(r.request_id));
      // Its charge committed in the instant before a kill, or for a request whose client hung up
      // while the server had it and had not seen it go (one hung-up request explains one row).
      const idOfKey = new Map(await Promise.all(keys.map(async (k) => [k, (await store.keys.find(k))!.id] as const)));
      // Earliest hang-up first, rows by their end: a row takes the first client that can explain it.
      const hungUp = sent.filter((one) => one.hungUpAt !== undefined).sort((x, y) => x.hungUpAt! - y.hungUpAt!);
      const explained = new Set<Sent>();
      for (const r of [...chargedUnseen].sort((x, y) => (x.ended_at ?? 0) - (y.ended_at ?? 0))) {
        const endedAt = r.ended_at ?? 0;
        if (kills.some((at) => at >= endedAt && at - endedAt <= COMMIT_TO_ANSWER_WINDOW_MS)) continue;
        const client = hungUp.find((one) => !explained.has(one) && idOfKey.get(one.key) === r.api_key_id && one.startedAt <= endedAt
          && one.hungUpAt! >= r.started_at - HANG_UP_UNSEEN_MS && one.hungUpAt! <= endedAt + COMMIT_TO_ANSWER_WINDOW_MS);
        if (client) {
          explained.add(client);
          continue;
        }
        expect.fail(`charged row ${r.request_id}, whose answer was not received, ended ${endedAt}: kills at ${kills.join(', ')}\n${await whyCharged(store, r, logs, sent.filter((one) => idOfKey.get(one.key) === r.api_key_id))}`);
      }

      for (const key of keys) {
        const record = (await store.keys.find(key))!;
        const charged = rows.filter((r) => r.api_key_id === record.id && r.outcome === 'charged');
        const receivedCost = received200.filter((s) => s.key === key).reduce((sum, s) => sum + s.cost, 0);
        const cutCost = [...chargedUnseen, ...chargedUncertain].filter((r) => r.api_key_id === record.id).reduce((sum, r) => sum + r.cost, 0);
        const consumed = record.creditsTotal - record.creditsRemaining;
        expect({ consumed, ledger: charged.reduce((sum, r) => sum + r.cost, 0) }).to.deep.equal({ consumed: receivedCost + cutCost, ledger: receivedCost + cutCost });
      }
      const leases = await store.db.knex('concurrency_leases').count({ n: '*' }).first();
      expect(Number(leases?.n ?? 0), 'concurrency slots still held').to.equal(0);
      expect(await booksBalance(own.url)).to.equal(true);
      console.log(`      ${sent.length} requests, ${answered.length} answered, ${received200.length} × 200, ${hungUp.length} hung up, ${KILLS} kills, ${chargedUnseen.length} charged before a kill or a hang-up`);
    });
  });
}

/**
 * What is known of a charged row no client received: the row itself, what the server logged of it
 * (its access-log line says whether the 200 went out, and when), and its key's requests around it.
 */
async function whyCharged(store: TestStore, row: LedgerRow, logs: Array<Record<string, unknown>>, ofKey: Sent[]): Promise<string> {
  const full = await store.db.knex('request_ledger').where({ request_id: row.request_id }).first();
  const logged = logs.filter((l) => l.requestId === row.request_id);
  const endedAt = row.ended_at ?? 0;
  // Requests that met no server (it was down) are left out: they say nothing of this row.
  const near = ofKey.filter((one) => (one.status !== undefined || one.hungUpAt !== undefined) && one.startedAt <= endedAt + 1_000 && (one.hungUpAt ?? one.startedAt) >= endedAt - 3_000);
  return [
    `row: ${JSON.stringify(full)}`,
    `server said: ${logged.map((l) => JSON.stringify(l)).join('\n  ') || 'nothing'}`,
    `its key's answered or hung-up requests around it (ms from its end): ${near.map((one) => `[start ${one.startedAt - endedAt}${one.hungUpAt === undefined ? '' : ` hung up ${one.hungUpAt - endedAt}`} status ${one.status ?? '-'} ${one.requestId ?? ''}]`).join(' ')}`,
  ].join('\n  ');
}

/** The processes (Chromium, chromedriver, watchdogs) of a killed server's sessions still alive after `withinMs`. */
async function browsersOutlive(victim: ServerProcess, withinMs: number): Promise<string[]> {
  const groups = victim.eventsNamed('pool.started').map((e) => Number(e.processGroup));
  const until = Date.now() + withinMs;
  while (membersOf(groups).length > 0 && Date.now() < until) await sleep(250);
  return membersOf(groups).map((p) => `${p.pid} ${p.args.slice(0, 80)}`);
}
