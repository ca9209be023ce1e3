import { z } from 'zod';
import { RESOURCE_TYPES } from '../../engines/scrape-request.js';
import { browserActionsSchema } from '../../engines/browser/actions/browser-action.js';
import type { StoredScrapeOptions } from '../job-ports.js';

/**
 * A Firecrawl scrape's options once validated and normalised at submission (the edge's
 * http/decode/firecrawl-options.ts makes them): Firecrawl's and scrapegate's names resolved into
 * one meaning each, every default applied, scripts decoded, headers vetted. This is what a job
 * stores (as JSON) and what every item decodes again: nothing is decided twice.
 */
const screenshotSchema = z.object({
  fullPage: z.boolean(),
  /** JPEG of this quality; null: PNG. */
  quality: z.number().int().min(1).max(100).nullable(),
  width: z.number().int().min(320).max(3840),
  height: z.number().int().min(240).max(2160),
});

export const firecrawlOptionsSchema = z.object({
  formats: z.object({
    markdown: z.boolean(),
    html: z.boolean(),
    rawHtml: z.boolean(),
    links: z.boolean(),
    images: z.boolean(),
    screenshot: screenshotSchema.nullable(),
    /** Firecrawl's `attributes` format; null: not asked for. */
    attributes: z
      .array(z.object({ selector: z.string().min(1).max(2048), attribute: z.string().min(1).max(256) }))
      .max(100)
      .nullable()
      .default(null),
  }),
  onlyMainContent: z.boolean(),
  includeTags: z.array(z.string().max(2048)).max(100),
  excludeTags: z.array(z.string().max(2048)).max(100),
  removeBase64Images: z.boolean(),
  /** Headers for the target, already vetted. */
  headers: z.record(z.string(), z.string()),
  cookies: z.array(z.object({ name: z.string(), value: z.string() })),
  /** The engine, resolved: the caller's `browser`, else whether an option needs one. */
  browser: z.boolean(),
  mobile: z.boolean(),
  waitForMs: z.number().int().min(0).max(60_000),
  waitForSelector: z.string().nullable(),
  /** The caller's js_snippet, decoded from its Base64. */
  jsSnippet: z.string().nullable(),
  blockResources: z.array(z.enum(RESOURCE_TYPES)),
  /** basic: datacenter; stealth: residential; auto: datacenter, then residential past a wall or a 403. */
  proxy: z.enum(['basic', 'stealth', 'auto']),
  country: z.string().length(2).nullable(),
  sessionId: z.number().int().nullable(),
  timeoutMs: z.number().int().min(1000).max(60_000),
  /** The caller's extract_rules, as JSON text. */
  extractRules: z.string().nullable(),
  /** Firecrawl's browser actions, validated (none for options stored before they were taken). */
  actions: browserActionsSchema.default([]),
});

export type FirecrawlOptions = z.infer<typeof firecrawlOptionsSchema>;
export type ScreenshotChoice = z.infer<typeof screenshotSchema>;

/** Options as stored, read back for an item; a stored value that is not what submission wrote is a bug (thrown). */
export function decodeOptions(stored: StoredScrapeOptions): FirecrawlOptions {
  return firecrawlOptionsSchema.parse(stored);
}

/** Options as a job stores them (JSON). */
export function storedOptions(options: FirecrawlOptions): StoredScrapeOptions {
  return firecrawlOptionsSchema.parse(options) as StoredScrapeOptions;
}
