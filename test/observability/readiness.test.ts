import { expect } from 'chai';
import { Readiness } from '../../src/observability/readiness.js';

describe('Readiness', () => {
  const check = (name: string, ok: boolean) => ({ name, ready: async () => ok });

  it('is ready when every check is, and names the ones failing', async () => {
    expect(await new Readiness([check('database', true), check('browsers', true)]).report()).to.deep.equal({ ready: true, checks: { database: 'ok', browsers: 'ok' } });
    expect(await new Readiness([check('database', true), check('browsers', false)]).report()).to.deep.equal({ ready: false, checks: { database: 'ok', browsers: 'failing' } });
  });

  it('is never ready once draining, so a load balancer stops sending requests', async () => {
    const readiness = new Readiness([check('database', true)]);
    readiness.drain();
    expect(await readiness.report()).to.deep.equal({ ready: false, checks: { database: 'ok', shutdown: 'failing' } });
  });
});
