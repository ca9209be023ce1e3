import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The rules of .dependency-cruiser.cjs, as `npm test` runs them, on the `src` folder under `root`. */
function violations(root: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      `${ROOT}node_modules/.bin/depcruise`,
      ['src', '--config', `${ROOT}.dependency-cruiser.cjs`, '--ts-config', 'tsconfig.json', '--output-type', 'json'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        if (!stdout) return reject(err ?? new Error('no output from depcruise'));
        const result = JSON.parse(stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
        resolve(result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`));
      },
    );
  });
}

describe('dependency rules (.dependency-cruiser.cjs)', function () {
  this.timeout(60_000);
  // Both cruises start together: each is a process of its own, and the second one ran on an
  // idle core while the first was awaited. A failure is reported by the test that awaits it.
  let service: Promise<string[]>;
  let wrongWay: Promise<string[]>;
  before(() => {
    service = violations(ROOT);
    wrongWay = violations(fileURLToPath(new URL('../fixtures/wrong-way/', import.meta.url)));
    for (const cruise of [service, wrongWay]) cruise.catch(() => undefined);
  });

  it('hold for the service: every import runs the way the layers do, and none is circular #slow', async () => {
    expect(await service).to.deep.equal([]);
  });

  it('fail a deliberate wrong-way import and a deliberate cycle', async () => {
    const found = await wrongWay;
    expect(found).to.include('egress-below-engines: src/egress/way-out.ts → src/engines/engine.ts');
    expect(found.some((v) => v.startsWith('no-circular: src/time/'))).to.equal(true);
  });
});
