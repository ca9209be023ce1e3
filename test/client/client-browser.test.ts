import { expect } from 'chai';
import { createScrapegateClient, errorMessage, readSvcHeaders } from '../../src/client/index.js';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

// In a file of its own, left out of `npm run test:fast` (test/mocharc-fast.json) with the other
// tests that start Chromium: the server's browser pool is a real one.
describe('client: browser mode (one render)', function () {
  this.timeout(60_000);
  const database = testDatabases()[0];
  if (!database) throw new Error('no test database');
  const s = useSuite(database, { BROWSER_POOL_SIZE: '1' });

  it('renders with the browser (the default), repeating block_resource and waiting for a selector', async () => {
    const key = await s.store.key();
    const client = createScrapegateClient({ baseUrl: s.server.base, apiKey: key });
    const { data, error, response } = await client.GET('/v2/general', {
      params: { query: { url: s.target.url('/page'), wait_for_selector: 'h1', block_resource: ['image', 'font'], timeout: 30 } },
    });
    expect(error, errorMessage(error)).to.equal(undefined);
    expect(data).to.match(/^<html><head>/).and.contain('<h1>Hello target</h1>');
    expect(readSvcHeaders(response)).to.include({ pageStatusCode: 200, creditsCost: 10 });
    await expectMatchesSpec('v2GeneralGet', response, data);
  });
});
