import type { FetchedPage } from '../fetchers/fetcher.js';
import type { components } from '../generated/openapi-types.js';
import { ExtractRulesError } from '../errors/extract-rules-error.js';
import type { Extracted } from '../extract/extract.js';
import type { ExtractRules } from '../extract/extract-rules.js';
import type { HtmlWorkers } from './html-work/html-workers.js';

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
 * The JSON answers built from a fetched page. The text of a plain page is worked out from its
 * HTML, off the event loop when the page is large (a rendered page's text comes from the browser).
 */
export class PageAnswers {
  constructor(private readonly workers: HtmlWorkers) {}

  readableText(page: FetchedPage, html: string): Promise<string> {
    return page.text !== undefined ? Promise.resolve(page.text) : this.workers.run('text', html, html.length);
  }

  async v1Result(page: FetchedPage, returnText: boolean): Promise<V1Result> {
    const html = pageHtml(page);
    return {
      content: returnText ? await this.readableText(page, html) : html,
      cookies: cookieString(page),
      status_code: page.status,
    };
  }

  /** The page as Markdown: links made absolute against where the page ended up, `url` as requested. */
  async markdownResult(page: FetchedPage, requestedUrl: string, onlyMainContent: boolean): Promise<MarkdownResult> {
    const html = pageHtml(page);
    const markdown = await this.workers.run('markdown', { html, baseUrl: page.finalUrl, onlyMainContent }, html.length);
    return { url: requestedUrl, markdown };
  }

  /** What the rules take from the page; ExtractRulesError when applying them overflows a limit. */
  extracted(page: FetchedPage, rules: ExtractRules): Promise<Extracted> {
    return this.extractFrom(pageHtml(page), rules);
  }

  private async extractFrom(html: string, rules: ExtractRules): Promise<Extracted> {
    const outcome = await this.workers.run('extract', { html, rules }, html.length);
    if (!outcome.ok) throw new ExtractRulesError(outcome.issues);
    return outcome.value;
  }

  async extendedResult(page: FetchedPage, rules?: ExtractRules): Promise<ExtendedResult> {
    const html = pageHtml(page);
    const extracted = rules ? await this.extractFrom(html, rules) : undefined;
    return {
      html,
      text: await this.readableText(page, html),
      cookies: cookieString(page),
      status_code: page.status,
      headers: page.headers.map(([name, value]) => ({ name, value })),
      xhrs: page.xhrs,
      iframes: page.iframes,
      ...(rules ? { extracted } : {}),
      ...(page.capture ? { screenshot: page.capture.data.toString('base64') } : {}),
    };
  }
}

/** The metadata headers of a v2 answer besides its cost: target status, and every target header prefixed. */
export function v2Headers(page: FetchedPage): Array<[string, string]> {
  const out: Array<[string, string]> = [['Svc-page-status-code', String(page.status)]];
  for (const [name, value] of page.headers) out.push([`svc-original-header-${name.toLowerCase()}`, value]);
  return out;
}
