import { decodeHTML } from 'entities';
import { BLOCK_ELEMENTS, CELL_ELEMENTS, TEXTLESS_ELEMENTS } from './text-elements.js';

// The fallback for pages that cannot be converted as a tree (nesting deeper than MAX_DOM_DEPTH, or a
// stack overflow all the same): their text, read in one linear scan of the source so that no
// shape of input can make it slow, with the character references decoded afterwards.

const SKIPPED_WITH_CONTENT = TEXTLESS_ELEMENTS;
/** Elements that start a new line of text (a <br> too); the others join their neighbours' text. */
const LINE_BREAKING: ReadonlySet<string> = new Set([...BLOCK_ELEMENTS, 'br']);
const CELLS = CELL_ELEMENTS;

// A tag with its attributes; quoted values may hold '>'. Each alternative starts on a different
// character, so matching is linear.
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)(?:[^>"']|"[^"]*"|'[^']*')*>?/y;

/** The text of `html`, one line per block, without markup. */
export function htmlToPlainText(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      parts.push(html.slice(at));
      break;
    }
    parts.push(html.slice(at, open));
    at = skipMarkup(html, lower, open, parts);
  }
  return tidyLines(decodeHTML(parts.join('').replace(/\r\n?/g, '\n')));
}

/** Consumes the markup starting at `open` (a '<'), returning where the text resumes. */
function skipMarkup(html: string, lower: string, open: number, parts: string[]): number {
  if (html.startsWith('<!--', open)) return endOf(lower, '-->', open + 4);
  if (html.startsWith('<!', open) || html.startsWith('<?', open)) return endOf(lower, '>', open + 2);
  TAG.lastIndex = open;
  const tag = TAG.exec(html);
  if (tag === null) {
    parts.push('<');
    return open + 1;
  }
  const [, closing, rawName] = tag;
  const name = rawName.toLowerCase();
  if (!closing && SKIPPED_WITH_CONTENT.has(name)) return endOf(lower, `</${name}`, TAG.lastIndex, '>');
  if (LINE_BREAKING.has(name)) parts.push('\n');
  else if (CELLS.has(name)) parts.push(' ');
  return TAG.lastIndex;
}

/** The index after `marker` (and then after `then`, if given) from `from`; the end if absent. */
function endOf(lower: string, marker: string, from: number, then?: string): number {
  const found = lower.indexOf(marker, from);
  if (found === -1) return lower.length;
  const after = found + marker.length;
  if (then === undefined) return after;
  const close = lower.indexOf(then, after);
  return close === -1 ? lower.length : close + then.length;
}

/** Collapses runs of spaces, trims each line and keeps at most one empty line between lines. */
function tidyLines(text: string): string {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[ \t\f\r]+/g, ' ').trim();
    if (line === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(line);
  }
  return lines.join('\n').trim();
}
