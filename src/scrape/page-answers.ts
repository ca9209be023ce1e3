import type { FetchedPage } from '../engines/fetcher.js';
import type { components } from '../generated/openapi-types.js';
import { ExtractRulesError } from '../content/extract/extract-rules-error.js';
import type { ExtractRules } from '../content/extract/extract-rules.js';
import { hashApiKey } from '../billing/billing.js';
import type { HtmlWorkers, HtmlWorkOwner } from '../content/html-work/html-workers.js';

/**
 * The charset a body declares, as a browser finds it: a byte-order mark, the Content-Type's
 * charset, or a `<meta>` in the first 1024 bytes.
 */
function declaredCharset(page: FetchedPage): string | undefined {
  const b = page.body;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(bodyContentType(page) ?? '')?.[1];
  if (fromHeader) return fromHeader;
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(b.toString('latin1', 0, 1024))?.[1];
}

/** The page's body as text, in the charset it declares (UTF-8 when none, or one this runtime does not know). */
export function pageHtml(page: FetchedPage): string {
  const charset = declaredCharset(page);
  if (charset) {
    try {
      return new TextDecoder(charset).decode(page.body);
    } catch {
      // an unknown label: fall through to UTF-8
    }
  }
  return page.body.toString('utf8');
}

/** The type of the body as answered: the engine's when it changed the body, else the target's. */
export function bodyContentType(page: FetchedPage): string | undefined {
  return page.contentType ?? header(page, 'content-type');
}

export function header(page: FetchedPage, name: string): string | undefined {
  const lower = name.toLowerCase();
  return page.headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

export function cookieString(page: FetchedPage): string {
  return page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}

type V1Result = components['schemas']['V1Result'];
type ExtendedResult = components['schemas']['ExtendedResult'];
type MarkdownResult = components['schemas']['MarkdownResult'];

/**
 * The JSON answers built from a fetched page. Every piece of work on the page's HTML (its text,
 * its Markdown, an extraction) runs in the HTML workers, queued fairly under `owner`'s key (a
 * rendered page's text comes from the browser). An extraction comes back as JSON text, and is
 * answered as it is.
 */
export class PageAnswers {
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
  async rules(raw: string, apiKey: string): Promise<ExtractRules> {
    const outcome = await this.rulesWorkers.run('rules', raw, { key: hashApiKey(apiKey) });
    if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
    return outcome.rules;
  }

  readableText(page: FetchedPage, html: string, owner: HtmlWorkOwner): Promise<string> {
    return page.text !== undefined ? Promise.resolve(page.text) : this.workers.run('text', html, owner);
  }

  async v1Result(page: FetchedPage, returnText: boolean, owner: HtmlWorkOwner): Promise<V1Result> {
    const html = pageHtml(page);
    return {
      content: returnText ? await this.readableText(page, html, owner) : html,
      cookies: cookieString(page),
      status_code: page.status,
    };
  }

  /** The page as Markdown: links made absolute against where the page ended up, `url` as requested. */
  async markdownResult(page: FetchedPage, requestedUrl: string, onlyMainContent: boolean, owner: HtmlWorkOwner): Promise<MarkdownResult> {
    const html = pageHtml(page);
    const markdown = await this.workers.run('markdown', { html, baseUrl: page.finalUrl, onlyMainContent }, owner);
    return { url: requestedUrl, markdown };
  }

  /** What the rules take from the page, as JSON text; ExtractRulesError when applying them overflows a limit. */
  extractedJson(page: FetchedPage, rules: ExtractRules, owner: HtmlWorkOwner): Promise<string> {
    return this.extractFrom(pageHtml(page), rules, owner);
  }

  private async extractFrom(html: string, rules: ExtractRules, owner: HtmlWorkOwner): Promise<string> {
    const outcome = await this.workers.run('extract', { html, rules }, owner);
    if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
    return outcome.json;
  }

  /** The extended answer as JSON text (its `extracted` member, when rules were given, the worker's JSON as it is). */
  async extendedJson(page: FetchedPage, owner: HtmlWorkOwner, rules?: ExtractRules): Promise<string> {
    const html = pageHtml(page);
    const extracted = rules ? await this.extractFrom(html, rules, owner) : undefined;
    const answer: Omit<ExtendedResult, 'extracted'> = {
      html,
      text: await this.readableText(page, html, owner),
      cookies: cookieString(page),
      status_code: page.status,
      headers: page.headers.map(([name, value]) => ({ name, value })),
      xhrs: page.xhrs,
      iframes: page.iframes,
      ...(page.capture ? { screenshot: page.capture.data.toString('base64') } : {}),
    };
    const json = JSON.stringify(answer);
    // The object always has members, so its text ends in "}" after at least one of them.
    return extracted === undefined ? json : `${json.slice(0, -1)},"extracted":${extracted}}`;
  }
}

/** The metadata headers of a v2 answer besides its cost: target status, and every target header prefixed. */
export function v2Headers(page: FetchedPage): Array<[string, string]> {
  const out: Array<[string, string]> = [['Svc-page-status-code', String(page.status)]];
  for (const [name, value] of page.headers) out.push([`svc-original-header-${name.toLowerCase()}`, value]);
  return out;
}
