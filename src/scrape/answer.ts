import type { HtmlWorkOwner } from '../content/html-work/html-workers.js';
import type { FetchedPage, PageNeeds } from '../engines/fetcher.js';

/**
 * What a scrape answers with, made from the page it fetched. The kind of answer decides what the
 * page must carry (its text, its cookies, its XHRs and iframes) and whether making it is HTML work.
 */
export interface Answer<T> {
  readonly needs: PageNeeds;
  /**
   * Making it is HTML work on the page (its text, its Markdown, an extraction): the request is
   * budgeted like a browser request (billing/browser-budget.ts), and a cost cap counts as a failure.
   */
  readonly htmlWork: boolean;
  /** Runs after the fetch, inside the billing: the request is charged only once this has answered. */
  build(page: FetchedPage, owner: HtmlWorkOwner): T | Promise<T>;
}

export const NEEDS_NOTHING: PageNeeds = { text: false, cookies: false, extras: false };
