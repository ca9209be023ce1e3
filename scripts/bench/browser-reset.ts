// What a session's reset costs, by process: one warm session driven directly (no server, no
// render), its reset repeated, the CPU of each kind of process in its tree read from /proc before
// and after. A renderer that ended is counted in its zygote (which reaped it). `--steps` stops the
// reset part-way, to see what each part costs: `context` (a context made and disposed), `tab`
// (and a tab in it), `attach` (and attached, its renderer asked one evaluation), `switch` (and
// WebDriver switched to it), `reset` (the whole reset, the gateway's credentials included).
// Run it with `npm run bench:browser-reset [-- --cycles 30 --steps tab]`; `CHROMIUM_PATH` picks the browser.
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BrowserSession } from '../../src/engines/browser/browser-session.js';
import { locateChromedriver } from '../../src/engines/browser/driver-locator.js';
import { OwnPorts } from '../../src/egress/target-policy/own-ports.js';

const { values } = parseArgs({ options: { cycles: { type: 'string', default: '30' }, steps: { type: 'string', default: 'reset' } } });
const CYCLES = Number(values.cycles);
const STEPS = ['context', 'tab', 'attach', 'switch', 'reset'];
if (!STEPS.includes(values.steps)) throw new Error(`--steps is one of ${STEPS.join(', ')}`);
const TICK_MS = 10;

/** The kind of a process of ours: chromedriver, Chromium's browser process, or its `--type` (and utility sub-type). */
function kindOf(args: string): string {
  if (args.includes('chromedriver')) return 'chromedriver';
  const type = /--type=([a-z-]+)/.exec(args)?.[1];
  if (!type) return /chrom/.test(args) ? 'browser' : 'other';
  const utility = /--utility-sub-type=([\w.]+)/.exec(args)?.[1];
  return utility ? `${type} ${utility.split('.').pop()}` : type;
}

/** CPU ms (with reaped children's) of each kind of process under this one. */
function cpuByKind(): Map<string, number> {
  const table = new Map<number, { ppid: number; ms: number; kind: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(name), { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS, kind: kindOf(args) });
    } catch {
      // ended while read
    }
  }
  const mine = (pid: number) => {
    for (let p = table.get(pid)?.ppid ?? 0, hops = 0; p > 1 && hops < 64; hops++, p = table.get(p)?.ppid ?? 0) if (p === process.pid) return true;
    return false;
  };
  const byKind = new Map<string, number>();
  for (const [pid, row] of table) if (mine(pid)) byKind.set(row.kind, (byKind.get(row.kind) ?? 0) + row.ms);
  return byKind;
}

const session = await BrowserSession.create({
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  chromedriverPath: locateChromedriver(process.env.CHROMEDRIVER_PATH),
  remoteUrl: undefined,
  gatewayHost: '127.0.0.1',
  ownPorts: new OwnPorts(),
});
const { cdp } = session;

/** One cycle, up to `--steps`. */
async function cycle(): Promise<void> {
  if (values.steps === 'reset') return session.reset();
  const upTo = STEPS.indexOf(values.steps);
  const { browserContextId } = await cdp.sendToBrowser<{ browserContextId: string }>('Target.createBrowserContext', { proxyServer: session.gateway.url, proxyBypassList: '<-loopback>' });
  if (upTo >= 1) {
    const { targetId } = await cdp.sendToBrowser<{ targetId: string }>('Target.createTarget', { url: 'about:blank', browserContextId });
    if (upTo >= 2) {
      const { sessionId } = await cdp.sendToBrowser<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      await cdp.sendTo(sessionId, 'Runtime.evaluate', { expression: '1' });
    }
    if (upTo >= 3) await session.driver.switchTo().window(targetId);
  }
  await cdp.sendToBrowser('Target.disposeBrowserContext', { browserContextId });
}

for (let i = 0; i < 3; i++) await cycle();
const before = cpuByKind();
const ownBefore = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < CYCLES; i++) await cycle();
const wall = performance.now() - started;
const own = process.cpuUsage(ownBefore);
const after = cpuByKind();
await session.quit();

console.log(`\n${CYCLES} cycles of '${values.steps}' on one session (${process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'}), per cycle:\n`);
const row = (name: string, ms: number) => console.log(`${name.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms`);
row('wall time', wall / CYCLES);
row('CPU: this process (CDP, the gateway)', (own.user + own.system) / 1000 / CYCLES);
let total = (own.user + own.system) / 1000 / CYCLES;
for (const kind of [...new Set([...before.keys(), ...after.keys()])].sort()) {
  const ms = ((after.get(kind) ?? 0) - (before.get(kind) ?? 0)) / CYCLES;
  total += ms;
  // A renderer of the last cycle replaced the one before it: its difference is noise, its CPU is in the zygote's.
  if (Math.abs(ms) >= 0.5) row(`CPU: ${kind}`, ms);
}
row('CPU: all', total);
