import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import type { JobDocument } from './job-ports.js';

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** A stored document decompresses to this at most: a corrupt or hostile row cannot exhaust memory. */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/**
 * Documents are kept compressed in the database (docs/jobs.md gives the measurement): Brotli at
 * quality 5 makes a page's Markdown, HTML and raw HTML about a sixth of their size at a few ms
 * per page, on libuv's threads, never on the event loop.
 */
export async function encodeDocument(document: JobDocument): Promise<{ stored: Buffer; bytes: number }> {
  const json = Buffer.from(JSON.stringify(document), 'utf8');
  const stored = await compress(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } });
  return { stored, bytes: json.length };
}

export async function decodeDocument(stored: Buffer): Promise<JobDocument> {
  const json = await decompress(stored, { maxOutputLength: MAX_DOCUMENT_BYTES });
  return JSON.parse(json.toString('utf8')) as JobDocument;
}
