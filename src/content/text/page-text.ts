import type { ChildNode, Document } from 'domhandler';
import { parseMetered } from '../extract/metered-parse.js';
import { htmlToPlainText } from '../markdown/plain-text.js';
import { MAX_DEPTH } from '../markdown/parse-html.js';

/** Elements whose content is never visible text. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'canvas', 'iframe', 'object', 'select']);

/** Elements that start and end a line of their own. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html',
  'legend', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot',
  'thead', 'tr', 'ul', 'caption', 'option',
]);

/** An element whose children are being read, and what its end adds to the text. */
interface Frame {
  nodes: ChildNode[];
  next: number;
  pre: boolean;
  after: 'block' | 'cell' | undefined;
}

/** Thrown from the parse to stop it once elements nest deeper than MAX_DEPTH. */
class TooDeep extends Error {}

function parseBounded(html: string): Document | null {
  try {
    return parseMetered(
      html,
      (depth) => {
        if (depth > MAX_DEPTH) throw new TooDeep();
      },
      { decodeEntities: true },
    );
  } catch (err) {
    if (err instanceof TooDeep) return null;
    throw err;
  }
}

/**
 * The readable text of an HTML document: scripts, styles and other invisible parts dropped,
 * each block element on its own line, runs of white space folded as a browser folds them. A page
 * nesting elements deeper than a browser does (MAX_DEPTH), whose parse would take time in the
 * square of its depth, is read in one linear scan instead (the Markdown's fallback, plain-text.ts).
 */
export function pageText(html: string): string {
  const doc = parseBounded(html);
  if (doc === null) return htmlToPlainText(html);
  const lines: string[] = [];
  let line = '';
  const breakLine = () => {
    const trimmed = line.replace(/[ \t\r\n\f]+/g, ' ').trim();
    if (trimmed) lines.push(trimmed);
    line = '';
  };
  // A stack of its own rather than recursion: a hostile page nests tens of thousands of elements
  // deep, past what the call stack holds.
  const stack: Frame[] = [{ nodes: doc.children, next: 0, pre: false, after: undefined }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next >= frame.nodes.length) {
      stack.pop();
      if (frame.after === 'block') breakLine();
      else if (frame.after === 'cell') line += ' ';
      continue;
    }
    const node = frame.nodes[frame.next++];
    if (node.type === 'text') {
      if (frame.pre) {
        const parts = node.data.split('\n');
        parts.forEach((part, i) => {
          if (i > 0) breakLine();
          line += part;
        });
      } else {
        line += node.data;
      }
    } else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const name = node.name.toLowerCase();
      if (SKIPPED.has(name)) continue;
      if (name === 'br') {
        breakLine();
        continue;
      }
      const block = BLOCKS.has(name);
      if (block) breakLine();
      stack.push({ nodes: node.children, next: 0, pre: frame.pre || name === 'pre', after: block ? 'block' : name === 'td' || name === 'th' ? 'cell' : undefined });
    } else if (node.type === 'root' || node.type === 'cdata') {
      stack.push({ nodes: node.children, next: 0, pre: frame.pre, after: undefined });
    }
  }
  breakLine();
  return lines.join('\n');
}
