// extract_rules benchmark: a page of 1,000 list items extracted with a nested list rule, against
// htmlparser2's parse of the same page alone (the floor: extract parses once, then selects), both
// measured in this run. Budget: 1,000 list items extract in under 50 ms. `npm run bench:extract`.
import { parseDocument } from 'htmlparser2';
import os from 'node:os';
import { extract } from '../../src/content/extract/extract.js';
import { parseExtractRules } from '../../src/content/extract/extract-rules.js';
import { HtmlWorkers } from '../../src/content/html-work/html-workers.js';

const ITEMS = 1_000;
const BUDGET_MS = 50;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 31);
const RULES = '{"items": {"selector": "li.item", "type": "list", "output": {"name": ".name", "link": "a@href", "price": {"selector": ".price", "clean": true}}}}';

function page(): string {
  const items = Array.from(
    { length: ITEMS },
    (_, i) =>
      `<li class="item" data-id="${i}"><div class="card"><h3 class="name">Product ${i} &amp; friends</h3>` +
      `<a href="/products/${i}?ref=list" title="Product ${i}">details</a>` +
      `<p class="desc">A short description of product ${i}, with <em>some</em> markup.</p>` +
      `<span class="price">\n  $ ${(i * 1.37).toFixed(2)}\n</span></div></li>`,
  );
  return `<!DOCTYPE html><html><head><title>Catalogue</title></head><body><nav><a href="/">home</a></nav><ul class="items">${items.join('\n')}</ul><footer>end</footer></body></html>`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Times each piece of work RUNS times after WARMUP, alternating between them so that both see the same load on the machine. */
function timeEach(...works: Array<() => unknown>): number[][] {
  for (let i = 0; i < WARMUP; i++) for (const work of works) work();
  const runs = works.map((): number[] => []);
  for (let i = 0; i < RUNS; i++) {
    works.forEach((work, w) => {
      const started = performance.now();
      work();
      runs[w].push(performance.now() - started);
    });
  }
  return runs;
}

const html = page();
const rules = parseExtractRules(RULES);
const result = extract(html, rules) as { items: Array<{ name: string; link: string; price: string }> };
if (result.items.length !== ITEMS || result.items[ITEMS - 1].price !== `$ ${((ITEMS - 1) * 1.37).toFixed(2)}`) {
  throw new Error(`unexpected extraction: ${JSON.stringify(result.items.at(-1))}`);
}

const [parseRuns, extractRuns, rulesRuns] = timeEach(
  () => parseDocument(html),
  () => extract(html, rules),
  () => parseExtractRules(RULES),
);
const parseMs = median(parseRuns);
const extractMs = median(extractRuns);
const rulesMs = median(rulesRuns);

console.log(`page: ${ITEMS} list items, ${(html.length / 1024).toFixed(0)} KiB; ${WARMUP} warm-up runs, median of ${RUNS}, alternating`);
console.log(`machine: ${os.availableParallelism()} CPUs, load average ${os.loadavg()[0].toFixed(2)} (figures from a busy machine are high)`);
console.log(`extract (parse + rules)          ${extractMs.toFixed(2).padStart(8)} ms`);
console.log(`baseline: parseDocument alone    ${parseMs.toFixed(2).padStart(8)} ms`);
console.log(`ratio extract / parse            ${(extractMs / parseMs).toFixed(2).padStart(8)} x`);
console.log(`parseExtractRules (once a request)  ${rulesMs.toFixed(3).padStart(7)} ms`);
console.log(`budget: ${ITEMS.toLocaleString('en')} list items extract in under ${BUDGET_MS} ms: ${extractMs < BUDGET_MS ? 'met' : 'NOT met'}`);

/** The same extraction as the service runs it, in an HTML worker: what the thread's round trip adds, on this page and on a small one. */
async function timeInWorker(workers: HtmlWorkers, page: string): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const started = performance.now();
    await workers.run('extract', { html: page, rules }, { key: 'bench' });
    if (i >= WARMUP) runs.push(performance.now() - started);
  }
  return median(runs);
}

const smallPage = `<html><body><h1>Title</h1><ul class="items">${Array.from({ length: 5 }, (_, i) => `<li class="item"><h3 class="name">P${i}</h3><a href="/p/${i}">x</a><span class="price">$${i}</span></li>`).join('')}</ul></body></html>`;
const workers = new HtmlWorkers({ threads: 1 });
try {
  const [smallInline] = timeEach(() => extract(smallPage, rules)).map(median);
  const smallWorker = await timeInWorker(workers, smallPage);
  const pageWorker = await timeInWorker(workers, html);
  console.log(`in the service's HTML worker      ${pageWorker.toFixed(2).padStart(8)} ms (${(pageWorker - extractMs).toFixed(2)} ms more than inline)`);
  console.log(`small page (${smallPage.length} B): inline ${smallInline.toFixed(3)} ms, in the worker ${smallWorker.toFixed(3)} ms`);
} finally {
  await workers.close();
}
