import { expect } from 'chai';
import { ActionResultsBuilder } from '../../../../src/engines/browser/actions/action-results.js';
import { OwnPorts } from '../../../../src/egress/target-policy/own-ports.js';
import type { ActionPage } from '../../../../src/engines/browser/actions/action-page.js';
import { executeJavascript, jsonDepth, MAX_SCRIPT_RETURN_CHARS, MAX_SCRIPT_RETURN_DEPTH } from '../../../../src/engines/browser/actions/script-action.js';
import { BrowserSession } from '../../../../src/engines/browser/browser-session.js';
import type { CdpSession } from '../../../../src/engines/browser/cdp-session.js';
import type { PageReader } from '../../../../src/engines/browser/page-reader.js';
import { Deadline } from '../../../../src/time/deadline.js';
import { directEgress } from '../../../helpers/egress.js';
import { recordStartedGroup } from '../../../helpers/started-processes.js';
import { TargetServer } from '../../../helpers/target-server.js';

const CAP = MAX_SCRIPT_RETURN_CHARS;

/**
 * The session's DevTools connection, each answer's size kept: what crossed from the browser for
 * every command (the socket carries the answer's JSON, whatever else the command did).
 */
function measured(cdp: CdpSession, sizes: number[]): CdpSession {
  return new Proxy(cdp, {
    get(target, name) {
      if (name === 'send') {
        return async (method: string, params?: object, timeoutMs?: number) => {
          const answer: unknown = await target.send(method, params, timeoutMs);
          sizes.push(JSON.stringify(answer).length);
          return answer;
        };
      }
      const member: unknown = Reflect.get(target, name, target);
      return typeof member === 'function' ? member.bind(target) : member;
    },
  });
}

