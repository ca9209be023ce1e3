import { ExtractRulesError, type ExtractRulesIssue } from '../extract/extract-rules-error.js';
import { extract } from '../extract/extract.js';
import { parseExtractRules, type ExtractRules } from '../extract/extract-rules.js';
import { htmlToMarkdown, type HtmlToMarkdownInput } from '../markdown/html-to-markdown.js';
import type { Document } from 'domhandler';
import { MAX_DOM_DEPTH } from '../dom-depth.js';
import { pageDocument } from '../page-document/page-document.js';
import { documentText, pageText } from '../text/page-text.js';
import { htmlToPlainText } from '../text/plain-text.js';
import { sitemapXml } from '../sitemap/sitemap-xml.js';
import { keptByPatterns } from '../url-patterns/url-patterns.js';

/**
 * An extraction's result as JSON text, or why the rules could not be applied: a worker's reply
 * carries data, not error classes. Text, because a result of thousands of objects would otherwise
 * be rebuilt (structured clone) and serialized again on the event loop.
 */
export type ExtractOutcome = { ok: true; json: string } | { ok: false; issues: ExtractRulesIssue[] };

function extractTask(input: { html: string; rules: ExtractRules }): ExtractOutcome {
  try {
    return { ok: true, json: JSON.stringify(extract(input.html, input.rules)) };
  } catch (err) {
    if (err instanceof ExtractRulesError) return { ok: false, issues: err.issues };
    throw err;
  }
}

/** The page's text and what the rules take from it, from one parse. */
export interface TextAndExtraction {
  text: string;
  extracted: ExtractOutcome;
}

/**
 * /v2/extended with rules: the page's text and its extraction from one parse, metered by the
 * extraction. A page nested deeper than a browser nests is read for text in one linear scan.
 */
function textAndExtractTask(input: { html: string; rules: ExtractRules }): TextAndExtraction {
  let text = '';
  const readText = (doc: Document, deepest: number) => {
    text = deepest > MAX_DOM_DEPTH ? htmlToPlainText(input.html) : documentText(doc);
  };
  try {
    const json = JSON.stringify(extract(input.html, input.rules, {}, readText));
    return { text, extracted: { ok: true, json } };
  } catch (err) {
    if (err instanceof ExtractRulesError) return { text, extracted: { ok: false, issues: err.issues } };
    throw err;
  }
}

/** The caller's extract_rules, parsed and their selectors compiled, or why they cannot be. */
export type RulesOutcome = { ok: true; rules: ExtractRules } | { ok: false; issues: ExtractRulesIssue[] };

/**
 * Compiling a hundred selectors of 600 characters takes 30 to 90 ms; the rules are the caller's,
 * and are checked before the key is: off the event loop too.
 */
function rulesTask(raw: string): RulesOutcome {
  try {
    return { ok: true, rules: parseExtractRules(raw) };
  } catch (err) {
    if (err instanceof ExtractRulesError) return { ok: false, issues: err.issues };
    throw err;
  }
}

/**
 * The HTML work an answer may need, by name: pure functions of their input, run in a worker
 * thread (a streaming parser's may be asynchronous: the thread runs one task at a time anyway).
 */
export const HTML_TASKS = {
  text: (html: string): string => pageText(html),
  markdown: (input: HtmlToMarkdownInput): string => htmlToMarkdown(input),
  extract: extractTask,
  textAndExtract: textAndExtractTask,
  rules: rulesTask,
  pageDocument,
  urlPatterns: keptByPatterns,
  sitemapXml,
};

export type HtmlTaskName = keyof typeof HTML_TASKS;
export type HtmlTaskInput<K extends HtmlTaskName> = Parameters<(typeof HTML_TASKS)[K]>[0];
export type HtmlTaskOutput<K extends HtmlTaskName> = Awaited<ReturnType<(typeof HTML_TASKS)[K]>>;

export interface HtmlTaskMessage {
  id: number;
  name: HtmlTaskName;
  input: unknown;
}

/** A task's output or error; `ready` once the thread has loaded and listens (its tasks' time starts then). */
export type HtmlTaskReply = { id: number; output: unknown } | { id: number; error: string } | { ready: true };
