import { expect } from 'chai';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG, loadCatalog } from '../../src/config/catalog.js';
import { ConfigError, defaultHtmlWorkers, defaultPoolSize, loadConfig } from '../../src/config/config.js';

describe('loadConfig', () => {
  it('has working defaults: port 8080 on all interfaces, SQLite under ./data, private targets refused', () => {
    const c = loadConfig({});
    expect(c).to.include({ port: 8080, host: '0.0.0.0', databaseUrl: 'sqlite:./data/scrapegate.sqlite', allowPrivateTargets: false, logLevel: 'info' });
    expect(c.maxBodyBytes).to.equal(10 * 1024 * 1024);
  });

  it('reads MAX_BUFFERED_BODY_BYTES (default 64 MiB): the request bodies held at once, across requests', () => {
    expect(loadConfig({}).maxBufferedBodyBytes).to.equal(64 * 1024 * 1024);
    expect(loadConfig({ MAX_BUFFERED_BODY_BYTES: '1048576' }).maxBufferedBodyBytes).to.equal(1_048_576);
    expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: '0' })).to.throw(ConfigError, /MAX_BUFFERED_BODY_BYTES/);
  });

  it('reads every documented variable', () => {
    const c = loadConfig({ PORT: '9000', HOST: '127.0.0.1', DATABASE_URL: 'mysql://u:p@h:3306/db', ALLOW_PRIVATE_TARGETS: 'true', PROXY_CONFIG: '/etc/p.json', LOG_LEVEL: 'debug' });
    expect(c).to.include({ port: 9000, host: '127.0.0.1', databaseUrl: 'mysql://u:p@h:3306/db', allowPrivateTargets: true, proxyConfigPath: '/etc/p.json', logLevel: 'debug' });
  });

  it('reads SESSION_TTL_SECONDS (default 5 minutes, 1 s to a day)', () => {
    expect(loadConfig({}).sessionTtlMs).to.equal(300_000);
    expect(loadConfig({ SESSION_TTL_SECONDS: '60' }).sessionTtlMs).to.equal(60_000);
    expect(loadConfig({ SESSION_TTL_SECONDS: '86400' }).sessionTtlMs).to.equal(86_400_000);
    for (const bad of ['0', '86401', '1.5', 'soon']) {
      expect(() => loadConfig({ SESSION_TTL_SECONDS: bad }), bad).to.throw(ConfigError, new RegExp(`SESSION_TTL_SECONDS.*"${bad}"`));
    }
  });

  it('reads the browser engine settings', () => {
    const c = loadConfig({ BROWSER_POOL_SIZE: '0', BROWSER_MAX_PAGES: '5', BROWSER_MAX_MEMORY_MB: '300', SELENIUM_REMOTE_URL: 'http://127.0.0.1:4444', BROWSER_IDLE_CHECK_SECONDS: '20' });
    expect(c.browser).to.deep.equal({
      poolSize: 0,
      maxPages: 5,
      maxMemoryMb: 300,
      startTimeoutMs: 30_000,
      chromiumPath: '/usr/bin/chromium',
      chromedriverPath: undefined,
      remoteUrl: 'http://127.0.0.1:4444',
      gatewayHost: '127.0.0.1',
      idleCheckMs: 20_000,
    });
    expect(() => loadConfig({ SELENIUM_REMOTE_URL: 'grid:4444' })).to.throw(ConfigError, /SELENIUM_REMOTE_URL/);
  });

  it('reads the HTML work settings: threads, the queue in all and per key, the task time', () => {
    expect(loadConfig({}).htmlWork).to.deep.equal({ threads: defaultHtmlWorkers(), queueSize: 64, perKeyQueue: 16, taskTimeoutMs: 15_000 });
    const c = loadConfig({ HTML_WORKERS: '3', HTML_QUEUE_SIZE: '100', HTML_QUEUE_PER_KEY: '4', HTML_TASK_TIMEOUT_SECONDS: '5' });
    expect(c.htmlWork).to.deep.equal({ threads: 3, queueSize: 100, perKeyQueue: 4, taskTimeoutMs: 5_000 });
    for (const [name, bad] of [['HTML_WORKERS', '0'], ['HTML_WORKERS', '65'], ['HTML_QUEUE_SIZE', '0'], ['HTML_QUEUE_PER_KEY', 'x'], ['HTML_TASK_TIMEOUT_SECONDS', '601']]) {
      expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).to.throw(ConfigError, new RegExp(name));
    }
  });

  it('gives the HTML work a thread per core, at least two and at most eight', () => {
    expect([1, 2, 4, 16].map((cores) => defaultHtmlWorkers(cores))).to.deep.equal([2, 2, 4, 8]);
  });

  it('sizes the default pool by cores, bounded by memory', () => {
    const gib = 1024 ** 3;
    expect(defaultPoolSize(2, 24 * gib)).to.equal(6);
    expect(defaultPoolSize(16, 24 * gib)).to.equal(16);
    expect(defaultPoolSize(8, 1 * gib)).to.equal(2);
    expect(defaultPoolSize(1, 0.2 * gib)).to.equal(1);
  });

  it('names the variable and the value when one is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT.*"eighty"/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ ALLOW_PRIVATE_TARGETS: 'maybe' })).to.throw(ConfigError, /ALLOW_PRIVATE_TARGETS/);
    expect(() => loadConfig({ TARGET_ALLOW_CIDRS: '127.0.0.2/32, 127.0.0.300/8' })).to.throw(ConfigError, /TARGET_ALLOW_CIDRS.*127\.0\.0\.300\/8/);
  });

  it('reads TARGET_ALLOW_CIDRS as ranges', () => {
    const c = loadConfig({ TARGET_ALLOW_CIDRS: '127.0.0.2/32, ::1/128' });
    expect(c.targetAllowCidrs.map(([net, bits]) => `${net.toString()}/${bits}`)).to.deep.equal(['127.0.0.2/32', '::1/128']);
    expect(loadConfig({}).targetAllowCidrs).to.deep.equal([]);
  });

  it('reads TRUSTED_PROXIES as ranges (none by default), naming an entry that is not one', () => {
    expect(loadConfig({}).trustedProxies, 'nobody\'s X-Forwarded-For is believed unless configured').to.deep.equal([]);
    const c = loadConfig({ TRUSTED_PROXIES: '203.0.113.0/24, 127.0.0.1/32,::1/128' });
    expect(c.trustedProxies.map(([net, bits]) => `${net.toString()}/${bits}`)).to.deep.equal(['203.0.113.0/24', '127.0.0.1/32', '::1/128']);
    expect(() => loadConfig({ TRUSTED_PROXIES: '203.0.113.0/24, lb.internal' })).to.throw(ConfigError, /TRUSTED_PROXIES.*"lb\.internal" is not a CIDR range/);
  });

  it('takes ADMIN_TOKEN and METRICS_TOKEN only 32 characters long or more and without spaces, and never names their values in an error', () => {
    expect(loadConfig({}).adminToken, 'no admin API unless configured').to.equal(undefined);
    expect(loadConfig({}).metricsToken, 'open metrics unless configured').to.equal(undefined);
    const long = 'a-long-enough-token-of-32-chars!';
    expect(long).to.have.length(32);
    expect(loadConfig({ ADMIN_TOKEN: long }).adminToken).to.equal(long);
    expect(loadConfig({ METRICS_TOKEN: long }).metricsToken).to.equal(long);
    for (const name of ['ADMIN_TOKEN', 'METRICS_TOKEN']) {
      for (const bad of [long.slice(1), 'a-sixteen-chars!', 'has a space in it here and is long enough', 'tab\there-and-long-enough-to-pass-the-length']) {
        let message = '';
        expect(() => {
          try {
            loadConfig({ [name]: bad });
          } catch (err) {
            message = (err as Error).message;
            throw err;
          }
        }, `${name}=${bad}`).to.throw(ConfigError, new RegExp(name));
        expect(message).not.to.contain(bad);
      }
    }
  });

  it('reads the sign-in limits: 10 failures per client and 100 from all clients in 15 minutes by default', () => {
    expect(loadConfig({}).dashboard).to.include({ signInMaxFailures: 10, signInWindowMs: 900_000, signInGlobalMaxFailures: 100 });
    expect(loadConfig({ SIGN_IN_MAX_FAILURES: '5', SIGN_IN_WINDOW_SECONDS: '60', SIGN_IN_GLOBAL_MAX_FAILURES: '20' }).dashboard).to.include({ signInMaxFailures: 5, signInWindowMs: 60_000, signInGlobalMaxFailures: 20 });
    for (const bad of ['0', '100001', 'many']) expect(() => loadConfig({ SIGN_IN_GLOBAL_MAX_FAILURES: bad })).to.throw(ConfigError, /SIGN_IN_GLOBAL_MAX_FAILURES/);
  });

  it('reads DASHBOARD_ORIGIN as an origin (none by default), refusing anything more or less than one', () => {
    expect(loadConfig({}).dashboard.origin, 'the dashboard shares the API\'s origin unless configured').to.equal(undefined);
    expect(loadConfig({ DASHBOARD_ORIGIN: 'https://Admin.Example.com' }).dashboard.origin).to.equal('https://admin.example.com');
    expect(loadConfig({ DASHBOARD_ORIGIN: 'https://admin.example.com:443/' }).dashboard.origin).to.equal('https://admin.example.com');
    expect(loadConfig({ DASHBOARD_ORIGIN: 'http://127.0.0.1:9090' }).dashboard.origin).to.equal('http://127.0.0.1:9090');
    for (const bad of ['admin.example.com', 'ftp://admin.example.com', 'https://admin.example.com/dashboard', 'https://user:pw@admin.example.com', 'https://admin.example.com/?x=1', 'https://admin.example.com#top', 'https://']) {
      expect(() => loadConfig({ DASHBOARD_ORIGIN: bad }), bad).to.throw(ConfigError, /DASHBOARD_ORIGIN.*must be an origin/);
    }
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
