import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { logging, type WebDriver } from 'selenium-webdriver';
import { testDatabases } from '../helpers/databases.js';
import { useSuite } from '../helpers/suite.js';
import { pngStats } from '../helpers/png-stats.js';
import { testBrowser } from '../helpers/test-browser.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
}

interface OpenApiDocument {
  info: { title: string };
  paths: Record<string, Record<string, { operationId?: string; tags?: string[]; summary?: string }>>;
}

/** Every operation the served document declares, in document order. */
function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ operationId: op.operationId ?? '', method, path, tag: op.tags?.[0] ?? '', summary: op.summary ?? '' })),
  );
}

/**
 * Where Redoc (the one `redocly build-docs` of @redocly/cli 2 inlines) puts an operation: a
 * `data-section-id="/<tag>/<operationId in lower case>"` element, reachable as the hash route
 * `#/<tag>/<operationid>`. Only one tag is expanded at a time, and only sections near the
 * viewport have their content rendered, so each operation is navigated to before it is read.
 */
const sectionIdOf = (op: Operation) => `/${op.tag}/${op.operationId.toLowerCase()}`;

/** A URL the page may load: this server, or what the page made itself (blob:, data:). */
function isLocal(url: string, base: string): boolean {
  return url.startsWith(`${base}/`) || url.startsWith('blob:') || url.startsWith('data:');
}

describe('the Redoc page at /docs, in Chromium', function () {
  this.timeout(60_000);
  const database = testDatabases()[0];
  if (!database) throw new Error('no test database');
  const s = useSuite(database);
  let driver: WebDriver | undefined;
  let document: OpenApiDocument;
  let operations: Operation[];
  const requested: string[] = [];

  /** Drains the performance log into `requested`; it is emptied on each read. */
  async function collectRequests(): Promise<void> {
    if (!driver) return;
    for (const entry of await driver.manage().logs().get(logging.Type.PERFORMANCE)) {
      const { message } = JSON.parse(entry.message) as { message: { method: string; params: { request?: { url: string } } } };
      if (message.method === 'Network.requestWillBeSent' && message.params.request) requested.push(message.params.request.url);
    }
  }

  const sectionText = (id: string) =>
    driver!.executeScript<string | null>('const e = document.querySelector(`[data-section-id="${arguments[0]}"]`); return e ? e.innerText : null;', id);

  before(async () => {
    document = (await (await fetch(`${s.server.base}/openapi.json`)).json()) as OpenApiDocument;
    operations = operationsOf(document);
    driver = await testBrowser();
  });

  // Drained after every test: chromedriver buffers the log only until it is read.
  afterEach(collectRequests);

  after(async () => {
    await driver?.quit();
  });

  it('renders the overview', async () => {
    await driver!.get(`${s.server.base}/docs`);
    await driver!.wait(async () => (await sectionText('/'))?.includes(document.info.title) ?? false, 20_000, 'Redoc never rendered the overview');
    expect(await driver!.getTitle()).to.equal('scrapegate API');
  });

  it('has a section for every operation of the document, with its summary and path', async () => {
    expect(operations.length).to.be.greaterThan(0);
    expect(operations.every((op) => op.operationId && op.tag), 'every operation has an operationId and a tag').to.equal(true);
    const unrendered: string[] = [];
    for (const op of operations) {
      await driver!.get(`${s.server.base}/docs#${sectionIdOf(op)}`);
      // A hash route only expands its tag: the tag's sections are then exactly its operations.
      const siblings = await driver!.wait(async () => {
        const ids = await driver!.executeScript<string[]>(
          'return [...document.querySelectorAll("[data-section-id]")].map((e) => e.getAttribute("data-section-id")).filter((id) => id.startsWith(arguments[0]))',
          `/${op.tag}/`,
        );
        return ids.length > 0 ? ids : undefined;
      }, 20_000, `the ${op.tag} tag never expanded`);
      expect(siblings).to.have.members(operations.filter((o) => o.tag === op.tag).map(sectionIdOf));
      const rendered = await driver!
        .wait(async () => {
          const text = await sectionText(sectionIdOf(op));
          return text !== null && text.includes(op.summary) && text.includes(op.path);
        }, 10_000)
        .catch(() => false);
      if (!rendered) unrendered.push(op.operationId);
    }
    expect(unrendered, 'operations whose section never showed their summary and path').to.deep.equal([]);
  });

  it('leaves a full-page screenshot in test-artifacts/docs-page.png', async () => {
    // The first tag expanded: the overview and that tag's operations in full (about 7000 px; all
    // of them expanded would be over 30 000). Redoc renders only sections near the viewport, so
    // the window grows to the page's height until every section is in view.
    await driver!.get(`${s.server.base}/docs#/${operations[0]?.tag ?? ''}`);
    await driver!.wait(async () => (await sectionText('/'))?.includes(document.info.title) ?? false, 20_000);
    for (let i = 0; i < 5; i++) {
      const height = await driver!.executeScript<number>('return document.documentElement.scrollHeight');
      const viewport = await driver!.executeScript<number>('return window.innerHeight');
      if (viewport >= height) break;
      const rect = await driver!.manage().window().getRect();
      await driver!.manage().window().setRect({ width: rect.width, height: Math.min(rect.height + height - viewport + 100, 16_000) });
      await driver!.sleep(500);
    }
    const png = Buffer.from(await driver!.takeScreenshot(), 'base64');
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(`${ARTIFACTS}docs-page.png`, png);
    // A page that failed to render (blank, or an error on white) would not look like this: the
    // full height of the overview and a tag's operations, in Redoc's many colours, not all background.
    const stats = pngStats(png);
    expect(stats.height, 'screenshot height (px)').to.be.above(3_000);
    expect(stats.colours, 'distinct colours').to.be.above(50);
    expect(stats.inked, 'share of the page that is not background').to.be.above(0.05);
    // And what the screenshot shows is the document: the overview and the first tag's sections.
    for (const op of operations.filter((o) => o.tag === operations[0]?.tag)) {
      expect(await driver!.executeScript<boolean>(`return !!document.querySelector('[data-section-id="${sectionIdOf(op)}"]')`), op.operationId).to.equal(true);
    }
  });

  it('loads nothing from off the machine (every page the tests above opened, and a fresh load)', async () => {
    await driver!.navigate().refresh();
    await driver!.wait(async () => (await sectionText('/'))?.includes(document.info.title) ?? false, 20_000);
    await collectRequests();
    expect(requested, 'the performance log saw the page itself').to.include(`${s.server.base}/docs`);
    expect([...new Set(requested.filter((url) => !isLocal(url, s.server.base)))]).to.deep.equal([]);
  });
});
