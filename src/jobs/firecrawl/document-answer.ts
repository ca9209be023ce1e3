import { ExtractRulesError } from '../../content/extract/extract-rules-error.js';
import type { HtmlWorkers, HtmlWorkOwner } from '../../content/html-work/html-workers.js';
import type { FetchedPage } from '../../engines/fetcher.js';
import type { Answer } from '../../scrape/answer.js';
import { AntiBotDetectedError } from '../../scrape/anti-bot-error.js';
import { bodyContentType, pageHtml } from '../../scrape/answers/page-body.js';
import type { JobDocument } from '../job-ports.js';
import { RetryablePageError, retryAfterMs } from '../retryable-page-error.js';
import type { FirecrawlOptions } from './firecrawl-options.js';

/** What the answer makes of a page: the document, and the page's links when a crawl asked for them. */
export interface MadeDocument {
  document: JobDocument;
  links: string[] | undefined;
}

export interface DocumentAnswerChoice {
  /** The URL as requested: the document's `sourceURL`. */
  sourceURL: string;
  options: FirecrawlOptions;
  /** Which proxy the attempt leaves through, as Firecrawl names it. */
  proxyUsed: 'basic' | 'stealth';
  /** False while retries remain: a target's 5xx or 429 is then thrown as RetryablePageError, before any charge. */
  lastAttempt: boolean;
  discoverLinks: boolean;
  /** A 403 is thrown as a wall (refunded), for `proxy: auto` to try a residential proxy. */
  escalateOn403: boolean;
}

/** A body read as text for the document: HTML, XML, JSON, plain text, or no type said. */
function isText(type: string | undefined): boolean {
  if (type === undefined) return true;
  const essence = type.split(';')[0].trim().toLowerCase();
  return essence === '' || essence.startsWith('text/') || /[+/](html|xml|json)$/.test(essence) || essence === 'application/javascript';
}

function retryable(status: number): boolean {
  return status >= 500 || status === 429;
}

/**
 * The Answer a Firecrawl scrape makes: the page's document, its HTML work (metadata, links,
 * markdown, cleaned html, an extraction) done in the HTML workers under the caller's key. A target
 * status to retry is thrown first, so that the attempt is refunded and retried; so is a 403 for
 * `proxy: auto`. `creditsUsed` and `scrapeId` are filled in once the scrape knows them.
 */
export function documentAnswer(workers: HtmlWorkers, choice: DocumentAnswerChoice): Answer<MadeDocument> {
  const { options } = choice;
  return {
    needs: { text: false, cookies: false, extras: false },
    htmlWork: true,
    build: async (page: FetchedPage, owner: HtmlWorkOwner): Promise<MadeDocument> => {
      if (!choice.lastAttempt && retryable(page.status)) {
        const retryAfter = page.headers.find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
        throw new RetryablePageError(page.status, retryAfterMs(retryAfter));
      }
      if (choice.escalateOn403 && page.status === 403) throw new AntiBotDetectedError('target', 'HTTP 403');
      const contentType = bodyContentType(page);
      const document: JobDocument = { metadata: { sourceURL: choice.sourceURL, url: page.finalUrl, statusCode: page.status, proxyUsed: choice.proxyUsed, creditsUsed: 0, scrapeId: '' } };
      let links: string[] | undefined;
      if (isText(contentType)) {
        const html = pageHtml(page);
        const { formats } = options;
        const wantsLinks = formats.links || choice.discoverLinks;
        const made = await workers.run(
          'pageDocument',
          {
            html,
            pageUrl: page.finalUrl,
            onlyMainContent: options.onlyMainContent,
            includeTags: options.includeTags,
            excludeTags: options.excludeTags,
            removeBase64Images: options.removeBase64Images,
            wants: { markdown: formats.markdown, html: formats.html, links: wantsLinks, images: formats.images },
            ...(formats.attributes ? { attributes: formats.attributes } : {}),
          },
          owner,
        );
        if (made.markdown !== undefined) document.markdown = made.markdown;
        if (made.html !== undefined) document.html = made.html;
        if (formats.rawHtml) document.rawHtml = html;
        if (formats.links) document.links = made.links ?? [];
        if (formats.images) document.images = made.images ?? [];
        if (made.attributes) document.attributes = made.attributes;
        if (made.warning) document.warning = made.warning;
        if (choice.discoverLinks) links = made.links ?? [];
        if (options.extractRules !== null) document.extracted = await extracted(workers, html, options.extractRules, owner);
        document.metadata = { ...made.metadata, ...document.metadata };
      } else {
        document.warning = `the page is ${contentType}, not a text page: it has no markdown, html or links`;
        if (options.formats.attributes) document.attributes = options.formats.attributes.map((a) => ({ ...a, values: [] }));
        if (choice.discoverLinks) links = [];
      }
      if (page.actions) document.actions = page.actions;
      if (page.capture) document.screenshot = `data:${page.capture.contentType};base64,${page.capture.data.toString('base64')}`;
      if (contentType !== undefined) document.metadata.contentType = contentType;
      document.metadata.cacheState = 'miss';
      if (page.status >= 400) document.metadata.error = `the target answered ${page.status}`;
      return { document, links };
    },
  };
}

/** What the rules take from the page, as JSON (the rules were checked at submission; a page can still make them too costly). */
async function extracted(workers: HtmlWorkers, html: string, raw: string, owner: HtmlWorkOwner): Promise<unknown> {
  const rules = await workers.run('rules', raw, owner);
  if (!rules.ok) throw new ExtractRulesError(rules.issues);
  const outcome = await workers.run('extract', { html, rules: rules.rules }, owner);
  if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
  // The worker's JSON, parsed once here: a document is stored and answered as one JSON value.
  return JSON.parse(outcome.json) as unknown;
}
