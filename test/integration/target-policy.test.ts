import { expect } from 'chai';
import { testDatabases } from '../helpers/databases.js';
import { expectMatchesSpec } from '../helpers/spec.js';
import { useSuite } from '../helpers/suite.js';

describe('private targets (sqlite)', () => {
  const s = useSuite(testDatabases()[0], { ALLOW_PRIVATE_TARGETS: 'false' });

  it('refuses loopback targets by address and by name unless ALLOW_PRIVATE_TARGETS is set (403, not charged)', async () => {
    const key = await s.store.key({ credits: 100 });
    for (const url of [s.target.url('/page'), `http://localhost:${s.target.port}/page`, `http://[::1]:${s.target.port}/page`]) {
      const res = await s.call('/v2/general', [['x-api-key', key], ['url', url], ['browser', 'false']]);
      const body = await res.json();
      expect(res.status, url).to.equal(403);
      expect((body as { detail: string }).detail).to.contain('not allowed');
      await expectMatchesSpec('v2GeneralGet', res, body);
    }
    expect(s.target.requests).to.have.length(0);
    expect(await s.store.remaining(key)).to.equal(100);
  });
});
