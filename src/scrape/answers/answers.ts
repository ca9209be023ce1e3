import { ExtractRulesError } from '../../content/extract/extract-rules-error.js';
import type { ExtractRules } from '../../content/extract/extract-rules.js';
import type { ExtractOutcome } from '../../content/html-work/html-task.js';
import type { HtmlWorkers, HtmlWorkOwner } from '../../content/html-work/html-workers.js';
import type { Capture, FetchedPage } from '../../engines/fetcher.js';
import type { components } from '../../generated/openapi-types.js';
import { NEEDS_NOTHING, type Answer } from '../answer.js';
import { cookieString, pageHtml } from './page-body.js';

type V1Result = components['schemas']['V1Result'];
type ExtendedResult = components['schemas']['ExtendedResult'];
type MarkdownResult = components['schemas']['MarkdownResult'];

function extracted(outcome: ExtractOutcome): string {
  if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
  return outcome.json;
}

/**
 * The answers the service makes from a fetched page, each an Answer: what it needs of the page,
 * and how it is made. Every piece of work on the page's HTML (its text, its Markdown, an
 * extraction) runs in the HTML workers, queued fairly under the owner's key; a rendered page's
 * text comes from the browser. An extraction comes back as JSON text and is answered as it is.
 */
export class Answers {
  /**
   * `rulesWorkers` parse the callers' extract_rules: bounded work (64 KiB of rules, at most
   * 100 ms), kept apart from the pages' so that it never waits behind a page's long task.
   */
  constructor(
    private readonly workers: HtmlWorkers,
    private readonly rulesWorkers: HtmlWorkers,
  ) {}

  /**
   * The caller's extract_rules (JSON text), parsed and checked in a worker, queued under the key
   * the request names (not yet authenticated: refused rules cost nothing, and are refused before
   * anything is reserved). ExtractRulesError lists what is wrong with them.
   */
  async rules(raw: string, keyHash: string): Promise<ExtractRules> {
    const outcome = await this.rulesWorkers.run('rules', raw, { key: keyHash });
    if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
    return outcome.rules;
  }

  /** The page itself, as the result carries it (its bytes, status and headers): nothing more to make. */
  page(): Answer<undefined> {
    return { needs: NEEDS_NOTHING, htmlWork: false, build: () => undefined };
  }

  /** The screenshot or PDF the request asked for; an engine that came back without it is refunded, never charged. */
  capture(): Answer<Capture> {
    return {
      needs: NEEDS_NOTHING,
      htmlWork: false,
      build: (page) => {
        if (!page.capture) throw new Error('the engine answered without the capture it was asked for');
        return page.capture;
      },
    };
  }

  /** What the rules take from the page, as JSON text. */
  extracted(rules: ExtractRules): Answer<string> {
    return {
      needs: NEEDS_NOTHING,
      htmlWork: true,
      build: async (page, owner) => extracted(await this.workers.run('extract', { html: pageHtml(page), rules }, owner)),
    };
  }

  /** v1: the page's HTML or its text, with its cookies and status. */
  v1(returnText: boolean): Answer<V1Result> {
    return {
      needs: { text: returnText, cookies: true, extras: false },
      htmlWork: returnText,
      build: async (page, owner) => {
        const html = pageHtml(page);
        return { content: returnText ? await this.text(page, html, owner) : html, cookies: cookieString(page), status_code: page.status };
      },
    };
  }

  /** The page as Markdown: links made absolute against where the page ended up, `url` as requested. */
  markdown(requestedUrl: string, onlyMainContent: boolean): Answer<MarkdownResult> {
    return {
      needs: NEEDS_NOTHING,
      htmlWork: true,
      build: async (page, owner) => {
        const markdown = await this.workers.run('markdown', { html: pageHtml(page), baseUrl: page.finalUrl, onlyMainContent }, owner);
        return { url: requestedUrl, markdown };
      },
    };
  }

  /**
   * The extended answer as JSON text: the page, its text, cookies, headers, XHRs and iframes, and
   * with rules their `extracted` member (the worker's JSON, as it is). With rules, a plain page's
   * text and its extraction come from one parse.
   */
  extended(rules: ExtractRules | undefined): Answer<string> {
    return {
      needs: { text: true, cookies: true, extras: true },
      htmlWork: true,
      build: async (page, owner) => {
        const html = pageHtml(page);
        let text: string;
        let json: string | undefined;
        if (rules && page.text === undefined) {
          const both = await this.workers.run('textAndExtract', { html, rules }, owner);
          [text, json] = [both.text, extracted(both.extracted)];
        } else {
          text = await this.text(page, html, owner);
          json = rules ? extracted(await this.workers.run('extract', { html, rules }, owner)) : undefined;
        }
        const answer: Omit<ExtendedResult, 'extracted'> = {
          html,
          text,
          cookies: cookieString(page),
          status_code: page.status,
          headers: page.headers.map(([name, value]) => ({ name, value })),
          xhrs: page.xhrs,
          iframes: page.iframes,
          ...(page.capture ? { screenshot: page.capture.data.toString('base64') } : {}),
          ...(page.actions ? { actions: page.actions } : {}),
        };
        const object = JSON.stringify(answer);
        // The object always has members, so its text ends in "}" after at least one of them.
        return json === undefined ? object : `${object.slice(0, -1)},"extracted":${json}}`;
      },
    };
  }

  private text(page: FetchedPage, html: string, owner: HtmlWorkOwner): Promise<string> {
    return page.text !== undefined ? Promise.resolve(page.text) : this.workers.run('text', html, owner);
  }
}
