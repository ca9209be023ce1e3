import type { ChildNode, Document } from 'domhandler';
import { parseMetered } from '../extract/metered-parse.js';
import { htmlToPlainText } from './plain-text.js';
import { BLOCK_ELEMENTS as BLOCKS, CELL_ELEMENTS, TEXTLESS_ELEMENTS as SKIPPED } from './text-elements.js';
import { MAX_DOM_DEPTH, TooDeepError } from '../dom-depth.js';


/** An element whose children are being read, and what its end adds to the text. */
interface Frame {
  nodes: ChildNode[];
  next: number;
  pre: boolean;
  after: 'block' | 'cell' | undefined;
}


function parseBounded(html: string): Document | null {
  try {
    return parseMetered(
      html,
      (depth) => {
        if (depth > MAX_DOM_DEPTH) throw new TooDeepError();
      },
      { decodeEntities: true },
    );
  } catch (err) {
    if (err instanceof TooDeepError) return null;
    throw err;
  }
}

/**
 * The readable text of an HTML document: scripts, styles and other invisible parts dropped,
 * each block element on its own line, runs of white space folded as a browser folds them. A page
 * nesting elements deeper than a browser does (MAX_DOM_DEPTH), whose parse would take time in the
 * square of its depth, is read in one linear scan instead (the Markdown's fallback, plain-text.ts).
 */
export function pageText(html: string): string {
  const doc = parseBounded(html);
  return doc === null ? htmlToPlainText(html) : documentText(doc);
}

/** The readable text of a page parsed already (no deeper than MAX_DOM_DEPTH: see pageText). */
export function documentText(doc: Document): string {
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
      stack.push({ nodes: node.children, next: 0, pre: frame.pre || name === 'pre', after: block ? 'block' : CELL_ELEMENTS.has(name) ? 'cell' : undefined });
    } else if (node.type === 'root' || node.type === 'cdata') {
      stack.push({ nodes: node.children, next: 0, pre: frame.pre, after: undefined });
    }
  }
  breakLine();
  return lines.join('\n');
}
