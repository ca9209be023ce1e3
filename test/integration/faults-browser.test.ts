import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { browsersIn, livingIn, membersOf, sessionGroupsOf } from '../helpers/chromium-processes.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';
import { eventually, waitUntil } from '../helpers/eventually.js';

const database = testDatabases()[0];
/** Each render's deadline; an answer must come before it (plus the time to send it). */
const TIMEOUT_S = 20;
/** How long the page's image takes: the render is in flight for that long. */
const RENDER_MS = 2_500;

function kill(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

interface Answer {
  status: number;
  detail: unknown;
  cost: number;
  ms: number;
}

/**
 * A session's browser or driver dies while renders are in flight (pool of two, both busy): each
 * request ends with a clean answer well before its deadline, only the 200s are charged (once),
 * no slot is left held, nothing of the dead session outlives it, the pool grows back to its size
 * and renders again, and after the server stops none of its Chromium is left. browser-pool.test.ts
 * kills every Chromium under one request; here one session of two dies under two requests, and
 * its driver is killed too.
 */
describe('faults: the browser dies mid-render', function () {
  this.timeout(90_000);
  const s = useSuite(database, { BROWSER_POOL_SIZE: '2' });
  let key: string;
  const initial = 100_000;
  /** Every session process group the server has had: none may outlive it. */
  const groupsSeen = new Set<number>();
  let specWarm = false;

  before(async () => {
    // A page whose load waits for a slow image: the render is in flight for RENDER_MS.
    s.target.route('/slow-render', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body><p id="x">slow render</p><img src="/slow?ms=${RENDER_MS}"></body></html>`);
    });
    s.target.route('/fast-render', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>fast</p>'));
    // A capped plan takes a concurrency slot per request: a slot left held would show.
    key = await s.store.key({ planName: 'startup', credits: initial, maxConcurrency: 4 });
    for (const g of sessionGroupsOf(s.server.pid)) groupsSeen.add(g);
  });

  after(async () => {
    // However the tests went, the server's stop takes every Chromium it started with it.
    await s.server.stop();
    await waitUntil(() => livingIn([...groupsSeen]).length === 0, 10_000);
    expect(livingIn([...groupsSeen]), 'processes of the server sessions left after it stopped').to.deep.equal([]);
  });

  async function render(path: string): Promise<Answer> {
    const started = Date.now();
    const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)], ['timeout', String(TIMEOUT_S)]]);
    const text = await res.text();
    const detail = res.status === 200 ? undefined : (JSON.parse(text) as { detail: unknown }).detail;
    if (res.status !== 200) await expectMatchesSpec('v2GeneralGet', res, { detail });
    return { status: res.status, detail, cost: Number(res.headers.get('svc-credits-cost') ?? 0), ms: Date.now() - started };
  }

  /** The server's session groups once the pool is back to its two sessions, both with a live browser. */
  async function fullPool(): Promise<number[]> {
    let groups: number[] = [];
    await eventually(
      () => {
        groups = sessionGroupsOf(s.server.pid);
        return groups.length === 2 && groups.every((g) => browsersIn([g]).length > 0);
      },
      30_000,
      'the pool back to two sessions',
    );
    for (const g of groups) groupsSeen.add(g);
    return groups;
  }

  /**
   * Three renders in flight: one on each session, the third queued for a session; `fault` kills
   * something of one session's group once both pages are loading. Returns the answers and the
   * group hit.
   */
  async function renderThrough(fault: (group: number) => void): Promise<{ answers: Answer[]; group: number }> {
    if (!specWarm) {
      // The spec's validators compile on first use (seconds on a loaded machine): not while renders are timed.
      await expectMatchesSpec('v2GeneralGet', new Response('{"detail":"x"}', { status: 500, headers: { 'content-type': 'application/json' } }), { detail: 'x' });
      specWarm = true;
    }
    const [group] = await fullPool();
    const asked = s.target.requestsTo('/slow').length;
    const inFlight = [render('/slow-render'), render('/slow-render'), render('/slow-render')];
    // Both pages are loading (their slow images asked for): the renders are mid-way.
    await eventually(() => s.target.requestsTo('/slow').length >= asked + 2, 30_000, 'both renders reached the slow image');
    await sleep(300);
    fault(group);
    return { answers: await Promise.all(inFlight), group };
  }

  async function expectSettled(answers: Answer[], before: number, group: number): Promise<void> {
    for (const a of answers) {
      expect(a.status, JSON.stringify(a)).to.be.oneOf([200, 404, 500]);
      if (a.status !== 200) expect(a.detail, JSON.stringify(a)).to.be.a('string').and.not.equal('');
      expect(a.ms, `an answer came after the deadline: ${JSON.stringify(a)}`).to.be.below(TIMEOUT_S * 1_000 + 2_000);
      // A dead browser is noticed, not waited out until the deadline.
      if (a.status !== 200) expect(a.ms, `a failure took most of the deadline: ${JSON.stringify(a)}`).to.be.below((TIMEOUT_S * 1_000) / 2);
    }
    // The session that was not touched rendered its page, and the queued request got a session;
    // the request on the dead session failed (never charged).
    expect(answers.filter((a) => a.status === 200).length, JSON.stringify(answers)).to.be.at.least(2);
    const charged = answers.filter((a) => a.status === 200).reduce((sum, a) => sum + a.cost, 0);
    expect(answers.filter((a) => a.status === 200).every((a) => a.cost === 10)).to.equal(true);
    expect(before - (await s.store.remaining(key)), 'credits spent vs. charged by 200s').to.equal(charged);
    expect(await s.store.leasesOf(key), 'slots left held').to.equal(0);
    // Nothing of the dead session lives on: its whole process group is gone.
    await waitUntil(() => livingIn([group]).length === 0, 10_000);
    expect(livingIn([group]), 'processes of the dead session left').to.deep.equal([]);
    // The pool grows back to its size, and renders succeed (and are charged) again.
    const groups = await fullPool();
    expect(groups).to.not.include(group);
    const after = await s.store.remaining(key);
    for (let i = 0; i < 3; i++) {
      const a = await render('/fast-render');
      expect(a.status, JSON.stringify(a)).to.equal(200);
    }
    expect(after - (await s.store.remaining(key))).to.equal(30);
    expect(await s.store.leasesOf(key)).to.equal(0);
  }

  it("Chromium killed (SIGKILL) mid-render on one of two busy sessions: clean answers, exact credits, the pool heals", async () => {
    const before = await s.store.remaining(key);
    const { answers, group } = await renderThrough((g) => {
      const victims = browsersIn([g]);
      expect(victims, 'the session has a browser process to kill').to.have.length.greaterThan(0);
      kill(victims);
    });
    console.log(`      answers: ${answers.map((a) => `${a.status} in ${a.ms} ms${a.detail ? ` (${String(a.detail)})` : ''}`).join(', ')}`);
    await expectSettled(answers, before, group);
  });

  it('chromedriver killed (SIGKILL) mid-render: the same, and its orphaned Chromium does not outlive it', async () => {
    const before = await s.store.remaining(key);
    const { answers, group } = await renderThrough((g) => {
      // Only the session's chromedriver dies; its browser would live on, but for the watchdog
      // that leads the group and ends it with the driver.
      const drivers = membersOf([g]).filter((p) => /chromedriver/.test(p.args) && !p.args.startsWith('/bin/sh')).map((p) => p.pid);
      expect(drivers).to.have.length(1);
      kill(drivers);
    });
    console.log(`      answers: ${answers.map((a) => `${a.status} in ${a.ms} ms${a.detail ? ` (${String(a.detail)})` : ''}`).join(', ')}`);
    await expectSettled(answers, before, group);
  });

  it('neither fault left an error in the log other than the browser failures, and no session start failed for good', () => {
    const errors = s.server.logs.filter((l) => (l.level ?? 0) >= 50);
    for (const e of errors) expect(String(e.msg), JSON.stringify(e).slice(0, 1500)).to.be.oneOf(['browser failure during render', 'failure inside the service', 'browser session could not be started']);
    expect(s.server.logs.filter((l) => l.msg === 'unhandled error')).to.deep.equal([]);
  });
});
