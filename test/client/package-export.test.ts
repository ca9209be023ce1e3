import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as viaSource from '../../src/client/index.js';
// The package's own name: resolved through the "exports" field of package.json (a self-reference),
// the way a consumer that installed scrapegate imports it. tsc resolves it the same way.
import * as viaPackage from 'scrapegate/client';
import * as firecrawlViaSource from '../../src/client/firecrawl/index.js';
import * as firecrawlViaPackage from 'scrapegate/firecrawl-client';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('client: the scrapegate/client package export', () => {
  it('resolves to src/client/index.ts, the same module as the source', () => {
    expect(createRequire(import.meta.url).resolve('scrapegate/client')).to.equal(`${ROOT}src/client/index.ts`);
    expect(viaPackage.createScrapegateClient).to.equal(viaSource.createScrapegateClient);
    expect(viaPackage.readSvcHeaders).to.equal(viaSource.readSvcHeaders);
  });

  it('imports in a fresh Node process with a TypeScript loader', function () {
    this.timeout(20_000);
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', "const m = await import('scrapegate/client'); console.log(typeof m.createScrapegateClient)"],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out.trim()).to.equal('function');
  });
});

describe('client: the scrapegate/firecrawl-client package export', () => {
  it('resolves to src/client/firecrawl/index.ts, the same module as the source', () => {
    expect(createRequire(import.meta.url).resolve('scrapegate/firecrawl-client')).to.equal(`${ROOT}src/client/firecrawl/index.ts`);
    expect(firecrawlViaPackage.createFirecrawlClient).to.equal(firecrawlViaSource.createFirecrawlClient);
    expect(firecrawlViaPackage.firecrawlErrorMessage).to.equal(firecrawlViaSource.firecrawlErrorMessage);
  });
});
