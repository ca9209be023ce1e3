import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('generated OpenAPI types', () => {
  for (const [document, generated] of [
    ['openapi', 'openapi-types'],
    ['admin', 'admin-types'],
  ]) {
    it(`${generated}.ts is what openapi-typescript makes of the current ${document} document (run \`npm run types\` after a spec change)`, function () {
      this.timeout(30_000);
      const out = join(mkdtempSync(join(tmpdir(), 'types-')), `${generated}.ts`);
      execFileSync('node_modules/.bin/openapi-typescript', [`openapi/dist/${document}.yaml`, '-o', out], { stdio: 'ignore' });
      expect(readFileSync(`src/generated/${generated}.ts`, 'utf8')).to.equal(readFileSync(out, 'utf8'));
    });
  }
});
