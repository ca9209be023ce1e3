import type { EgressContext } from '../egress/egress-context.js';
import type { Deadline } from '../time/deadline.js';

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

export type PaperFormat = 'A4' | 'Letter' | 'Legal' | 'A3';

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
  | { kind: 'pdf'; paper: PaperFormat; landscape: boolean; printBackground: boolean };

export interface Capture {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'application/pdf';
  /** The page or element was taller than the capture's limit, and the image was cut there. */
  truncated: boolean;
}

/** What to fetch and how; the browser-only fields are ignored by the plain engine. */
export interface FetchSpec {
  url: URL;
  method: ForwardedMethod;
  /** Headers for the target, already stripped of their `svc-` prefix and vetted. */
  headers: Record<string, string>;
  body: Buffer | undefined;
  cookies: Cookie[];
  deadline: Deadline;
  /** Aborted when the caller has gone: the engine stops its work and throws ClientCancelledError. */
  cancelled?: AbortSignal;
  /** The only way to the target: checked addresses, through the request's proxy if it has one. */
  egress: EgressContext;
  returnPageSource: boolean;
  jsSnippet: string | undefined;
  waitForSelector: string | undefined;
  blockResources: ResourceType[];
  /** Whether to record the page's XHR/fetch calls and iframes (the extended endpoint wants them). */
  collectExtras: boolean;
  /** Whether the answer carries the page's text (v1 return_text, extended). */
  wantsText: boolean;
  /** Whether the answer lists the page's cookies (v1, extended; v2 general does not). */
  wantsCookies: boolean;
  capture: CaptureSpec | undefined;
}

export interface XhrRecord {
  url: string;
  status: number;
  method: string;
  headers: Array<{ name: string; value: string }>;
  request_body: string | null;
  body: string | null;
}

export interface IframeRecord {
  src: string;
  html: string;
}

export interface FetchedPage {
  finalUrl: string;
  status: number;
  /** The main document's response headers in the order received, names as sent. */
  headers: Array<[string, string]>;
  /** The body as the answer should carry it: raw bytes (plain, page source) or the rendered DOM. */
  body: Buffer;
  /** The body's type when it is not what the target declared (a rendered DOM is UTF-8 HTML). */
  contentType: string | undefined;
  /** Cookies visible to the final URL after the fetch. */
  cookies: Cookie[];
  /** The page's visible text when the engine knows it better than the HTML does (a rendered page). */
  text: string | undefined;
  xhrs: XhrRecord[];
  iframes: IframeRecord[];
  /** What the spec asked to capture (browser engine). */
  capture?: Capture;
}

/** An engine. It throws FetchError subclasses for target-side failures and nothing else on purpose. */
export interface Fetcher {
  fetch(spec: FetchSpec): Promise<FetchedPage>;
  close(): Promise<void>;
}
