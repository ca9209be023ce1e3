// HTML → markdown benchmark: a realistic 1 MB page (and a 10 MB one) converted by htmlToMarkdown,
// against the parse of the same page alone, measured alternately in one run. The budget:
// a 1 MB page converts in under 200 ms on this machine. Not a timed test: `npm run bench:markdown`.
import os from 'node:os';
import { htmlToMarkdown } from '../../src/markdown/html-to-markdown.js';
import { parseHtml } from '../../src/markdown/parse-html.js';
import { realisticPage } from '../../test/helpers/realistic-page.js';
import { percentile } from './measure.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARM_UP = 5;
const BUDGET_MS = 200;
const BASE_URL = 'https://docs.example.com/guide/page.html';

function time(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

interface Figures {
  parse: number;
  all: number;
  main: number;
}

/** Medians over `runs` rounds, each timing the parse and both conversions of the same page. */
function measure(html: string, runs: number, warmUp: number): Figures {
  const convert = (onlyMainContent: boolean) => () => htmlToMarkdown({ html, baseUrl: BASE_URL, onlyMainContent });
  for (let i = 0; i < warmUp; i++) {
    parseHtml(html);
    convert(false)();
    convert(true)();
  }
  const parse: number[] = [];
  const all: number[] = [];
  const main: number[] = [];
  for (let i = 0; i < runs; i++) {
    parse.push(time(() => parseHtml(html)));
    all.push(time(convert(false)));
    main.push(time(convert(true)));
  }
  return { parse: percentile(parse, 50), all: percentile(all, 50), main: percentile(main, 50) };
}

const mb = (html: string) => (html.length / (1024 * 1024)).toFixed(2);
const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;

const page = realisticPage(1024 * 1024);
const output = htmlToMarkdown({ html: page, baseUrl: BASE_URL, onlyMainContent: false });
console.log(
  `markdown bench: ${mb(page)} MB page (headings, paragraphs with links, nested lists, tables, code blocks, nav, sidebar, footer) → ` +
    `${mb(output)} MB of markdown; median of ${RUNS} runs after ${WARM_UP} warm-up; ` +
    `${os.availableParallelism()} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
);
const one = measure(page, RUNS, WARM_UP);
console.log(`  parse alone (baseline)               ${ms(one.parse)}`);
console.log(`  htmlToMarkdown, whole page           ${ms(one.all)}   ${(one.all / one.parse).toFixed(1)}× the parse`);
console.log(`  htmlToMarkdown, only_main_content    ${ms(one.main)}   ${(one.main / one.parse).toFixed(1)}× the parse`);
const met = one.all < BUDGET_MS;
console.log(`  budget "a 1 MB page converts in under ${BUDGET_MS} ms on this machine": ${met ? 'MET' : 'MISSED'} (${one.all.toFixed(0)} ms)`);

const huge = realisticPage(10 * 1024 * 1024);
const ten = measure(huge, 3, 1);
console.log(`  ${mb(huge)} MB page, median of 3: parse ${ms(ten.parse)}, whole page ${ms(ten.all)}, only_main_content ${ms(ten.main)}`);
