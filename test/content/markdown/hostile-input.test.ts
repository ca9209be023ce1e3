import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { htmlToMarkdown, type HtmlToMarkdownInput } from '../../../src/content/markdown/html-to-markdown.js';
import { ORDERED_LIST_RUN } from '../../../src/content/markdown/ordered-lists.js';
import { MAX_ROW_CELLS } from '../../../src/content/markdown/tables.js';
import { MAX_DOM_DEPTH as MAX_DEPTH } from '../../../src/content/dom-depth.js';
import { ELEMENT_WORK, MAX_WORK } from '../../../src/content/markdown/prepare-document.js';
import { realisticPage } from '../../helpers/realistic-page.js';

function timed(html: string): { markdown: string; ms: number } {
  const started = performance.now();
  const markdown = htmlToMarkdown({ html, baseUrl: 'https://example.com/', onlyMainContent: false });
  return { markdown, ms: performance.now() - started };
}

/** Runs htmlToMarkdown in a worker thread with the given stack, as the service's HTML workers do. */
function inWorker(input: HtmlToMarkdownInput, stackSizeMb: number): Promise<string> {
  const entry = JSON.stringify(new URL('../../../src/content/markdown/html-to-markdown.ts', import.meta.url).href);
  const code =
    `const { parentPort, workerData } = await import('node:worker_threads');` +
    `(await import('tsx/esm/api')).register();` +
    `const { htmlToMarkdown } = await import(${entry});` +
    `parentPort.postMessage(htmlToMarkdown(workerData));`;
  const worker = new Worker(code, { eval: true, workerData: input, resourceLimits: { stackSizeMb } });
  return new Promise<string>((resolve, reject) => {
    worker.once('message', (markdown: string) => resolve(markdown));
    worker.once('error', reject);
  }).finally(() => worker.terminate());
}

// Bounds with room for a loaded machine; each shape took minutes or hours before its guard.
const SECONDS = 1000;

describe('htmlToMarkdown: hostile nesting', () => {
  it('answers 100,000 nested <div>s with their text, quickly (the whole parse: 3 s; domino took 3.5 minutes)', () => {
    const { markdown, ms } = timed(`${'<div>'.repeat(100_000)}deep <b>text</b>${'</div>'.repeat(100_000)}`);
    expect(markdown).to.equal('deep text');
    expect(ms).to.be.below(5 * SECONDS);
  });

  it('answers 100,000 nested lists with their text, quickly', () => {
    const { markdown, ms } = timed(`<p>intro</p>${'<ul><li>level'.repeat(100_000)}`);
    const lines = markdown.split('\n').filter((line) => line !== '');
    expect(lines).to.have.length(100_001);
    expect(lines.slice(0, 3)).to.deep.equal(['intro', 'level', 'level']);
    expect(ms).to.be.below(5 * SECONDS);
  });

  it('bounds the shapes that make a parser scan its stack without a <div> chain', () => {
    const shapes = {
      'nesting inside <template>': `<template>${'<div>'.repeat(50_000)}</template><p>after</p>`,
      'nesting fostered out of a <table>': `<table>${'<div>'.repeat(50_000)}`,
      'formatting elements reopened after each block': Array.from({ length: 20_000 }, (_, i) => `<div><b id="b${i}"></div>`).join('') + 'x',
      'open spans closed by unknown end tags': `${'<span>'.repeat(50_000)}x${'</x>'.repeat(50_000)}`,
    };
    for (const [shape, html] of Object.entries(shapes)) {
      const { ms } = timed(html);
      expect(ms, shape).to.be.below(5 * SECONDS);
    }
  });

  it('bounds nestings that markdown indents or turndown re-reads: lists, quotes, code blocks', () => {
    const chains = (open: string, close: string, levels: number) => `${open.repeat(levels)}x${close.repeat(levels)}`.repeat(75);
    const shapes = {
      'nested lists (18 s before)': chains('<ul><li>x', '</li></ul>', 250),
      'nested quotes': chains('<blockquote>x', '</blockquote>', 500),
      'code blocks in code blocks (25 s before)': chains('<pre>', '</pre>', 500),
    };
    for (const [shape, html] of Object.entries(shapes)) {
      const { ms } = timed(html);
      expect(ms, shape).to.be.below(5 * SECONDS);
    }
  });

  it(`converts pages nested up to MAX_DEPTH (${MAX_DEPTH}) as markdown`, () => {
    const levels = MAX_DEPTH - 10;
    expect(timed(`${'<div>'.repeat(levels)}deep <b>text</b>${'</div>'.repeat(levels)}`).markdown).to.equal('deep **text**');
  });

  it('answers with the text when turndown runs out of stack in a thread with a small one', async () => {
    const input = { html: `${'<div>'.repeat(480)}deep <b>text</b>${'</div>'.repeat(480)}`, baseUrl: 'https://example.com/', onlyMainContent: false };
    expect(await inWorker(input, 4)).to.equal('deep **text**');
    expect(await inWorker(input, 0.375)).to.equal('deep text');
  });

  it('answers with the text when elements are so many that turndown would take long #slow', () => {
    const { markdown, ms } = timed(`<p>${'<b>w</b> '.repeat(MAX_WORK / ELEMENT_WORK + 1000)}</p>`);
    expect(markdown.startsWith('w w w ')).to.equal(true);
    expect(markdown).to.not.include('**');
    expect(ms).to.be.below(12 * SECONDS);
  });

  it('answers with the text when deep nestings are so many that turndown would take long', () => {
    const chain = `${'<div><span>'.repeat(240)}<b>x</b>${'</span></div>'.repeat(240)}`;
    const { markdown, ms } = timed(chain.repeat(250));
    expect(markdown.split('\n').filter((line) => line !== '')).to.deep.equal(Array(250).fill('x'));
    expect(ms).to.be.below(8 * SECONDS);
  });
});

