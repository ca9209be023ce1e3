// A real upstream proxy on loopback for the contract run: the documented examples ask for
// proxy_country=US, so the server under test gets a PROXY_CONFIG that serves it (written to argv[2]).
import { writeFileSync } from 'node:fs';
import { TestProxy } from '../test/helpers/test-proxy.js';

const proxy = await new TestProxy('127.0.0.1').start();
writeFileSync(process.argv[2], JSON.stringify({ datacenter: { US: [proxy.url('contract')] }, residential: { '*': [proxy.url('contract-{country}')] } }));
console.log('ready');
process.on('SIGTERM', () => void proxy.stop().then(() => process.exit(0)));
