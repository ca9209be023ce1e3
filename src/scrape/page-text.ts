import { parseDocument } from 'htmlparser2';
import type { ChildNode } from 'domhandler';

/** Elements whose content is never visible text. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'canvas', 'iframe', 'object', 'select']);

/** Elements that start and end a line of their own. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html',
  'legend', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot',
  'thead', 'tr', 'ul', 'caption', 'option',
]);

/**
 * The readable text of an HTML document: scripts, styles and other invisible parts dropped,
 * each block element on its own line, runs of white space folded as a browser folds them.
 */
export function pageText(html: string): string {
  const doc = parseDocument(html, { decodeEntities: true });
  const lines: string[] = [];
  let line = '';
  const breakLine = () => {
    const trimmed = line.replace(/[ \t\r\n\f]+/g, ' ').trim();
    if (trimmed) lines.push(trimmed);
    line = '';
  };
  const walk = (nodes: ChildNode[], pre: boolean) => {
    for (const node of nodes) {
      if (node.type === 'text') {
        if (pre) {
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
        walk(node.children, pre || name === 'pre');
        if (block) breakLine();
        else if (name === 'td' || name === 'th') line += ' ';
      } else if (node.type === 'root' || node.type === 'cdata') {
        walk(node.children, pre);
      }
    }
  };
  walk(doc.children, false);
  breakLine();
  return lines.join('\n');
}
