import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { SitemapXmlInput, SitemapXmlOutput } from '../../content/sitemap/sitemap-xml.js';
import type { SiteFiles } from './site-fetcher.js';

const unzip = promisify(gunzip);

/**
 * What a site's sitemaps may cost a crawl or a map, named once: every caller and the sitemap
 * thread (server/crawl-parts.ts) read these, and docs/crawling.md states them.
 */
export const SITEMAP_LIMITS = {
  /** Sitemap files read at most (indexes included), and sitemaps taken from robots.txt. */
  files: 50,
  /** One file's bytes at most, as fetched and after decompression. */
  bytes: 50 * 1024 * 1024,
  /** URLs a crawl takes of them at most (twice its limit when less). */
  crawlUrls: 100_000,
  /** A crawl's reading of them all ends by then (a map's, by its own timeout). */
  crawlMs: 30_000,
  /** One file's fetch at most. */
  fetchMs: 15_000,
  /** One file's parse on the sitemap thread at most: a large file takes seconds. */
  parseMs: 15_000,
} as const;

export interface SitemapLimits {
  /** Sitemap files read at most (indexes included). */
  maxFiles: number;
  /** URLs kept at most. */
  maxUrls: number;
  /** One file's bytes at most, after decompression. */
  maxBytes: number;
  /** All the reading ends by then. */
  deadline: number;
}

/**
 * Parses one file's bytes into its URLs: the HTML workers' `sitemapXml` task, so that a site's
 * XML is never parsed on the event loop. Rejects when the file cannot be parsed (or in time).
 */
export type SitemapParser = (input: SitemapXmlInput) => Promise<SitemapXmlOutput>;

/**
 * The URLs of a site's sitemaps: those robots.txt names and /sitemap.xml, nested indexes
 * followed, `.gz` files (or gzip bodies) inflated within the size bound (zlib works off the
 * event loop), each parsed by `parse` on a worker thread. Bounded in files, URLs, bytes and time;
 * a file that cannot be read is skipped.
 */
export async function sitemapUrls(files: SiteFiles, parse: SitemapParser, start: URL, fromRobots: string[], limits: SitemapLimits): Promise<string[]> {
  const queue = [...new Set([...fromRobots, `${start.origin}/sitemap.xml`])];
  const seen = new Set<string>();
  const urls = new Set<string>();
  let read = 0;
  while (queue.length > 0 && read < limits.maxFiles && urls.size < limits.maxUrls && Date.now() < limits.deadline) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    read++;
    const file = await files.get(next, Math.max(1, Math.min(SITEMAP_LIMITS.fetchMs, limits.deadline - Date.now())));
    if (!file || file.status >= 400) continue;
    let xml = file.body;
    if (xml.length >= 2 && xml[0] === 0x1f && xml[1] === 0x8b) {
      try {
        xml = await unzip(xml, { maxOutputLength: limits.maxBytes });
      } catch {
        continue;
      }
    }
    if (xml.length > limits.maxBytes || xml.length === 0) continue;
    try {
      const parsed = await parse({ xml: ownBytes(xml), maxUrls: limits.maxUrls - urls.size, maxSitemaps: limits.maxFiles, deadline: limits.deadline });
      if (parsed.index) queue.push(...parsed.urls);
      else for (const url of parsed.urls) urls.add(url);
    } catch {
      continue;
    }
  }
  return [...urls];
}

/** The bytes alone: a view's whole backing buffer would be copied to the worker with it. */
function ownBytes(xml: Buffer): Uint8Array {
  return xml.byteOffset === 0 && xml.byteLength === xml.buffer.byteLength ? xml : new Uint8Array(xml);
}
