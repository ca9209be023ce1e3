import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('generated OpenAPI types', () => {
  it('are what openapi-typescript makes of the current document (run `npm run types` after a spec change)', function () {
    this.timeout(30_000);
    const out = join(mkdtempSync(join(tmpdir(), 'types-')), 'openapi-types.ts');
    execFileSync('node_modules/.bin/openapi-typescript', ['openapi/dist/openapi.yaml', '-o', out], { stdio: 'ignore' });
    expect(readFileSync('src/generated/openapi-types.ts', 'utf8')).to.equal(readFileSync(out, 'utf8'));
  });
});
