import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { addBrowserPages } from '../helpers/browser-pages.js';
import { browsersIn, livingIn, sessionGroupsOf } from '../helpers/chromium-processes.js';
import { testDatabases } from '../helpers/databases.js';
import type { ServerEvent } from '../helpers/server-process.js';
import { useSuite, type Suite } from '../helpers/suite.js';
import { eventually } from '../helpers/eventually.js';

const database = testDatabases()[0];
/** The pool's retirements whose reason matches, as its events say (server/pool-listeners.ts). */
const retirements = (s: Suite, reason: RegExp): ServerEvent[] => s.server.eventsNamed('pool.retired').filter((e) => reason.test(String(e.reason)));

describe('browser pool: isolation between requests', function () {
  this.timeout(60_000);
  const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });
  before(() => addBrowserPages(s.target));

  it('shows the next request nothing of the last: cookies, local and session storage, cache', async () => {
    const key = await s.store.key();
    const render = (path: string) => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)]]);
    expect((await render('/isolation-write')).status).to.equal(200);
    const cachedBefore = s.target.requestsTo('/cacheable.png').length;
    const res = await render('/isolation-read');
    const seen = /<p id="seen">(.*?)<\/p>/.exec(await res.text())?.[1];
    expect(JSON.parse(seen ?? '{}')).to.deep.equal({ local: null, session: null, cookie: '' });
    // The cacheable image was fetched again: the cache was emptied.
    expect(s.target.requestsTo('/cacheable.png').length).to.equal(cachedBefore + 1);
  });

  it('lets a page that writes state as it is left do so before the wipe, not into the next request', async () => {
    const key = await s.store.key();
    const render = (path: string) => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)]]);
    expect((await render('/isolation-leave')).status).to.equal(200);
    const seen = /<p id="seen">(.*?)<\/p>/.exec(await (await render('/isolation-read')).text())?.[1];
    expect(JSON.parse(seen ?? '{}')).to.deep.equal({ local: null, session: null, cookie: '' });
  });

  for (const [path, how] of [['/isolation-flood', 'frozen'], ['/isolation-flood-leave', 'navigated away from']]) {
    it(`lets nothing a page ${how} was still writing as it stopped land after the wipe`, async function () {
      // On a busy machine the flood's writes can take longer to land than a reset may: the
      // session is then retired instead (killed and replaced), which takes its time.
      this.timeout(150_000);
      const key = await s.store.key();
      const render = (p: string) => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(p)]]);
      const leaks: string[] = [];
      for (let i = 0; i < 6; i++) {
        expect((await render(path)).status).to.equal(200);
        const seen = /<p id="seen">(.*?)<\/p>/.exec(await (await render('/isolation-read')).text())?.[1] ?? '{}';
        if (seen !== JSON.stringify({ local: null, session: null, cookie: '' })) leaks.push(seen);
      }
      expect(leaks).to.deep.equal([]);
    });
  }
});

describe('browser pool: retiring sessions', function () {
  this.timeout(60_000);
  const s = useSuite(database, { BROWSER_POOL_SIZE: '1', BROWSER_MAX_PAGES: '3' });

  it('retires a session after BROWSER_MAX_PAGES renders and keeps serving with its replacement', async () => {
    addBrowserPages(s.target);
    const key = await s.store.key();
    for (let i = 0; i < 7; i++) {
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/raw-source')]]);
      expect(res.status).to.equal(200);
    }
    expect(retirements(s, /page limit/)).to.have.length(2);
  });
});

describe('browser pool: memory limit', function () {
  this.timeout(60_000);
  const s = useSuite(database, { BROWSER_POOL_SIZE: '1', BROWSER_MAX_MEMORY_MB: '50' });

  it('retires a session whose processes use more than BROWSER_MAX_MEMORY_MB', async () => {
    addBrowserPages(s.target);
    const key = await s.store.key();
    // Memory is read every 10 renders of a session; a session retired for another reason
    // starts counting again, so render until the check has run (bounded).
    for (let i = 0; i < 40 && retirements(s, /^memory/).length === 0; i++) {
      expect((await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/raw-source')]])).status).to.equal(200);
      await sleep(20);
    }
    await eventually(() => retirements(s, /^memory/).length >= 1);
    expect(String(retirements(s, /^memory/)[0].reason)).to.match(/^memory \d+ MB$/);
    const res = await s.call('/v2/general', [['x-api-key', key], ['url', s.target.url('/raw-source')]]);
    expect(res.status).to.equal(200);
  });
});

describe('browser pool: failures', function () {
  this.timeout(90_000);
  const s = useSuite(database, { BROWSER_POOL_SIZE: '2' });
  let key: string;
  before(async () => {
    addBrowserPages(s.target);
    key = await s.store.key({ planName: 'free', credits: 10_000, maxConcurrency: 1 });
  });
  const render = (k: string, path: string, extra: Array<[string, string]> = []) =>
    s.call('/v2/general', [['x-api-key', k], ['url', s.target.url(path)], ...extra]);

  it('abandons a hung page at the deadline, kills its session and replaces it, without holding up others', async () => {
    const other = await s.store.key();
    const asked = s.target.requestsTo('/raw-source').length;
    const hung = render(other, '/raw-source', [['js_snippet', Buffer.from('for (;;) {}').toString('base64')], ['timeout', '5']]);
    // The page has loaded and its script spins: the session is taken.
    await eventually(() => s.target.requestsTo('/raw-source').length > asked, 5_000, 'the hung render loaded its page');
    const started = Date.now();
    const normal = await render(other, '/raw-source');
    expect(normal.status).to.equal(200);
    expect(Date.now() - started).to.be.below(2_500);
    const hungAnswer = await hung;
    expect(hungAnswer.status).to.equal(404);
    await eventually(() => retirements(s, /failure/).length >= 1);
    await eventually(async () => (await render(other, '/raw-source')).status === 200);
  });

  it('fails only the request whose Chromium is killed mid-render: not charged, lease released, pool healed', async () => {
    const before = await s.store.remaining(key);
    const doomed = render(key, '/never-finishes', [['timeout', '20']]);
    await eventually(() => s.target.requestsTo('/never-finishes').length > 0);
    await sleep(300);
    // Only this server's browsers: never anything else on the machine.
    for (const pid of browsersIn(sessionGroupsOf(s.server.pid))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    const res = await doomed;
    expect(res.status).to.equal(500);
    expect(await res.json()).to.deep.equal({ detail: 'The browser rendering the page failed; the request was not charged. Retry it.' });
    expect(await s.store.remaining(key)).to.equal(before);
    expect(await s.store.leasesOf(key)).to.equal(0);
    // Every Chromium died (the idle session's too); the next request waits for a fresh one.
    expect((await render(key, '/raw-source')).status).to.equal(200);
    expect(await s.store.remaining(key)).to.equal(before - 10);
  });

  it('leaves no Chromium behind after SIGTERM', async () => {
    const groups = sessionGroupsOf(s.server.pid);
    expect(groups.length).to.be.greaterThan(0);
    expect(livingIn(groups).length).to.be.greaterThan(0);
    await s.server.stop();
    expect(livingIn(groups)).to.deep.equal([]);
  });
});
