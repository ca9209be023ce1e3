import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/config/config.js';
import { fillTemplate, loadProxyCatalog, parseProxyCatalog } from '../../../src/egress/proxies/proxy-config.js';

describe('PROXY_CONFIG', () => {
  const example = {
    datacenter: { US: ['http://u:p@dc-us-1:8000', 'http://u:p@dc-us-2:8000'], de: ['http://dc-de:8000'] },
    residential: { '*': ['http://user-country-{country}:secret@gw.example:7000'] },
  };

  it('reads both forms: lists per country, and a "*" template filled with the country in lower case', () => {
    const catalog = parseProxyCatalog(example);
    const us = catalog.get('datacenter')!.get('US')!;
    expect(us.map((t) => [t.id, t.label])).to.deep.equal([['datacenter/US/0', 'http://dc-us-1:8000'], ['datacenter/US/1', 'http://dc-us-2:8000']]);
    expect([...catalog.get('datacenter')!.keys()]).to.deep.equal(['US', 'DE']);
    const template = catalog.get('residential')!.get('*')![0];
    const filled = fillTemplate(template, 'DE', '');
    expect(filled.username).to.equal('user-country-de');
    expect(filled.password).to.equal('secret');
    expect(filled.host).to.equal('gw.example:7000');
  });

  it('takes {session} in the user name or the password, beside {country}', () => {
    const catalog = parseProxyCatalog({ residential: { '*': ['http://user-{country}-session-{session}:pw-{session}@gw.example:7000'] } });
    const template = catalog.get('residential')!.get('*')![0];
    expect(template.label).to.equal('http://gw.example:7000');
    const filled = fillTemplate(template, 'FR', '0a1b2c3d4e5f6071');
    expect(filled.username).to.equal('user-fr-session-0a1b2c3d4e5f6071');
    expect(filled.password).to.equal('pw-0a1b2c3d4e5f6071');
  });

  it('names the bad entry, never its credentials', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ mobile: { US: ['http://x:1'] } }, /mobile: unknown proxy type/],
      [{ datacenter: { USA: ['http://x:1'] } }, /datacenter\.USA: not an ISO 3166-1 alpha-2/],
      [{ datacenter: { UK: ['http://x:1'] } }, /datacenter\.UK: not an ISO/],
      [{ datacenter: { US: [] } }, /datacenter\.US: expected a non-empty array/],
      [{ datacenter: { US: ['socks5://u:topsecret@x:1'] } }, /datacenter\.US\[0\]: only http:\/\/ and https:\/\//],
      [{ datacenter: { US: ['http://u:topsecret@x:1/path'] } }, /datacenter\.US\[0\]: a proxy URL has no path/],
      [{ residential: { '*': ['http://u:topsecret@{country}.gw:1'] } }, /residential\.\*\[0\]: \{country\} may appear only/],
      [{ residential: { '*': ['http://u-{session}:topsecret@{session}.gw:1'] } }, /residential\.\*\[0\]: \{session\} may appear only/],
      [{ residential: { DE: ['http://u:topsecret@gw:1#{session}'] } }, /residential\.DE\[0\]: \{session\} may appear only/],
      [{ datacenter: { US: [42] } }, /datacenter\.US\[0\]: expected a proxy URL string/],
      [['http://x:1'], /expected an object keyed by proxy type/],
    ];
    for (const [doc, message] of bad) {
      let caught: Error | undefined;
      try {
        parseProxyCatalog(doc);
      } catch (err) {
        caught = err as Error;
      }
      expect(caught?.message, JSON.stringify(doc)).to.match(message);
      expect(caught?.message).to.not.contain('topsecret');
    }
  });

  it('loads a file, and stops the server with a ConfigError naming the file when it is bad', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxies-'));
    writeFileSync(join(dir, 'good.json'), JSON.stringify(example));
    writeFileSync(join(dir, 'bad.json'), '{"datacenter": {"ZZ": ["http://x:1"]}}');
    expect(loadProxyCatalog(join(dir, 'good.json'))?.size).to.equal(2);
    expect(loadProxyCatalog(undefined)).to.equal(undefined);
    expect(() => loadProxyCatalog(join(dir, 'bad.json'))).to.throw(ConfigError, /bad\.json: datacenter\.ZZ/);
    expect(() => loadProxyCatalog(join(dir, 'missing.json'))).to.throw(ConfigError, /missing\.json/);
  });
});
