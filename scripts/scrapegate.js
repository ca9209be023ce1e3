#!/usr/bin/env node
// `npx scrapegate …`: runs the TypeScript CLI through tsx, as `npm start` runs the server.
import { tsImport } from 'tsx/esm/api';

await tsImport('../src/cli/main.ts', import.meta.url);
