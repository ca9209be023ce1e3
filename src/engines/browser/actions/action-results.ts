import { TargetTooLargeError } from '../../../egress/fetch-errors.js';
import type { ActionResults } from './browser-action.js';

/** What all the actions of one request may produce, in characters (their data URIs and HTML). */
export const MAX_RESULTS_CHARS = 64 * 1024 * 1024;

/** The actions' results as they come, in Firecrawl's shape, their total size bounded. */
export class ActionResultsBuilder {
  private readonly results: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  private chars = 0;

  constructor(private readonly maxChars = MAX_RESULTS_CHARS) {}

  screenshot(uri: string): void {
    this.count(uri.length);
    this.results.screenshots.push(uri);
  }

  pdf(uri: string): void {
    this.count(uri.length);
    this.results.pdfs.push(uri);
  }

  scrape(page: { url: string; html: string }): void {
    this.count(page.url.length + page.html.length);
    this.results.scrapes.push(page);
  }

  /**
   * A script's answer, counted as the larger of what crossed from the page (`rawChars`: a page
   * may pad its JSON with whitespace the decoded value drops) and of the JSON the answer carries.
   */
  javascriptReturn(returned: { type: string; value: unknown }, rawChars: number): void {
    this.count(Math.max(rawChars, JSON.stringify(returned.value ?? null).length));
    this.results.javascriptReturns.push(returned);
  }

  get(): ActionResults {
    return this.results;
  }

  private count(chars: number): void {
    this.chars += chars;
    if (this.chars > this.maxChars) throw new TargetTooLargeError(`the actions' results exceed ${this.maxChars} characters`);
  }
}
