import { expect } from 'chai';
import { HtmlWorkBusyError, HtmlWorkCancelledError, HtmlWorkTooCostlyError } from '../../../src/content/html-work/html-work-errors.js';
import { extract } from '../../../src/content/extract/extract.js';
import { parseExtractRules } from '../../../src/content/extract/extract-rules.js';
import { pageText } from '../../../src/content/text/page-text.js';
import { HtmlWorkers } from '../../../src/content/html-work/html-workers.js';

/** The longest gap between ticks of a 5 ms timer while `work` runs: how long the event loop was held. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(ticker);
  }
  return Math.max(longest, performance.now() - last);
}

/** Queue order is settled when tasks are pushed, in one tick: a page of a few ms is enough to keep a thread busy meanwhile. */
const medium = `<html><body>${'<div><p>Some <b>text</b> in a paragraph</p><ul><li>one</li><li>two</li></ul></div>'.repeat(2_000)}</body></html>`;
const big = `<html><body>${'<div><p>Some <b>text</b> in a paragraph</p><ul><li>one</li><li>two</li></ul></div>'.repeat(40_000)}</body></html>`;
/** Attack 2's page: 3 KB, yet a rule of descendant combinators over it runs into the step cap. */
const nested = `<html><body>${'<div>'.repeat(500)}<p>x</p></body></html>`;
const costlyRules = parseExtractRules('{"a":"x div div div p"}');
const A = { key: 'key-a' };
const B = { key: 'key-b' };

