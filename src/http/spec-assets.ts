import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Document } from 'openapi-backend';

export interface SpecAssets {
  document: Document;
  json: string;
  yaml: string;
  docsHtml: string;
}

export const SPEC_DIST_DIR = fileURLToPath(new URL('../../openapi/dist/', import.meta.url));

/** The bundled OpenAPI document and the Redoc page, as `npm run spec` builds them. */
/**
 * The Redoc bundle hard-codes its footer logo on Redocly's CDN: the page would fetch it from every
 * reader's browser. The logo goes; /docs loads nothing but itself (its CSP says so too, app.ts).
 */
function offline(html: string): string {
  return html.replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g, 'data:,');
}

const DOCS_PAGES = { openapi: 'docs.html', admin: 'admin-docs.html', firecrawl: 'firecrawl-docs.html' } as const;

/** `which`: the public document (openapi.*, docs.html), the admin one (admin.*, admin-docs.html) or the Firecrawl dialect's (firecrawl.*, firecrawl-docs.html). */
export function loadSpecAssets(dir: string = SPEC_DIST_DIR, which: keyof typeof DOCS_PAGES = 'openapi'): SpecAssets {
  const read = (name: string) => {
    try {
      return readFileSync(`${dir}${name}`, 'utf8');
    } catch {
      throw new Error(`${dir}${name} is missing: run "npm run spec" to bundle the OpenAPI document and build the docs.`);
    }
  };
  const json = read(`${which}.json`);
  return { document: JSON.parse(json) as Document, json, yaml: read(`${which}.yaml`), docsHtml: offline(read(DOCS_PAGES[which])) };
}
