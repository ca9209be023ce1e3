import { expect } from 'chai';
import { OpenAPIBackend, OpenAPIValidator } from 'openapi-backend';
import { withFormats } from '../../src/http/routing/ajv-formats.js';
import { loadSpecAssets } from '../../src/http/spec-assets.js';

/** The promises are kept, not the instances: concurrent first callers must all wait for init(). */
type Which = 'openapi' | 'admin' | 'firecrawl';
interface SpecApi {
  backend: OpenAPIBackend;
  validator: OpenAPIValidator;
}
const apis = new Map<Which, Promise<SpecApi>>();

/**
 * The document is read, checked and dereferenced as before, but its schemas are compiled only
 * for the operations a test checks: compiling all of them at once (every request, response and
 * header validator of three documents) was 6 to 8 s of each run that used this helper. The
 * schemas compiled are the same ones; only when they are compiled differs.
 */
async function specApi(which: Which): Promise<SpecApi> {
  let api = apis.get(which);
  if (!api) {
    api = (async () => {
      const backend = new OpenAPIBackend({ definition: loadSpecAssets(undefined, which).document, quick: false, strict: false, validate: false });
      await backend.init();
      const validator = new OpenAPIValidator({ definition: backend.definition, router: backend.router, customizeAjv: withFormats, lazyCompileValidators: true });
      return { backend, validator };
    })();
    apis.set(which, api);
  }
  return api;
}

/**
 * Dredd only checks that keys are present on OAS3, so every answer in the integration tests is
 * checked here against the document's schema for its operation and status: body and headers.
 */
export async function expectMatchesSpec(operationId: string, res: Response, body: unknown, which: Which = 'openapi'): Promise<void> {
  const a = (await specApi(which)).validator;
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

/** expectMatchesSpec against the admin document. */
export function expectMatchesAdminSpec(operationId: string, res: Response, body: unknown): Promise<void> {
  return expectMatchesSpec(operationId, res, body, 'admin');
}

/** The admin document's operationId for a request, as its router would match it. */
export async function adminOperationOf(method: string, path: string): Promise<string> {
  const op = (await specApi('admin')).backend.matchOperation({ method, path, headers: {} });
  if (!op?.operationId) throw new Error(`no admin operation for ${method} ${path}`);
  return op.operationId;
}
