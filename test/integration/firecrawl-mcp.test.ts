import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { loadFirecrawlMcp, type McpClient } from '../helpers/firecrawl-sdk.js';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';

const PRELOAD = fileURLToPath(new URL('../helpers/loopback-only-preload.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Firecrawl's MCP server (`firecrawl-mcp` 3.x, from test/sdk), pointed at the real scrapegate
 * server with FIRECRAWL_API_URL and driven over stdio by the MCP SDK's own client, as an MCP host
 * (an editor, an agent) drives it. Its process reaches loopback only (a preloaded socket guard).
 */
// What this file proves is the same on either database (the ledger on MySQL has suites of its own,
// and the SDK's batches run there in firecrawl-sdk): SQLite only, to keep the suite in budget.
for (const database of testDatabases().slice(0, 1)) {
  describe(`Firecrawl's MCP server against the real server (${database.name})`, function () {
    this.timeout(120_000);
    const s = useSuite(database);
    let client: McpClient | undefined;

    before(async function () {
      const mcp = await loadFirecrawlMcp();
      if (!mcp) this.skip();
      s.target.route('/mcp-page', (_req, res: ServerResponse) =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>MCP</title></head><body><main><h1>Hello MCP</h1><p>Through the <a href="/tool">tool</a>.</p></main></body></html>'),
      );
      const key = await s.store.key({ credits: 1_000 });
      const transport = new mcp.StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', '--import', PRELOAD, mcp.server],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', FIRECRAWL_API_URL: s.server.base, FIRECRAWL_API_KEY: key },
        stderr: 'ignore',
      });
      client = new mcp.Client({ name: 'scrapegate-test', version: '1.0.0' });
      await client.connect(transport);
    });
    after(async () => {
      await client?.close();
    });

    it('lists its scrape tool, and firecrawl_scrape answers the page as Markdown', async () => {
      const { tools } = await (client as McpClient).listTools();
      expect(tools.map((t) => t.name)).to.include('firecrawl_scrape');
      const result = await (client as McpClient).callTool({ name: 'firecrawl_scrape', arguments: { url: s.target.url('/mcp-page'), formats: ['markdown'] } }, undefined, { timeout: 60_000 });
      const text = result.content.map((c) => c.text ?? '').join('\n');
      expect(result.isError, text).to.not.equal(true);
      expect(text).to.contain('# Hello MCP').and.contain(`[tool](${s.target.url('/tool')})`);
    });
  });
}
