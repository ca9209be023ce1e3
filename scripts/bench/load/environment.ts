// Everything a load run talks to, on loopback: a target with fast, slow, erroring, walled and
// browser pages, upstream proxies (datacenter per country, a residential gateway template) named by
// a PROXY_CONFIG file, the keys, and the real server with a browser pool.
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { antibotFixtures, type Fixture } from '../../../test/fixtures/antibot/index.js';
import { addBrowserPages } from '../../../test/helpers/browser-pages.js';
import { TestStore } from '../../../test/helpers/keys.js';
import { ServerProcess } from '../../../test/helpers/server-process.js';
import { TargetServer } from '../../../test/helpers/target-server.js';
import { closedPort, TestProxy } from '../../../test/helpers/test-proxy.js';
import type { Targets } from './http-call.js';
import { KEY_PLANS, type KeyName } from './plan.js';

export interface EnvironmentOptions {
  databaseUrl: string;
  poolSize: number;
  /** BROWSER_MAX_PAGES; unset: the server's default. */
  maxPages: number | undefined;
  /** Sizes the `tight` key's credits. */
  count: number;
}

export interface Environment {
  server: ServerProcess;
  target: TargetServer;
  store: TestStore;
  targets: Targets;
  proxies: TestProxy[];
  keys: Map<KeyName, string>;
  walls: string[];
  notWalls: Fixture[];
  stop(): Promise<void>;
}

const serve = (f: Fixture) => (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(f.status, f.headers.flat()).end(f.body);

export async function startEnvironment(o: EnvironmentOptions): Promise<Environment> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const target = await new TargetServer('127.0.0.1').start();
    stops.push(() => target.stop());
    addBrowserPages(target);
    const { walls, negatives } = antibotFixtures();
    for (const f of walls) target.route(`/walled/${f.name}`, serve(f));
    for (const f of negatives) target.route(`/not-a-wall/${f.name}`, serve(f));
    target.route('/reset', (req) => void req.socket.destroy());

    // Datacenter: two US proxies (rotating; a wall is retried on the other) and one for DE.
    // Residential: one gateway whose user name carries the country, as providers take it.
    const proxies = {
      usA: new TestProxy('127.0.0.11'),
      usB: new TestProxy('127.0.0.12'),
      de: new TestProxy('127.0.0.13'),
      gateway: new TestProxy('127.0.0.15', 'forward', 'secret'),
    };
    for (const p of Object.values(proxies)) {
      await p.start();
      stops.push(() => p.stop());
    }
    const dir = mkdtempSync(join(tmpdir(), 'load-'));
    const proxyConfig = join(dir, 'proxies.json');
    writeFileSync(proxyConfig, JSON.stringify({
      datacenter: { US: [proxies.usA.url('dc-user'), proxies.usB.url('dc-user')], DE: [proxies.de.url('dc-user')] },
      residential: { '*': [proxies.gateway.url('user-country-{country}')] },
    }));

    const store = await TestStore.open(o.databaseUrl);
    stops.push(() => store.close());
    const keys = new Map<KeyName, string>();
    for (const [name, plan] of Object.entries(KEY_PLANS) as Array<[Exclude<KeyName, 'bogus'>, (typeof KEY_PLANS)[keyof typeof KEY_PLANS]]>) {
      keys.set(name, await store.key({ planName: plan.planName, credits: plan.credits(o.count), maxConcurrency: plan.maxConcurrency, label: `load ${name}` }));
    }
    keys.set('bogus', 'sg_' + 'x'.repeat(32));

    const server = new ServerProcess({
      DATABASE_URL: o.databaseUrl,
      ALLOW_PRIVATE_TARGETS: 'true',
      PROXY_CONFIG: proxyConfig,
      BROWSER_POOL_SIZE: String(o.poolSize),
      ...(o.maxPages === undefined ? {} : { BROWSER_MAX_PAGES: String(o.maxPages) }),
    });
    stops.push(() => server.stop());
    await server.start();

    return {
      server,
      target,
      store,
      targets: { url: (path) => target.url(path), refusedUrl: `http://127.0.0.1:${await closedPort()}/` },
      proxies: Object.values(proxies),
      keys,
      walls: walls.map((f) => f.name),
      notWalls: negatives,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
