import { expect } from 'chai';
import { EngineUnavailableError } from '../../src/engines/engine-errors.js';
import { EngineRegistry } from '../../src/engines/engine-registry.js';
import type { Fetcher } from '../../src/engines/fetcher.js';

function engine(): Fetcher & { closed: number } {
  return {
    closed: 0,
    fetch: () => Promise.reject(new Error('not used')),
    async close() {
      this.closed++;
    },
  };
}

describe('EngineRegistry', () => {
  it('closes the engines a server holds, and passes over the one it was built without (no browser pool)', async () => {
    const plain = engine();
    const registry = new EngineRegistry({ plain, browser: undefined });
    await registry.closeAll();
    expect(plain.closed).to.equal(1);
  });

  it('refuses an engine the server runs without, by name', () => {
    const registry = new EngineRegistry({ plain: engine(), browser: undefined });
    expect(() => registry.get('browser')).to.throw(EngineUnavailableError, 'the browser engine is not enabled on this server');
  });
});
