import { expect } from 'chai';
import { OwnPorts } from '../../../src/egress/target-policy/own-ports.js';
import { sortUrls } from '../../../src/http/firecrawl/batch-urls.js';
import { targetPolicy } from '../../helpers/egress.js';

/** A batch's URLs judged at submission by the target policy's decision alone: no lookup, no socket. */
describe('batch URLs: judged at submission, without a socket', () => {
  const own = new OwnPorts();
  own.add(8080);
  const policy = targetPolicy({ ownPorts: own, lookup: () => Promise.reject(new Error('no lookup may happen at submission')) });

  it('sorts a batch, keeping order and indexes, in slices that yield to the event loop', async () => {
    const urls = Array.from({ length: 2_500 }, (_, i) => (i % 1000 === 7 ? `http://10.0.0.${i % 250}/` : `https://example.com/${i}`));
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const sorted = await sortUrls(urls, policy);
    clearInterval(ticking);
    expect(sorted.valid).to.have.length(2_497);
    expect(sorted.invalid.map((r) => r.index)).to.deep.equal([7, 1007, 2007]);
    expect(turns).to.be.greaterThan(0);
  });
});
