import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { OwnPorts } from '../../src/egress/target-policy/own-ports.js';
import { Metrics } from '../../src/observability/metrics.js';
import { webhookParts } from '../../src/server/webhook-parts.js';
import { openDatabase } from '../../src/store/database.js';
import { WebhookRefusedError } from '../../src/webhooks/webhook-errors.js';
import { WebhookTargets } from '../../src/webhooks/webhook-policy.js';
import { targetPolicy } from '../helpers/egress.js';

/** Names resolved from a table: these tests decide on addresses and never open a socket. */
const table = (entries: Record<string, string[]>) => async (host: string) => {
  const found = entries[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function refusal(targets: WebhookTargets, url: string): Promise<string | undefined> {
  try {
    await targets.check(url);
    return undefined;
  } catch (err) {
    expect(err).to.be.instanceOf(WebhookRefusedError);
    return (err as Error).message;
  }
}

describe('webhook policy (decisions only, no traffic)', () => {
  const lookup = table({ 'hooks.example': ['93.184.215.14'], 'inside.example': ['10.0.0.7'], 'meta.example': ['169.254.169.254'], 'mixed.example': ['10.0.0.8', '93.184.215.15'] });

  it('refuses private, loopback, link-local and metadata addresses, by literal or by name, without naming where a name points', async () => {
    const targets = new WebhookTargets(targetPolicy({ lookup }));
    for (const url of ['http://10.0.0.5/h', 'http://127.0.0.1:9000/h', 'http://[::1]/h', 'http://169.254.169.254/latest', 'http://192.168.1.1/', 'http://[fd00::1]/']) {
      expect(await refusal(targets, url), url).to.match(/^the webhook URL is not allowed: /);
    }
    expect(await refusal(targets, 'http://inside.example/h')).to.equal('the webhook URL is not allowed: inside.example is not an allowed target');
    expect(await refusal(targets, 'http://meta.example/h')).not.to.contain('169.254');
  });

  it('refuses what is not an http(s) URL, URLs with credentials, over-long URLs and names that do not exist', async () => {
    const targets = new WebhookTargets(targetPolicy({ lookup }));
    expect(await refusal(targets, 'ftp://hooks.example/')).to.match(/http or https/);
    expect(await refusal(targets, 'not a url')).to.match(/valid absolute URL/);
    expect(await refusal(targets, 'https://user:pw@hooks.example/')).to.match(/credentials/);
    expect(await refusal(targets, `https://hooks.example/${'a'.repeat(2100)}`)).to.match(/2048/);
    expect(await refusal(targets, 'https://nowhere.example/')).to.match(/does not resolve/);
  });

  it('accepts public addresses, and only the checked ones are handed to the sender', async () => {
    const targets = new WebhookTargets(targetPolicy({ lookup }));
    expect(await refusal(targets, 'https://hooks.example/h')).to.equal(undefined);
    const checked = await targets.resolve('https://mixed.example:8443/h?x=1');
    expect(checked.addresses).to.deep.equal([{ address: '93.184.215.15', family: 4 }]);
    expect(checked.port).to.equal(8443);
  });

  it('allows ranges named in WEBHOOK_ALLOW_CIDRS, never the service\'s own port on a local address', async () => {
    const ownPorts = new OwnPorts();
    ownPorts.add(8080);
    const targets = new WebhookTargets(targetPolicy({ lookup, allowCidrs: '127.0.0.0/8,10.0.0.0/8', ownPorts }));
    expect(await refusal(targets, 'http://127.0.0.1:9000/h')).to.equal(undefined);
    expect(await refusal(targets, 'http://inside.example/h')).to.equal(undefined);
    expect(await refusal(targets, 'http://127.0.0.1:8080/h')).to.match(/scrapegate's own/);
    expect(await refusal(targets, 'http://127.0.0.2:8080/h')).to.match(/scrapegate's own/);
    expect(await refusal(targets, 'http://[::1]:8080/h')).to.match(/not allowed/);
  });

  it('as the server builds it: ALLOW_PRIVATE_TARGETS and TARGET_ALLOW_CIDRS open nothing to webhooks; WEBHOOK_ALLOW_CIDRS does', async () => {
    const db = openDatabase('sqlite::memory:');
    try {
      const build = (env: Record<string, string>) =>
        webhookParts(loadConfig({ DATABASE_URL: 'sqlite::memory:', ...env }), { db, ownPorts: new OwnPorts(), metrics: new Metrics(), logger: pino({ level: 'silent' }) }).policy;
      const open = build({ ALLOW_PRIVATE_TARGETS: 'true', TARGET_ALLOW_CIDRS: '10.0.0.0/8' });
      expect(await refusal(open, 'http://10.0.0.5/h')).to.match(/private address/);
      expect(await refusal(build({ WEBHOOK_ALLOW_CIDRS: '10.0.0.0/8' }), 'http://10.0.0.5/h')).to.equal(undefined);
    } finally {
      await db.close();
    }
  });
});