describe('htmlToMarkdown: long and large pages', () => {
  it('numbers a long ordered list without the quadratic search, every number in place', () => {
    // 100,007 items: about 2 s, against 19 s when the list is left whole.
    const items = 200 * ORDERED_LIST_RUN + 7;
    const { markdown, ms } = timed(`<ol start="10">${'<li>item</li>'.repeat(items)}</ol>`);
    const numbers = markdown.split('\n').filter((line) => line !== '').map((line) => Number(/^(\d+)\. {2}item$/.exec(line)?.[1]));
    expect(numbers).to.deep.equal(Array.from({ length: items }, (_, i) => 10 + i));
    expect(ms).to.be.below(8 * SECONDS);
  });

  it('converts a table of 10,000 rows in linear time', () => {
    const { markdown, ms } = timed(`<table><tr><th>n</th><th>sq</th></tr>${Array.from({ length: 10_000 }, (_, i) => `<tr><td>${i}</td><td>${i * i}</td></tr>`).join('')}</table>`);
    const lines = markdown.split('\n');
    expect(lines).to.have.length(10_002);
    expect(lines[10_001]).to.equal('| 9999 | 99980001 |');
    expect(ms).to.be.below(5 * SECONDS);
  });

  // The figure is in the title; the bound is loose because the tests share the machine, and
  // still far below what any quadratic step would cost at this size.
  it('converts a realistic 10 MB page within a few seconds #slow', function () {
    const html = realisticPage(10 * 1024 * 1024);
    const { markdown, ms } = timed(html);
    this.test!.title += ` (${(ms / 1000).toFixed(1)} s here)`;
    expect(markdown.length).to.be.above(7 * 1024 * 1024);
    expect(markdown).to.include('| Name | Value | Notes |');
    expect(ms).to.be.below(20 * SECONDS);
  });
});

describe('htmlToMarkdown: tables too wide to be tables', () => {
  it(`writes a table with a row of more than MAX_ROW_CELLS (${MAX_ROW_CELLS}) cells as its text, quickly`, () => {
    // 300,000 cells in one row: more than the 15 s a conversion may take when numbered one by one.
    const { markdown, ms } = timed(`<p>before</p><table><tr>${'<td>x</td>'.repeat(300_000)}</tr></table><p>after</p>`);
    const lines = markdown.split('\n').filter((line) => line !== '');
    expect(lines[0]).to.equal('before');
    expect(lines[1].split(' ')).to.have.length(300_000);
    expect(lines[2]).to.equal('after');
    expect(ms).to.be.below(5 * SECONDS);
    const wide = `<table><tr>${'<th>h</th>'.repeat(MAX_ROW_CELLS)}</tr></table>`;
    expect(timed(wide).markdown.startsWith('| h   | h   |')).to.equal(true);
  });
});
