import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { JobDocument } from '../../src/jobs/job-ports.js';

/** The package the SDK tests install Firecrawl's published clients in, apart from the project's own (test/sdk/package.json). */
export const SDK_PACKAGE_DIR = fileURLToPath(new URL('../sdk/', import.meta.url));

export interface SdkBatchJob {
  id?: string;
  status: string;
  total: number;
  completed: number;
  creditsUsed?: number;
  next?: string | null;
  data: JobDocument[];
}

/** What the tests use of `@mendable/firecrawl-js` 4.x's default export (its v2 client). */
export interface FirecrawlSdk {
  scrape(url: string, options?: Record<string, unknown>): Promise<JobDocument>;
  startBatchScrape(urls: string[], options?: Record<string, unknown>): Promise<{ id: string; url: string; invalidURLs?: string[] }>;
  getBatchScrapeStatus(id: string, pagination?: { autoPaginate?: boolean; maxPages?: number }): Promise<SdkBatchJob>;
  batchScrape(urls: string[], options?: Record<string, unknown>): Promise<SdkBatchJob>;
  cancelBatchScrape(id: string): Promise<boolean>;
  crawl(url: string, options?: Record<string, unknown>): Promise<SdkBatchJob>;
  startCrawl(url: string, options?: Record<string, unknown>): Promise<{ id: string; url: string }>;
  getCrawlStatus(id: string, pagination?: { autoPaginate?: boolean; maxPages?: number }): Promise<SdkBatchJob>;
  getCrawlErrors(id: string): Promise<{ errors: Array<{ id: string; url: string; error: string }>; robotsBlocked: string[] }>;
  map(url: string, options?: Record<string, unknown>): Promise<{ links: Array<{ url: string; title?: string; description?: string }> }>;
  watcher(id: string, options: Record<string, unknown>): { on(event: string, listener: (state: { status: string; data: unknown[] }) => void): void; start(): Promise<void>; close(): void };
}
export type FirecrawlSdkClass = new (options: { apiKey: string; apiUrl: string }) => FirecrawlSdk;

/**
 * The published JS SDK as its users get it, from test/sdk's own node_modules (installed by
 * scripts/setup-test-env.sh: `npm ci --prefix test/sdk`); undefined when it is not installed.
 */
export async function loadFirecrawlSdk(): Promise<FirecrawlSdkClass | undefined> {
  if (!existsSync(`${SDK_PACKAGE_DIR}node_modules/@mendable/firecrawl-js/package.json`)) return undefined;
  const resolved = createRequire(`${SDK_PACKAGE_DIR}package.json`).resolve('@mendable/firecrawl-js');
  // The package's ESM build (its `import` export), beside the CommonJS one require resolves to.
  const esm = resolved.replace(/index\.cjs$/, 'index.js');
  return ((await import(pathToFileURL(esm).href)) as { default: FirecrawlSdkClass }).default;
}

/** What the tests use of the MCP SDK's client (`@modelcontextprotocol/sdk`, a dependency of firecrawl-mcp in test/sdk). */
export interface McpClient {
  connect(transport: unknown): Promise<void>;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(request: { name: string; arguments: Record<string, unknown> }, resultSchema?: unknown, options?: { timeout?: number }): Promise<{ content: Array<{ type: string; text?: string }>; isError?: boolean }>;
  close(): Promise<void>;
}

export interface FirecrawlMcp {
  /** A client of the MCP protocol, and a transport that starts `command` and speaks to it over stdio. */
  Client: new (info: { name: string; version: string }) => McpClient;
  StdioClientTransport: new (options: { command: string; args: string[]; env: Record<string, string>; cwd?: string; stderr?: 'pipe' | 'ignore' | 'inherit' }) => unknown;
  /** firecrawl-mcp's executable script. */
  server: string;
}

/** Firecrawl's MCP server (`firecrawl-mcp` 3.x) and an MCP client for it, from test/sdk; undefined when not installed. */
export async function loadFirecrawlMcp(): Promise<FirecrawlMcp | undefined> {
  const root = `${SDK_PACKAGE_DIR}node_modules/`;
  const server = `${root}firecrawl-mcp/dist/index.js`;
  const sdk = `${root}@modelcontextprotocol/sdk/dist/esm/client/`;
  if (!existsSync(server) || !existsSync(`${sdk}index.js`)) return undefined;
  const { Client } = (await import(pathToFileURL(`${sdk}index.js`).href)) as Pick<FirecrawlMcp, 'Client'>;
  const { StdioClientTransport } = (await import(pathToFileURL(`${sdk}stdio.js`).href)) as Pick<FirecrawlMcp, 'StdioClientTransport'>;
  return { Client, StdioClientTransport, server };
}
