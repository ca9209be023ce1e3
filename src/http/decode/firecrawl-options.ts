import type { components } from '../../generated/firecrawl-types.js';
import type { ResourceType } from '../../engines/scrape-request.js';
import { defaultWindow } from '../../jobs/firecrawl/item-request.js';
import type { FirecrawlOptions } from '../../jobs/firecrawl/firecrawl-options.js';
import { InvalidValueError } from '../../scrape/invalid-value-error.js';
import { actionsOf } from './actions-param.js';
import { parseCookieList } from './cookie-list.js';
import { forwardedHeaders } from './forwarded-headers.js';
import { checkCookie } from './header-values.js';

type Schemas = components['schemas'];
/** The scrape options of either body (POST /v2/scrape, POST /v2/batch/scrape), as the document validated them (its defaults filled in, but not relied on). */
export type FirecrawlOptionFields = Partial<Omit<Schemas['ScrapeRequest'], 'url'>>;
type Format = Schemas['Format'];

/** The formats scrapegate makes; Firecrawl's others (its LLM and tracking formats) are refused by name. */
const MADE = new Set(['markdown', 'html', 'rawHtml', 'links', 'images', 'screenshot', 'screenshot@fullPage', 'attributes']);
const MAX_RULES_CHARS = 64 * 1024;

function invalid(param: string, msg: string, type = 'value_error'): InvalidValueError {
  return new InvalidValueError(param, msg, type);
}

interface Screenshot {
  fullPage: boolean;
  quality: number | null;
  viewport: { width?: number; height?: number };
}

type AttributeChoice = Array<{ selector: string; attribute: string }>;

function formatsOf(formats: Format[]): { names: Set<string>; screenshot: Screenshot | null; attributes: AttributeChoice | null } {
  const names = new Set<string>();
  let screenshot: Screenshot | null = null;
  let attributes: AttributeChoice | null = null;
  formats.forEach((format, i) => {
    const type = typeof format === 'string' ? format : format.type;
    if (!MADE.has(type)) throw invalid(`formats.${i}`, `the ${type} format is not supported by this server`, 'value_error.not_supported');
    if (type === 'screenshot' || type === 'screenshot@fullPage') {
      if (screenshot) throw invalid('formats', 'ask for one screenshot format at most');
      const object = typeof format === 'object' ? (format as Schemas['ScreenshotFormat']) : undefined;
      screenshot = { fullPage: type === 'screenshot@fullPage' || object?.fullPage === true, quality: object?.quality ?? null, viewport: { ...object?.viewport } };
      return;
    }
    if (type === 'attributes') {
      // As Firecrawl: one attributes format, each {selector, attribute} in it once (a repeat would read, and answer, the same values twice).
      if (attributes) throw invalid(`formats.${i}`, 'ask for the attributes format once: list every {selector, attribute} in its selectors');
      const selectors = typeof format === 'object' ? (format as Partial<Schemas['AttributesFormat']>).selectors : undefined;
      if (!selectors || selectors.length === 0) throw invalid(`formats.${i}.selectors`, 'the attributes format needs selectors: [{selector, attribute}]');
      const seen = new Set<string>();
      selectors.forEach(({ selector, attribute }, j) => {
        const key = JSON.stringify([selector, attribute.toLowerCase()]);
        if (seen.has(key)) throw invalid(`formats.${i}.selectors.${j}`, `{selector: ${JSON.stringify(selector)}, attribute: ${JSON.stringify(attribute)}} is asked for twice`);
        seen.add(key);
      });
      attributes = selectors.map(({ selector, attribute }) => ({ selector, attribute }));
      return;
    }
    if (typeof format === 'object' && Object.keys(format).length > 1) throw invalid(`formats.${i}`, `the ${type} format takes no options`);
    names.add(type);
  });
  return { names, screenshot, attributes };
}

/** Firecrawl's proxy and scrapegate's proxy_type, as one choice; both given must agree. */
function proxyOf(body: FirecrawlOptionFields): FirecrawlOptions['proxy'] {
  const proxy = body.proxy ?? 'basic';
  if (body.proxy_type === undefined) return proxy;
  const named = body.proxy_type === 'residential' ? 'stealth' : 'basic';
  if (body.proxy !== undefined && body.proxy !== named) throw invalid('proxy_type', `proxy_type ${body.proxy_type} contradicts proxy ${body.proxy}: send one of them`);
  return named;
}

function countryOf(body: FirecrawlOptionFields): string | null {
  const fromLocation = body.location?.country?.toUpperCase();
  const fromParam = body.proxy_country?.toUpperCase();
  if (fromLocation && fromParam && fromLocation !== fromParam) throw invalid('proxy_country', `proxy_country ${fromParam} contradicts location.country ${fromLocation}: send one of them`);
  return fromParam ?? fromLocation ?? null;
}

