import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('generated OpenAPI types', () => {
  // The Firecrawl client's types leave a request field with a default optional, as a caller may.
  for (const [document, generated, ...options] of [
    ['openapi', 'openapi-types'],
    ['admin', 'admin-types'],
    ['firecrawl', 'firecrawl-types'],
    ['firecrawl', 'firecrawl-client-types', '--default-non-nullable', 'false'],
  ]) {
    it(`${generated}.ts is what openapi-typescript makes of the current ${document} document (run \`npm run types\` after a spec change)`, function () {
      this.timeout(30_000);
      const out = join(mkdtempSync(join(tmpdir(), 'types-')), `${generated}.ts`);
      execFileSync('node_modules/.bin/openapi-typescript', [`openapi/dist/${document}.yaml`, ...options, '-o', out], { stdio: 'ignore' });
      expect(readFileSync(`src/generated/${generated}.ts`, 'utf8')).to.equal(readFileSync(out, 'utf8'));
    });
  }
});
