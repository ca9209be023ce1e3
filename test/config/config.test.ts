import { expect } from 'chai';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG, loadCatalog } from '../../src/config/catalog.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('loadConfig', () => {
  it('has working defaults: port 8080 on all interfaces, SQLite under ./data, private targets refused', () => {
    const c = loadConfig({});
    expect(c).to.include({ port: 8080, host: '0.0.0.0', databaseUrl: 'sqlite:./data/scrapegate.sqlite', allowPrivateTargets: false, logLevel: 'info' });
    expect(c.maxBodyBytes).to.equal(10 * 1024 * 1024);
  });

  it('reads every documented variable', () => {
    const c = loadConfig({ PORT: '9000', HOST: '127.0.0.1', DATABASE_URL: 'mysql://u:p@h:3306/db', ALLOW_PRIVATE_TARGETS: 'true', PROXY_CONFIG: '/etc/p.json', LOG_LEVEL: 'debug' });
    expect(c).to.include({ port: 9000, host: '127.0.0.1', databaseUrl: 'mysql://u:p@h:3306/db', allowPrivateTargets: true, proxyConfigPath: '/etc/p.json', logLevel: 'debug' });
  });

  it('names the variable and the value when one is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT.*"eighty"/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ ALLOW_PRIVATE_TARGETS: 'maybe' })).to.throw(ConfigError, /ALLOW_PRIVATE_TARGETS/);
  });
});

describe('loadCatalog', () => {
  it('defaults to the five plans and the cost table', () => {
    const c = loadCatalog(undefined);
    expect(c.plans.map((p) => [p.name, p.credits, p.maxConcurrency])).to.deep.equal([
      ['free', 10_000, 1],
      ['enthusiast', 100_000, null],
      ['startup', 500_000, null],
      ['business', 3_000_000, null],
      ['business-pro', 8_000_000, null],
    ]);
    expect(c.costs).to.deep.equal({
      plain: { datacenter: 1, residential: 25 },
      'browser-source': { datacenter: 2, residential: 50 },
      browser: { datacenter: 10, residential: 125 },
    });
  });

  it('takes plans and costs from a file, keeping unnamed costs at their defaults', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
    writeFileSync(path, JSON.stringify({ plans: [{ name: 'team', credits: 42, maxConcurrency: 3 }], costs: { plain: { residential: 7 } } }));
    const c = loadCatalog(path);
    expect(c.plans).to.deep.equal([{ name: 'team', credits: 42, maxConcurrency: 3 }]);
    expect(c.costs.plain).to.deep.equal({ datacenter: 1, residential: 7 });
    expect(c.costs.browser).to.deep.equal(DEFAULT_CATALOG.costs.browser);
  });

  it('rejects a malformed file with its path in the message', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
    writeFileSync(path, JSON.stringify({ plans: [{ name: 'Bad Name', credits: -1 }] }));
    expect(() => loadCatalog(path)).to.throw(new RegExp(path));
  });
});