function headersOf(body: FirecrawlOptionFields): { headers: Record<string, string>; cookies: FirecrawlOptions['cookies'] } {
  // Vetted as the sync API's svc- headers are: the same names never forwarded, the same values refused.
  const raw = Object.entries(body.headers ?? {}).flatMap(([name, value]) => [`svc-${name}`, value]);
  const { headers, cookies } = forwardedHeaders(raw);
  const languages = body.location?.languages;
  if (languages && languages.length > 0 && !Object.keys(headers).some((n) => n.toLowerCase() === 'accept-language')) headers['Accept-Language'] = languages.join(', ');
  const fromParam = parseCookieList(body.cookies ?? '');
  for (const c of fromParam) checkCookie(c.name, c.value, 'cookies');
  return { headers, cookies: [...fromParam, ...cookies] };
}

function rulesOf(rules: FirecrawlOptionFields['extract_rules']): string | null {
  if (rules === undefined) return null;
  const text = typeof rules === 'string' ? rules : JSON.stringify(rules);
  if (text.length > MAX_RULES_CHARS) throw invalid('extract_rules', `ensure the rules have at most ${MAX_RULES_CHARS} characters`);
  return text;
}

/** What needs the browser, and how a refusal names it. */
function browserNeeds(body: FirecrawlOptionFields, screenshot: boolean, blockResources: ResourceType[]): string | undefined {
  const needs: Array<[boolean, string]> = [
    [screenshot, 'a screenshot'],
    [(body.actions?.length ?? 0) > 0, 'actions'],
    [(body.waitFor ?? 0) > 0, 'waitFor'],
    [body.mobile === true, 'mobile'],
    [body.wait_for_selector !== undefined, 'wait_for_selector'],
    [body.js_snippet !== undefined, 'js_snippet'],
    [blockResources.length > 0, 'block_resource'],
  ];
  return needs.find(([needed]) => needed)?.[1];
}

/**
 * A Firecrawl body's scrape options, validated by the document, made into the one meaning each
 * has (FirecrawlOptions): Firecrawl's names and scrapegate's reconciled, defaults applied, what
 * needs a browser choosing it, and what scrapegate cannot do refused by name (an InvalidValueError,
 * answered 400). Done once per submission; a job stores the result.
 */
export function firecrawlOptions(body: FirecrawlOptionFields): FirecrawlOptions {
  const formats = formatsOf(body.formats ?? ['markdown']);
  const waitForMs = body.waitFor ?? 0;
  const timeoutMs = body.timeout ?? 60_000;
  const actions = body.actions === undefined ? [] : actionsOf(body.actions, timeoutMs);
  if (waitForMs > timeoutMs / 2) throw invalid('waitFor', `waitFor may be at most half the timeout (${Math.floor(timeoutMs / 2)} ms)`);
  const blockResources: ResourceType[] = [...new Set(body.block_resource ?? [])];
  const needed = browserNeeds(body, formats.screenshot !== null, blockResources);
  if (body.browser === false && needed) throw invalid('browser', `${needed} needs the browser: leave browser unset, or true`);
  const browser = body.browser ?? needed !== undefined;
  // Ads' video and audio are what a page loads most of for nothing; their markup stays.
  if (browser && (body.blockAds ?? true) && !blockResources.includes('media')) blockResources.push('media');
  const mobile = body.mobile ?? false;
  const window = defaultWindow(mobile);
  const shot = formats.screenshot;
  return {
    formats: {
      markdown: formats.names.has('markdown'),
      html: formats.names.has('html'),
      rawHtml: formats.names.has('rawHtml'),
      links: formats.names.has('links'),
      images: formats.names.has('images'),
      screenshot: shot && { fullPage: shot.fullPage, quality: shot.quality, width: shot.viewport.width ?? window.width, height: shot.viewport.height ?? window.height },
      attributes: formats.attributes,
    },
    onlyMainContent: body.onlyMainContent ?? true,
    includeTags: body.includeTags ?? [],
    excludeTags: body.excludeTags ?? [],
    removeBase64Images: body.removeBase64Images ?? true,
    ...headersOf(body),
    browser,
    mobile,
    waitForMs,
    waitForSelector: body.wait_for_selector ?? null,
    jsSnippet: body.js_snippet === undefined ? null : Buffer.from(body.js_snippet, 'base64').toString('utf8'),
    blockResources,
    proxy: proxyOf(body),
    country: countryOf(body),
    sessionId: body.session_id ?? null,
    timeoutMs,
    extractRules: rulesOf(body.extract_rules),
    actions,
  };
}
