import { guardSockets } from './loopback-only.js';

/**
 * Preloaded (`node --import`) into a child process a test starts from a published package it
 * does not control (Firecrawl's MCP server): its sockets reach loopback only, as the test
 * process's own do.
 */
guardSockets();
