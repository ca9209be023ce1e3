import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { XMLToSitemapIndexStream, XMLToSitemapItemStream } from 'sitemap';
import type { SiteFiles } from './site-fetcher.js';

const unzip = promisify(gunzip);

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

/** Bytes fed to the parser at a time: each slice is its own turn of the event loop. */
const SLICE = 64 * 1024;
const FETCH_MS = 15_000;

/**
 * The URLs of a site's sitemaps: those robots.txt names and /sitemap.xml, nested indexes
 * followed, `.gz` files (or gzip bodies) inflated within the size bound, each parsed by the
 * `sitemap` package's streaming parsers a slice at a time. Bounded in files, URLs, bytes and
 * time; a file that cannot be read is skipped.
 */
export async function sitemapUrls(files: SiteFiles, start: URL, fromRobots: string[], limits: SitemapLimits): Promise<string[]> {
  const queue = [...new Set([...fromRobots, `${start.origin}/sitemap.xml`])];
  const seen = new Set<string>();
  const urls = new Set<string>();
  let read = 0;
  while (queue.length > 0 && read < limits.maxFiles && urls.size < limits.maxUrls && Date.now() < limits.deadline) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    read++;
    const file = await files.get(next, Math.max(1, Math.min(FETCH_MS, limits.deadline - Date.now())));
    if (!file || file.status >= 400) continue;
    let xml = file.body;
    if (xml.length >= 2 && xml[0] === 0x1f && xml[1] === 0x8b) {
      try {
        xml = await unzip(xml, { maxOutputLength: limits.maxBytes });
      } catch {
        continue;
      }
    }
    if (xml.length > limits.maxBytes) continue;
    const head = xml.subarray(0, 2048).toString('utf8');
    try {
      if (head.includes('<sitemapindex')) {
        for (const child of await parse(xml, new XMLToSitemapIndexStream(), (item: { url: string }) => item.url, limits.maxFiles)) queue.push(child);
      } else {
        for (const url of await parse(xml, new XMLToSitemapItemStream(), (item: { url: string }) => item.url, limits.maxUrls - urls.size)) urls.add(url);
      }
    } catch {
      continue;
    }
  }
  return [...urls];
}

async function parse<T>(xml: Buffer, parser: NodeJS.ReadWriteStream, urlOf: (item: T) => string, max: number): Promise<string[]> {
  const out: string[] = [];
  const slices = function* () {
    for (let i = 0; i < xml.length; i += SLICE) yield xml.subarray(i, i + SLICE);
  };
  await pipeline(
    Readable.from(slices()),
    parser,
    new Writable({
      objectMode: true,
      write(item: T, _enc, done) {
        if (out.length < max) out.push(urlOf(item));
        done();
      },
    }),
  );
  return out;
}
