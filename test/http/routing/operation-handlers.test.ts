import { expect } from 'chai';
import express from 'express';
import type { OpenAPIV3 } from 'openapi-types';
import { OpenApiRouter } from '../../../src/http/routing/openapi-router.js';
import { ADMIN_DEFAULTED_PARAMETERS, DEFAULTED_PARAMETERS, type OperationHandler, type OperationHandlers } from '../../../src/http/routing/operations.js';
import { loadSpecAssets } from '../../../src/http/spec-assets.js';

const answer: OperationHandler<'v2Usage'> = async (_v, _req, res) => void res.end();
const handlers = Object.fromEntries(
  Object.values(loadSpecAssets().document.paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, OpenAPIV3.OperationObject>).flatMap((op) => (op?.operationId ? [[op.operationId, answer]] : [])),
  ),
) as unknown as OperationHandlers;
const parsers = { json: express.json(), raw: express.raw() };

// The compiler refuses a map with a stray handler and one with a missing handler: `npm test`
// type-checks these lines, and fails if either error went away.
export const stray: OperationHandlers = {
  ...handlers,
  // @ts-expect-error an operation the document does not have
  v3Anything: answer,
};
// @ts-expect-error v2Usage (and every other operation) has no handler
export const missing: OperationHandlers = { v1GeneralGet: handlers.v1GeneralGet };

describe('operation handlers', () => {
  it('one per operation of the document: the router refuses a missing one and a stray one at start', async () => {
    const { document } = loadSpecAssets();
    await new OpenApiRouter(document, handlers).routes(parsers);
    const { v2Usage: _dropped, ...withoutOne } = handlers;
    const err1 = await new OpenApiRouter(document, withoutOne as OperationHandlers).routes(parsers).catch((e: unknown) => e);
    expect(String(err1)).to.contain('no handler for v2Usage');
    const err2 = await new OpenApiRouter(document, { ...handlers, v3Anything: answer } as OperationHandlers).routes(parsers).catch((e: unknown) => e);
    expect(String(err2)).to.contain('no operation v3Anything');
  });

  for (const [which, expected] of [['openapi', DEFAULTED_PARAMETERS], ['admin', ADMIN_DEFAULTED_PARAMETERS]] as const) it(`knows exactly which parameters the ${which} document gives a default (the validator fills them in)`, () => {
    const { document } = loadSpecAssets(undefined, which);
    const defaulted = new Set<string>();
    const visit = (name: string, schema: OpenAPIV3.SchemaObject | undefined) => {
      if (schema && 'default' in schema) defaulted.add(name);
    };
    const components = document.components as OpenAPIV3.ComponentsObject;
    const schemaOf = (s: unknown) => {
      const ref = (s as OpenAPIV3.ReferenceObject | undefined)?.$ref;
      return (ref ? components.schemas?.[ref.split('/').pop()!] : s) as OpenAPIV3.SchemaObject | undefined;
    };
    const parameterOf = (p: unknown) => {
      const ref = (p as OpenAPIV3.ReferenceObject).$ref;
      return (ref ? components.parameters?.[ref.split('/').pop()!] : p) as OpenAPIV3.ParameterObject;
    };
    for (const item of Object.values(document.paths ?? {}) as OpenAPIV3.PathItemObject[]) {
      for (const p of item.parameters ?? []) visit(parameterOf(p).name, schemaOf(parameterOf(p).schema));
      for (const op of Object.values(item as Record<string, OpenAPIV3.OperationObject>)) {
        if (typeof op !== 'object' || Array.isArray(op)) continue;
        for (const p of op.parameters ?? []) visit(parameterOf(p).name, schemaOf(parameterOf(p).schema));
        const body = schemaOf((op?.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content?.['application/json']?.schema);
        for (const [name, schema] of Object.entries(body?.properties ?? {})) visit(name, schemaOf(schema));
      }
    }
    expect([...defaulted].sort()).to.deep.equal([...expected].sort());
  });
});
