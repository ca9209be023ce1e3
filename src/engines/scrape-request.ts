import type { ProxyType } from '../config/catalog.js';
import type { BrowserAction } from './browser/actions/browser-action.js';

export type ForwardedMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export interface Cookie {
  name: string;
  value: string;
}

/** /v2/pdf's paper sizes, and the others a `pdf` action may name (Firecrawl's). */
export type PaperFormat = 'A0' | 'A1' | 'A2' | 'A3' | 'A4' | 'A5' | 'A6' | 'Letter' | 'Legal' | 'Tabloid' | 'Ledger';

/** An image or a PDF of the rendered page, taken once it is ready (browser engine only). */
export type CaptureSpec =
  | {
      kind: 'screenshot';
      format: 'png' | 'jpeg';
      /** JPEG only; undefined: Chrome's default. */
      quality: number | undefined;
      fullPage: boolean;
      /** Only the first element matching it. */
      selector: string | undefined;
      /** The window the page is laid out in, in CSS pixels. */
      width: number;
      height: number;
    }
  | { kind: 'pdf'; paper: PaperFormat; landscape: boolean; printBackground: boolean; scale?: number };

/**
 * One scrape, as every way in asks for it (an API call, a batch item, a crawled page) once its
 * parameters are decoded: what to fetch and how. The same object travels from the edge to the
 * engine; what one attempt at it adds (its deadline, its way out) travels beside it (Attempt).
 */
export interface ScrapeRequest {
  url: URL;
  method: ForwardedMethod;
  /** Headers for the target, already stripped of their `svc-` prefix and vetted. */
  headers: Record<string, string>;
  body: Buffer | undefined;
  cookies: Cookie[];
  browser: boolean;
  /** The target's own bytes, unrendered (browser only). */
  returnPageSource: boolean;
  jsSnippet: string | undefined;
  waitForSelector: string | undefined;
  blockResources: ResourceType[];
  proxy: {
    type: ProxyType;
    country: string | undefined;
    /** A sticky session's number: the same exit for the same key, session, type and country. */
    sessionId: number | undefined;
  };
  timeoutMs: number;
  /** A screenshot or PDF of the rendered page (browser only). */
  capture: CaptureSpec | undefined;
  /** Firecrawl's browser actions, run in order once the page has loaded (browser only). */
  actions?: BrowserAction[];
}
