import type { EgressContext } from '../egress/egress-context.js';
import type { Deadline } from '../time/deadline.js';
import type { ActionResults } from './browser/actions/browser-action.js';
import type { Cookie, ScrapeRequest } from './scrape-request.js';

export interface Capture {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'application/pdf';
  /** The page or element was taller than the capture's limit, and the image was cut there. */
  truncated: boolean;
}

/** What the answer to be built from the page needs of it, besides its body (the kind of answer decides). */
export interface PageNeeds {
  /** The page's visible text (a rendered page's, read in the browser). */
  text: boolean;
  /** The cookies visible to the final URL. */
  cookies: boolean;
  /** The page's XHR/fetch calls and iframes. */
  extras: boolean;
}

/** One attempt at a request: its time, its way out, what its answer needs, and its caller's presence. */
export interface Attempt {
  deadline: Deadline;
  /** The only way to the target: checked addresses, through the request's proxy if it has one. */
  egress: EgressContext;
  needs: PageNeeds;
  /** Aborted when the caller has gone: the engine stops its work and throws ClientCancelledError. */
  cancelled?: AbortSignal;
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
  /** What the request's browser actions produced (browser engine). */
  actions?: ActionResults;
}

/** An engine. It throws FetchError subclasses for target-side failures and nothing else on purpose. */
export interface Fetcher {
  fetch(request: ScrapeRequest, attempt: Attempt): Promise<FetchedPage>;
  close(): Promise<void>;
}