describe('executeJavascript (real Chromium): the value measured in the page, only a bounded answer crossing', function () {
  this.timeout(60_000);
  let target: TargetServer;
  let session: BrowserSession;
  let sizes: number[];
  let page: ActionPage;
  const outcome = (script: string) => executeJavascript(page, { type: 'executeJavascript', script });
  const run = async (script: string) => (await outcome(script)).returned;

  before(async () => {
    target = await new TargetServer().start();
    target.route('/strict', (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'none'; require-trusted-types-for 'script'" })
        .end('<p id="p">strict</p>'),
    );
    session = await BrowserSession.create({ chromiumPath: '/usr/bin/chromium', chromedriverPath: '/usr/bin/chromedriver', remoteUrl: undefined, gatewayHost: '127.0.0.1', ownPorts: new OwnPorts() });
    recordStartedGroup(session.processGroup);
    session.gateway.serve(directEgress({ allowPrivate: true, budgetMs: 60_000 }));
    await session.driver.get(target.url('/page'));
  });
  beforeEach(() => {
    sizes = [];
    page = {
      cdp: measured(session.cdp, sizes),
      mainFrameId: session.mainFrameId,
      reader: {} as PageReader,
      useWindow: async () => undefined,
      deadline: new Deadline(20_000),
      ends: new AbortController().signal,
      maxBodyBytes: 10 * 1024 * 1024,
    };
  });
  after(async () => {
    session?.gateway.finish();
    await session?.quit();
    await target?.stop();
  });

  it('answers each kind of value as Firecrawl does: its type, its JSON value', async () => {
    expect(await run("document.title + '|' + location.pathname")).to.deep.equal({ type: 'string', value: 'Target|/page' });
    expect(await run('let a = 2; a * 21')).to.deep.equal({ type: 'number', value: 42 });
    expect(await run("new Promise((done) => setTimeout(() => done({ n: [1, 'two'], t: true }), 5))")).to.deep.equal({ type: 'object', value: { n: [1, 'two'], t: true } });
    expect(await run('[1, 2]')).to.deep.equal({ type: 'array', value: [1, 2] });
    expect(await run('null')).to.deep.equal({ type: 'object', value: null });
    expect(await run('undefined')).to.deep.equal({ type: 'undefined', value: null });
    expect(await run('(() => 1)')).to.deep.equal({ type: 'function', value: null });
    expect(await run('10n')).to.deep.equal({ type: 'bigint', value: null });
    expect(await run('NaN')).to.deep.equal({ type: 'number', value: null });
    expect(await run('const o = {}; o.o = o; o')).to.deep.equal({ type: 'object', value: null });
    expect(await run('var kept = 7; kept')).to.deep.equal({ type: 'number', value: 7 });
    expect(await run('window.kept')).to.deep.equal({ type: 'number', value: 7 });
  });

  it('a script that throws, rejects or does not parse is an error that says nothing of it', async () => {
    for (const script of ["throw new Error('secret words')", "Promise.reject('secret words')", 'this is not javascript(']) {
      expect(await run(script)).to.deep.equal({ type: 'error', value: 'the script threw an exception' });
    }
  });

  it(`a string of ${CAP + 1} characters is refused in the page: the answer crossing is as small as a small value's`, async () => {
    expect(await run("'x'.repeat(10)")).to.deep.equal({ type: 'string', value: 'xxxxxxxxxx' });
    const small = Math.max(...sizes);
    sizes.length = 0;
    expect(await run(`'x'.repeat(${CAP + 1})`)).to.deep.equal({ type: 'error', value: `the value is at least ${CAP + 3} characters of JSON: at most ${CAP} are answered` });
    const large = Math.max(...sizes);
    // The same few dozen characters of envelope: the value's megabyte never left the browser.
    expect(large / small).to.be.lessThan(2);
    expect(large).to.be.lessThan(1_000);
  });

  it('so are a large object, a large thrown value and a large value the page disguises, whatever its own JSON says', async () => {
    const big = `Array.from({ length: ${CAP} }, (_, i) => i)`;
    expect((await run(big)).type).to.equal('error');
    expect(await run(`throw 'x'.repeat(${4 * CAP})`)).to.deep.equal({ type: 'error', value: 'the script threw an exception' });
    expect(await run(`Promise.reject(new Error('x'.repeat(${4 * CAP})))`)).to.deep.equal({ type: 'error', value: 'the script threw an exception' });
    // A page that makes JSON.stringify lie: what it says is measured as it is.
    expect((await run(`JSON.stringify = () => 'y'.repeat(${2 * CAP}); ({ a: 1 })`)).value).to.contain('characters of JSON');
    expect(await run("JSON.stringify = () => 'not json'; ({ a: 1 })")).to.deep.equal({ type: 'object', value: null });
    expect(Math.max(...sizes)).to.be.lessThan(1_000);
  });

  it(`a value nested deeper than ${MAX_SCRIPT_RETURN_DEPTH} is refused by name; one at the bound is answered`, async () => {
    // A fresh page: an earlier test left its JSON.stringify replaced.
    await session.driver.get(target.url('/page'));
    const nested = (depth: number) => `let v = 0; for (let i = 0; i < ${depth}; i++) v = i % 2 ? [v] : { v }; v`;
    const atBound = await run(nested(MAX_SCRIPT_RETURN_DEPTH));
    expect(atBound.type).to.equal('array');
    expect(jsonDepth(JSON.stringify(atBound.value))).to.equal(MAX_SCRIPT_RETURN_DEPTH);
    expect(await run(nested(MAX_SCRIPT_RETURN_DEPTH + 1))).to.deep.equal({ type: 'error', value: `the value nests arrays or objects more than ${MAX_SCRIPT_RETURN_DEPTH} deep` });
    // JSON the page's own stringify makes, a megabyte of brackets: refused without parsing it.
    expect((await run(`JSON.stringify = () => '['.repeat(${CAP - 10}); ({ a: 1 })`)).value).to.match(/more than 1000 deep/);
    expect(jsonDepth('{"a":"[[[[{{{\\"","b":[[1]]}')).to.equal(3);
  });

  it('what crossed from the page counts against the results cap, not only the value it decodes to', async () => {
    // A page that pads its JSON: the value is [1], the answer crossing nearly a megabyte.
    const padded = await outcome(`JSON.stringify = () => '[1]' + ' '.repeat(${CAP - 100}); [1]`);
    expect(padded.returned).to.deep.equal({ type: 'array', value: [1] });
    expect(padded.rawChars).to.be.greaterThan(CAP - 100);
    const results = new ActionResultsBuilder(2 * CAP);
    results.javascriptReturn(padded.returned, padded.rawChars);
    expect(() => results.javascriptReturn(padded.returned, padded.rawChars)).to.not.throw();
    expect(() => results.javascriptReturn(padded.returned, padded.rawChars)).to.throw(/exceed/);
  });

  it('a script that navigates the page while it runs is an error for that action, answered at once', async () => {
    for (const script of [
      "location.href = '/page?away'; new Promise(() => {})",
      "new Promise((done) => setTimeout(() => { location.reload(); }, 10))",
      "(async () => { await new Promise((done) => setTimeout(done, 5)); location.assign('/page?again'); await new Promise(() => {}); })()",
    ]) {
      await session.driver.get(target.url('/page'));
      const started = Date.now();
      expect(await run(script), script).to.deep.equal({ type: 'error', value: 'the page navigated while the script ran' });
      expect(Date.now() - started, script).to.be.below(5_000);
    }
  });

  it("runs on a page whose CSP forbids every script and code from strings, as DevTools' evaluation does", async () => {
    await session.driver.get(target.url('/strict'));
    expect(await run("document.getElementById('p').textContent")).to.deep.equal({ type: 'string', value: 'strict' });
    expect(await run('[1, 2].map((n) => n * 2)')).to.deep.equal({ type: 'array', value: [2, 4] });
    // The policy holds for the page's own code, once DevTools' evaluation is over.
    expect(await run("new Promise((done) => setTimeout(() => { try { eval('1'); done('allowed'); } catch (e) { done(e.name); } }, 0))")).to.deep.equal({ type: 'string', value: 'EvalError' });
  });
});
