import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { XMLToSitemapIndexStream, XMLToSitemapItemStream } from 'sitemap';

/** A sitemap file's bytes (inflated, size-bounded by the caller) and how many URLs to keep of it. */
export interface SitemapXmlInput {
  xml: Uint8Array;
  /** Page URLs kept at most, when the file is a urlset. */
  maxUrls: number;
  /** Nested sitemap URLs kept at most, when the file is an index. */
  maxSitemaps: number;
  /** Epoch ms: the file is read no further then, its URLs so far kept. */
  deadline: number;
}

/** What a sitemap file lists: pages (a urlset) or other sitemaps (an index). */
export interface SitemapXmlOutput {
  index: boolean;
  urls: string[];
}

/** Bytes fed to the parser at a time. */
const SLICE = 64 * 1024;
/** Where an index says it is one. */
const HEAD_BYTES = 2048;

/** Ends the parse once enough URLs are kept: the rest of the file is not read. */
class Enough extends Error {}

/**
 * A sitemap's URLs, by the `sitemap` package's streaming parsers. A site's XML is hostile: this
 * runs in an HTML worker thread (html-task.ts), whose time and memory are bounded, never on the
 * event loop. Throws when the file is not XML the parser accepts.
 */
export async function sitemapXml(input: SitemapXmlInput): Promise<SitemapXmlOutput> {
  const xml = Buffer.from(input.xml.buffer, input.xml.byteOffset, input.xml.byteLength);
  const index = xml.subarray(0, HEAD_BYTES).toString('utf8').includes('<sitemapindex');
  const max = index ? input.maxSitemaps : input.maxUrls;
  const urls: string[] = [];
  if (max <= 0) return { index, urls };
  const slices = function* () {
    for (let i = 0; i < xml.length && Date.now() < input.deadline; i += SLICE) yield xml.subarray(i, i + SLICE);
  };
  try {
    await pipeline(
      Readable.from(slices()),
      // A hostile file may hold millions of invalid entries: none is logged.
      index ? new XMLToSitemapIndexStream({ logger: false }) : new XMLToSitemapItemStream({ logger: false }),
      new Writable({
        objectMode: true,
        write(item: { url: string }, _enc, done) {
          urls.push(item.url);
          done(urls.length >= max ? new Enough() : undefined);
        },
      }),
    );
  } catch (err) {
    if (!(err instanceof Enough)) throw err;
  }
  return { index, urls };
}