describe('HtmlWorkers', function () {
  this.timeout(60_000);

  describe('off the event loop', () => {
    const workers = new HtmlWorkers({ threads: 2 });
    after(() => workers.close());

    it('gives the same text as the function run inline, for small and large pages #slow', async () => {
      expect(await workers.run('text', '<p>small <b>page</b></p>', A)).to.equal('small page');
      // The threads are started and warm from here on.
      expect(await workers.run('text', big, A)).to.equal(pageText(big));
    });

    it('keeps a large page off the event loop: other requests move while it is parsed #slow', async () => {
      const inline = await longestStall(async () => pageText(big));
      const threaded = await longestStall(() => workers.run('text', big, A));
      expect(inline, 'the inline parse holds the loop (the baseline)').to.be.above(100);
      expect(threaded, `stall with workers vs ${Math.round(inline)} ms inline`).to.be.below(inline / 3);
    });

    it("parses the caller's extract_rules in a thread: the rules, or their issues", async () => {
      expect(await workers.run('rules', '{"t":"h1"}', A)).to.deep.equal({ ok: true, rules: parseExtractRules('{"t":"h1"}') });
      const refused = await workers.run('rules', '{"t":"//h1"}', A);
      expect(refused).to.deep.equal({ ok: false, issues: [{ path: ['t'], msg: 'XPath is not supported; use a CSS selector', type: 'value_error.selector.xpath' }] });
    });

    it('runs a small page in a thread too: 3 KB of nested divs hold the loop inline, not here #slow', async () => {
      expect(nested.length).to.be.below(4 * 1024);
      await workers.run('text', nested, A);
      const inline = await longestStall(async () => expect(() => extract(nested, costlyRules)).to.throw(/steps/));
      let outcome: { ok: boolean } | undefined;
      const threaded = await longestStall(async () => (outcome = await workers.run('extract', { html: nested, rules: costlyRules }, A)));
      expect(outcome?.ok).to.equal(false);
      expect(inline, 'inline, the step cap is reached on the loop (the baseline)').to.be.above(200);
      expect(threaded, `stall with workers vs ${Math.round(inline)} ms inline`).to.be.below(inline / 10);
    });
  });

  it('serves keys in turn: a key with many tasks queued delays another key by the task running, not by its queue', async () => {
    const workers = new HtmlWorkers({ threads: 1, perKeyQueue: 10 });
    try {
      await workers.run('text', '<p>warm</p>', A);
      const done: string[] = [];
      const tasks = [0, 1, 2, 3, 4].map((i) => workers.run('text', medium, A).then(() => done.push(`a${i}`)));
      tasks.push(workers.run('text', '<p>b</p>', B).then(() => done.push('b')));
      await Promise.all(tasks);
      // a0 was running when b came; b is served before a1, whatever a queued.
      expect(done).to.deep.equal(['a0', 'b', 'a1', 'a2', 'a3', 'a4']);
    } finally {
      await workers.close();
    }
  });

  it("serves a synchronous task before every background one queued, and a batch cannot fill its key's synchronous queue", async () => {
    const workers = new HtmlWorkers({ threads: 1, perKeyQueue: 3, queueSize: 3 });
    try {
      await workers.run('text', '<p>warm</p>', A);
      const done: string[] = [];
      const item = { key: 'key-a', background: true };
      const tasks = [0, 1, 2, 3].map((i) => workers.run('text', medium, item).then(() => done.push(`item${i}`)));
      // Its background queue is full (3 waiting, 1 running): a fifth item is refused...
      const refused = await workers.run('text', '<p>x</p>', item).catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(HtmlWorkBusyError).with.property('scope', 'key');
      // ...while the same key's synchronous task is taken, and goes before the items waiting.
      tasks.push(workers.run('text', '<p>sync</p>', A).then(() => done.push('sync')));
      expect(workers.waiting).to.equal(4);
      await Promise.all(tasks);
      expect(done).to.deep.equal(['item0', 'sync', 'item1', 'item2', 'item3']);
    } finally {
      await workers.close();
    }
  });

  it('bounds the queue per key and in all: past either, the task is refused at once with a Retry-After', async () => {
    const workers = new HtmlWorkers({ threads: 1, perKeyQueue: 2, queueSize: 3 });
    try {
      await workers.run('text', '<p>warm</p>', A);
      const running = workers.run('text', medium, A);
      const queued = [workers.run('text', medium, A), workers.run('text', medium, A)];
      const refused = await workers.run('text', '<p>x</p>', A).catch((err: unknown) => err);
      expect(refused).to.be.instanceOf(HtmlWorkBusyError).with.property('scope', 'key');
      expect((refused as HtmlWorkBusyError).retryAfterSeconds).to.be.at.least(1);
      const ofB = workers.run('text', '<p>b</p>', B);
      const full = await workers.run('text', '<p>c</p>', { key: 'key-c' }).catch((err: unknown) => err);
      expect(full).to.be.instanceOf(HtmlWorkBusyError).with.property('scope', 'all');
      expect(workers.waiting).to.equal(3);
      await Promise.all([running, ...queued, ofB]);
      expect(workers.waiting).to.equal(0);
      expect(await workers.run('text', '<p>again</p>', A)).to.equal('again');
    } finally {
      await workers.close();
    }
  });

  it('drops a waiting task when its signal aborts; a running one finishes', async () => {
    const workers = new HtmlWorkers({ threads: 1 });
    try {
      await workers.run('text', '<p>warm</p>', A);
      const first = new AbortController();
      const running = workers.run('text', medium, { key: 'key-a', signal: first.signal });
      const second = new AbortController();
      const waiting = workers.run('text', medium, { key: 'key-b', signal: second.signal });
      expect(workers.waiting).to.equal(1);
      const started = performance.now();
      second.abort();
      first.abort();
      expect(await waiting.catch((err: unknown) => err)).to.be.instanceOf(HtmlWorkCancelledError);
      expect(performance.now() - started, 'dropped at once, not after the running task').to.be.below(50);
      expect(workers.waiting).to.equal(0);
      expect(await running).to.equal(pageText(medium));
      const aborted = AbortSignal.abort();
      expect(await workers.run('text', '<p>x</p>', { key: 'key-c', signal: aborted }).catch((err: unknown) => err)).to.be.instanceOf(HtmlWorkCancelledError);
    } finally {
      await workers.close();
    }
  });

  it('on close, fails the tasks running and waiting, and takes no more', async () => {
    const workers = new HtmlWorkers({ threads: 1 });
    await workers.run('text', '<p>warm</p>', A);
    const running = workers.run('text', big, A).catch((err: unknown) => err);
    const waiting = workers.run('text', big, B).catch((err: unknown) => err);
    await workers.close();
    expect(await running).to.be.instanceOf(Error).with.property('message', 'the HTML workers are closed');
    expect(await waiting).to.be.instanceOf(Error).with.property('message', 'the HTML workers are closed');
    expect(await workers.run('text', '<p>x</p>', A).catch((err: unknown) => err)).to.be.instanceOf(Error);
  });

  it('ends a task past its time as too costly, and goes on with a fresh thread', async () => {
    const workers = new HtmlWorkers({ threads: 1, taskTimeoutMs: 100 });
    try {
      await workers.run('text', '<p>warm</p>', A);
      const slow = `<html><body>${'<p>Some <b>text</b> in a paragraph</p>'.repeat(400_000)}</body></html>`;
      const err = await workers.run('markdown', { html: slow, baseUrl: 'https://example.com/', onlyMainContent: false }, A).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(HtmlWorkTooCostlyError).with.property('param', 'url');
      expect((err as Error).message).to.equal('converting this page to Markdown takes longer than 100 ms');
      expect(await workers.run('text', '<p>after</p>', A)).to.equal('after');
    } finally {
      await workers.close();
    }
  });
});
