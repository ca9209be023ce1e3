import { expect } from 'chai';
import { firecrawlOptions, type FirecrawlOptionFields } from '../../../src/http/decode/firecrawl-options.js';
import { decodeOptions, storedOptions } from '../../../src/jobs/firecrawl/firecrawl-options.js';
import { itemRequest, MOBILE_USER_AGENT } from '../../../src/jobs/firecrawl/item-request.js';
import { InvalidValueError } from '../../../src/scrape/invalid-value-error.js';

function refused(body: FirecrawlOptionFields): InvalidValueError {
  try {
    firecrawlOptions(body);
  } catch (err) {
    if (err instanceof InvalidValueError) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** A Firecrawl body's options, normalised once at submission, stored, decoded for every item. */
describe('firecrawlOptions: Firecrawl\'s names and scrapegate\'s, one meaning each', () => {
  it('defaults: markdown, main content, plain HTTP, a datacenter proxy, 60 s', () => {
    const o = firecrawlOptions({});
    expect(o.formats).to.deep.equal({ markdown: true, html: false, rawHtml: false, links: false, images: false, screenshot: null, attributes: null });
    expect(o).to.include({ onlyMainContent: true, browser: false, proxy: 'basic', timeoutMs: 60_000, removeBase64Images: true, waitForMs: 0 });
    const request = itemRequest('http://127.0.0.1/x', o, 'datacenter');
    expect(request).to.include({ browser: false, timeoutMs: 60_000, jsSnippet: undefined, capture: undefined });
  });

  it('what needs a browser chooses it; browser: false with it is refused', () => {
    expect(firecrawlOptions({ formats: ['screenshot@fullPage'] })).to.deep.include({ browser: true });
    expect(firecrawlOptions({ waitFor: 1000 }).browser).to.equal(true);
    expect(firecrawlOptions({ wait_for_selector: '#x' }).browser).to.equal(true);
    expect(refused({ browser: false, formats: ['screenshot'] }).values[0].param).to.equal('browser');
  });

  it('screenshots: full page, JPEG quality, viewport; mobile\'s window and User-Agent; one screenshot at most', () => {
    const o = firecrawlOptions({ formats: [{ type: 'screenshot', fullPage: true, quality: 80, viewport: { width: 1280 } }] });
    expect(o.formats.screenshot).to.deep.equal({ fullPage: true, quality: 80, width: 1280, height: 1080 });
    expect(itemRequest('http://127.0.0.1/x', o, 'datacenter').capture).to.deep.include({ kind: 'screenshot', format: 'jpeg', quality: 80, fullPage: true, width: 1280 });
    const mobile = firecrawlOptions({ formats: ['screenshot'], mobile: true });
    expect(mobile.formats.screenshot).to.deep.include({ width: 390, height: 844 });
    expect(itemRequest('http://127.0.0.1/x', mobile, 'datacenter').headers['User-Agent']).to.equal(MOBILE_USER_AGENT);
    expect(refused({ formats: ['screenshot', 'screenshot@fullPage'] }).values[0].param).to.equal('formats');
  });

  it('refuses by name what scrapegate does not do', () => {
    expect(refused({ formats: ['markdown', { type: 'json' }] }).values[0]).to.include({ param: 'formats.1', type: 'value_error.not_supported' });
    expect(refused({ formats: ['changeTracking'] }).message).to.match(/changeTracking format is not supported/);
  });

  it('attributes: one format, its selectors; none given, the format twice or a {selector, attribute} twice refused', () => {
    const o = firecrawlOptions({ formats: ['markdown', { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }] });
    expect(o.formats).to.deep.include({ markdown: true, attributes: [{ selector: 'a', attribute: 'href' }] });
    expect(o.browser).to.equal(false);
    expect(refused({ formats: [{ type: 'attributes' }] }).values[0].param).to.equal('formats.0.selectors');
    const twice = { type: 'attributes' as const, selectors: [{ selector: 'a', attribute: 'href' }] };
    const again = { type: 'attributes' as const, selectors: [{ selector: 'img', attribute: 'src' }] };
    expect(refused({ formats: ['markdown', twice, again] }).values[0].param).to.equal('formats.2');
    const repeated = refused({ formats: [{ type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }, { selector: 'img', attribute: 'src' }, { selector: 'a', attribute: 'HREF' }] }] });
    expect(repeated.values[0].param).to.equal('formats.0.selectors.2');
    expect(repeated.values[0].msg).to.contain('twice');
    expect(firecrawlOptions({ formats: [{ type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }, { selector: 'a', attribute: 'title' }] }] }).formats.attributes).to.have.length(2);
  });

  it('actions: validated into what the engine runs, in the browser; browser false refused', () => {
    const o = firecrawlOptions({ actions: [{ type: 'click', selector: '#a', all: false }, { type: 'wait', milliseconds: 5 }] });
    expect(o).to.deep.include({ browser: true, actions: [{ type: 'click', selector: '#a', all: false }, { type: 'wait', milliseconds: 5 }] });
    expect(itemRequest('http://127.0.0.1/x', o, 'datacenter').actions).to.deep.equal(o.actions);
    expect(itemRequest('http://127.0.0.1/x', firecrawlOptions({}), 'datacenter').actions).to.equal(undefined);
    expect(refused({ actions: [{ type: 'wait' }] }).values[0]).to.include({ param: 'actions.0', type: 'value_error.actions' });
    expect(refused({ browser: false, actions: [{ type: 'scrape' }] }).values[0].param).to.equal('browser');
  });

  it('proxy and proxy_type, location.country and proxy_country: one choice each, a contradiction refused', () => {
    expect(firecrawlOptions({ proxy: 'stealth' }).proxy).to.equal('stealth');
    expect(firecrawlOptions({ proxy_type: 'residential' }).proxy).to.equal('stealth');
    expect(firecrawlOptions({ proxy: 'auto' }).proxy).to.equal('auto');
    expect(refused({ proxy: 'basic', proxy_type: 'residential' }).values[0].param).to.equal('proxy_type');
    expect(firecrawlOptions({ location: { country: 'de', languages: ['de-DE', 'en'] } })).to.deep.include({ country: 'DE', headers: { 'Accept-Language': 'de-DE, en' } });
    expect(refused({ location: { country: 'DE' }, proxy_country: 'FR' }).values[0].param).to.equal('proxy_country');
  });

  it('waitFor: at most half the timeout; in the browser, awaited before the caller\'s own snippet', () => {
    expect(refused({ waitFor: 31_000, timeout: 60_000 }).values[0].param).to.equal('waitFor');
    const o = firecrawlOptions({ waitFor: 500, js_snippet: Buffer.from('document.title = "x";').toString('base64') });
    const snippet = itemRequest('http://127.0.0.1/x', o, 'datacenter').jsSnippet ?? '';
    expect(snippet).to.contain('setTimeout(done, 500)').and.contain('document.title = "x";');
    // It is a function body the browser can run.
    expect(() => new Function(snippet)).not.to.throw();
  });

  it('headers are vetted as svc- headers are: never-forwarded names dropped, a Cookie joining cookies, bad values refused', () => {
    const o = firecrawlOptions({ headers: { 'X-A': '1', Host: 'evil', Cookie: 'b=2' }, cookies: 'a=1' });
    expect(o.headers).to.deep.equal({ 'X-A': '1' });
    expect(o.cookies).to.deep.equal([{ name: 'a', value: '1' }, { name: 'b', value: '2' }]);
    expect(() => firecrawlOptions({ headers: { 'X-A': 'a\r\nInjected: 1' } })).to.throw(InvalidValueError);
  });

  it('in the browser, blockAds keeps media from loading; the scrapegate options keep their meaning', () => {
    const o = firecrawlOptions({ browser: true, block_resource: ['image', 'image'], session_id: 7, extract_rules: { title: 'h1' } });
    expect(o.blockResources).to.deep.equal(['image', 'media']);
    expect(o).to.include({ sessionId: 7, extractRules: '{"title":"h1"}' });
    expect(firecrawlOptions({ browser: true, blockAds: false }).blockResources).to.deep.equal([]);
  });

  it('stores as JSON and decodes to the same options', () => {
    const o = firecrawlOptions({ formats: ['html', 'links', 'screenshot'], includeTags: ['main'], proxy: 'auto', timeout: 20_000 });
    const stored = JSON.parse(JSON.stringify(storedOptions(o)));
    expect(decodeOptions(stored)).to.deep.equal(o);
    expect(() => decodeOptions({ ...stored, proxy: 'cloud' })).to.throw();
  });
});
