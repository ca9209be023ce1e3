import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { findConfig, loadConfig } from '@redocly/openapi-core';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * What `npm run types` writes, made here the way openapi-typescript's CLI makes it (its bin/cli.js:
 * the Redocly config found in the working directory, the header, the AST printed), in this
 * process: four runs of the CLI cost four Node starts and four loads of the TypeScript compiler,
 * about 10 s of CPU, for the same text.
 */
async function generate(document: string, defaultNonNullable: boolean | undefined): Promise<string> {
  const redocly = await loadConfig({ configPath: findConfig() });
  return `${COMMENT_HEADER}${astToString(await openapiTS(pathToFileURL(`openapi/dist/${document}.yaml`), { redocly, defaultNonNullable, silent: true }))}`;
}

describe('generated OpenAPI types', () => {
  // The Firecrawl client's types leave a request field with a default optional, as a caller may
  // (`--default-non-nullable false` in `npm run types`).
  for (const [document, generated, defaultNonNullable] of [
    ['openapi', 'openapi-types', undefined],
    ['admin', 'admin-types', undefined],
    ['firecrawl', 'firecrawl-types', undefined],
    ['firecrawl', 'firecrawl-client-types', false],
  ] as const) {
    it(`${generated}.ts is what openapi-typescript makes of the current ${document} document (run \`npm run types\` after a spec change)`, async function () {
      this.timeout(30_000);
      expect(readFileSync(`src/generated/${generated}.ts`, 'utf8')).to.equal(await generate(document, defaultNonNullable));
    });
  }
});
