import { expect } from 'chai';
import { OpenAPIBackend } from 'openapi-backend';
import { withFormats } from '../../src/api/ajv-formats.js';
import { loadSpecAssets } from '../../src/http/spec-assets.js';

/** The promise is kept, not the instance: concurrent first callers must all wait for init(). */
let api: Promise<OpenAPIBackend> | undefined;

async function specApi(): Promise<OpenAPIBackend> {
  api ??= (async () => {
    const backend = new OpenAPIBackend({ definition: loadSpecAssets().document, quick: false, strict: false, customizeAjv: withFormats });
    await backend.init();
    return backend;
  })();
  return api;
}

/**
 * Dredd only checks that keys are present on OAS3, so every answer in the integration tests is
 * checked here against the document's schema for its operation and status: body and headers.
 */
export async function expectMatchesSpec(operationId: string, res: Response, body: unknown): Promise<void> {
  const a = await specApi();
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.startsWith('application/json')) {
    const result = a.validateResponse(body, operationId, res.status);
    expect(result.errors ?? [], `${operationId} ${res.status} body: ${JSON.stringify(result.errors)}`).to.deep.equal([]);
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  const headerResult = a.validateResponseHeaders(headers, operationId, { statusCode: res.status });
  expect(headerResult.errors ?? [], `${operationId} ${res.status} headers: ${JSON.stringify(headerResult.errors)}`).to.deep.equal([]);
}
