import { expect } from 'chai';
import { pageText } from '../../../src/scrape/page-text.js';
import { HtmlWorkers } from '../../../src/scrape/html-work/html-workers.js';

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

describe('HtmlWorkers', function () {
  this.timeout(60_000);
  const workers = new HtmlWorkers(2);
  after(() => workers.close());
  const big = `<html><body>${'<div><p>Some <b>text</b> in a paragraph</p><ul><li>one</li><li>two</li></ul></div>'.repeat(40_000)}</body></html>`;

  it('gives the same text as the function run inline, for small and large pages', async () => {
    expect(await workers.run('text', '<p>small <b>page</b></p>', 24)).to.equal('small page');
    expect(await workers.run('text', big, big.length)).to.equal(pageText(big));
  });

  it('keeps a large page off the event loop: other requests move while it is parsed', async () => {
    await workers.run('text', big, big.length); // threads started and warm
    const inline = await longestStall(async () => pageText(big));
    const threaded = await longestStall(() => workers.run('text', big, big.length));
    expect(inline, 'the inline parse holds the loop (the baseline)').to.be.above(100);
    expect(threaded, `stall with workers vs ${Math.round(inline)} ms inline`).to.be.below(inline / 3);
  });
});
