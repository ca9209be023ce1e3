// Writes the bundled document as Dredd can read it. Dredd expands paths as RFC 6570 URI
// templates, whose variable names cannot hold "-", so the `x-api-key` query parameter is named
// `x_api_key` here and renamed back by the hooks before each request is sent. Its OAS3 parser
// also drops every operation with a `*/*` media type, so the raw v2 answers are declared as
// the HTML they normally are, without an example body to compare.
import { readFileSync, writeFileSync } from 'node:fs';

const [, , from, to] = process.argv;
const doc = JSON.parse(readFileSync(from, 'utf8'));
const rename = (params = []) => {
  for (const p of params) if (p.in === 'query' && p.name === 'x-api-key') p.name = 'x_api_key';
};
for (const p of Object.values(doc.components?.parameters ?? {})) rename([p]);
for (const item of Object.values(doc.paths)) {
  rename(item.parameters);
  for (const op of Object.values(item)) if (op && typeof op === 'object' && !Array.isArray(op)) rename(op.parameters);
}
const concrete = (content) => {
  if (!content?.['*/*']) return;
  const { example: _example, ...media } = content['*/*'];
  delete content['*/*'];
  content['text/html'] = media;
};
for (const response of Object.values(doc.components?.responses ?? {})) concrete(response.content);
for (const item of Object.values(doc.paths)) {
  for (const op of Object.values(item)) {
    if (!op || typeof op !== 'object' || Array.isArray(op)) continue;
    concrete(op.requestBody?.content);
    for (const response of Object.values(op.responses ?? {})) concrete(response.content);
  }
}
writeFileSync(to, JSON.stringify(doc, null, 2));
