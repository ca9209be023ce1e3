import { guardSockets } from './loopback-only.js';

/**
 * Preloaded (`node --import`) into every server a test starts (ServerProcess) and into the
 * published packages a test runs (Firecrawl's MCP server): their sockets reach loopback only, as
 * the test process's own do. The crawl's site links to metadata and private addresses; were the
 * target policy ever broken, the server still could not contact them. A server started with an
 * IPC channel is told that the guard is on, so a test can check it.
 */
guardSockets();
process.send?.({ event: 'test.loopback-only' });
