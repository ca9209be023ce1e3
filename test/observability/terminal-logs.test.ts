import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { freePort } from '../helpers/free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm start` in a terminal: the server runs under `script`, which gives it a real pseudo-terminal. */
describe('logs on a terminal', function () {
  this.timeout(60_000);

  it('are printed readably (pino-pretty), with the API key still redacted #slow', async () => {
    const port = await freePort();
    const command = `node --import tsx src/index.ts`;
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', TERM: 'xterm', PORT: String(port), HOST: '127.0.0.1', BROWSER_POOL_SIZE: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'tty-')) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    try {
      for (let i = 0; i < 400 && !out.includes('listening'); i++) await sleep(50);
      expect(out).to.contain('listening');
      await fetch(`http://127.0.0.1:${port}/v2/usage?x-api-key=sg_TerminalSecret123`).then((r) => r.arrayBuffer());
      for (let i = 0; i < 100 && !out.includes('/v2/usage'); i++) await sleep(50);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    // The server under `script` went with it: its port is closed.
    for (let i = 0; i < 100 && (await fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false)); i++) await sleep(50);
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'open', () => 'closed')).to.equal('closed');
    const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).to.match(/\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening/);
    // The request is logged by its path: no query value is ever written (http/access-log.ts).
    expect(plain).to.match(/path: "\/v2\/usage"/);
    expect(plain).not.to.contain('TerminalSecret');
    expect(plain.split('\n').some((line) => line.trim().startsWith('{"level"'))).to.equal(false);
  });
});
