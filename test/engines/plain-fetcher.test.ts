import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { PlainFetcher } from '../../src/engines/plain-fetcher.js';
import type { ScrapeRequest } from '../../src/engines/scrape-request.js';
import { Deadline } from '../../src/time/deadline.js';
import { directEgress } from '../helpers/egress.js';
import { TargetServer } from '../helpers/target-server.js';

function request(url: string): ScrapeRequest {
  return {
    url: new URL(url), method: 'GET', headers: {}, body: undefined, cookies: [], browser: false, returnPageSource: false, jsSnippet: undefined,
    waitForSelector: undefined, blockResources: [], proxy: { type: 'datacenter', country: undefined, sessionId: undefined }, timeoutMs: 10_000, capture: undefined,
  };
}

describe('PlainFetcher', () => {
  let target: TargetServer;
  before(async () => {
    target = await new TargetServer().start();
  });
  after(() => target.stop());

  it("lets go of the caller's signal after each exchange: a job item's signal lives as long as the service", async () => {
    const fetcher = new PlainFetcher({ maxBodyBytes: 1 << 20, maxRedirects: 5, userAgent: 'test' });
    const service = new AbortController();
    for (let i = 0; i < 20; i++) {
      const deadline = new Deadline(10_000);
      try {
        const page = await fetcher.fetch(request(target.url(`/page?n=${i}`)), {
          deadline, egress: directEgress({ allowPrivate: true }), needs: { text: false, cookies: false, extras: false }, cancelled: service.signal,
        });
        expect(page.status).to.equal(200);
      } finally {
        deadline.dispose();
      }
    }
    // Each listener left behind made every later add and remove on the signal slower.
    expect(getEventListeners(service.signal, 'abort')).to.have.length(0);
  });
});
