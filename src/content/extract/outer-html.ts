import { Element, Text, isTag, type AnyNode } from 'domhandler';
import { getOuterHTML } from 'domutils';
import type { WorkMeter } from './work-meter.js';

type SerializerOptions = NonNullable<Parameters<typeof getOuterHTML>[1]>;
type Mode = NonNullable<SerializerOptions['xmlMode']>;

/** dom-serializer's own lists: <svg> and <math> switch to foreign (XML-like) output; these switch back to HTML for their child elements. */
const FOREIGN = new Set(['svg', 'math']);
const INTEGRATION_POINTS = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);

/**
 * An element's outerHTML, as dom-serializer (domutils' getOuterHTML) writes it with UTF-8 output
 * (only &, <, >, " and no-break spaces escaped, as a browser does; its default would write every
 * non-ASCII character as a numeric reference).
 *
 * dom-serializer recurses once per level, so a page of 100,000 nested elements overflows the
 * stack, and in <svg> it renames the page's own elements (clippath → clipPath) as it goes, which
 * later rules' selectors would then miss. So it is given one node at a time: a childless copy of
 * each element, whose output yields the element's opening and closing tags, and the text, comment
 * and other leaves as they are. The walk between them follows the nodes' links and decides the
 * foreign mode of each element as dom-serializer does.
 */
export function outerHtml(root: Element, meter?: WorkMeter): string {
  let html = '';
  /** The elements entered and not yet closed: their closing tags, and the mode their siblings are in. */
  const entered: Array<{ close: string; inherited: Mode }> = [];
  let inherited: Mode = false;
  let node: AnyNode = root;
  for (;;) {
    meter?.spend();
    if (isTag(node)) {
      const mode = elementMode(node, inherited);
      if (node.children.length > 0) {
        const [open, close] = tags(node, mode);
        html += open;
        entered.push({ close, inherited });
        inherited = mode;
        node = node.children[0];
        continue;
      }
      html += render(shell(node, []), mode);
    } else {
      html += render(node, inherited);
    }
    // Leaving the subtrees that end here: one closing tag for each level climbed.
    let current: AnyNode = node;
    while (current !== root && !current.next) {
      current = current.parent as AnyNode;
      const done = entered.pop();
      html += done?.close ?? '';
      inherited = done?.inherited ?? false;
    }
    if (current === root || !current.next) return html;
    node = current.next;
  }
}

function render(node: AnyNode, mode: Mode): string {
  return getOuterHTML(node, { xmlMode: mode, encodeEntities: 'utf8' });
}

/** The element's opening and closing tags: its copy given one empty text child, so that neither side is self-closed. */
function tags(element: Element, mode: Mode): [string, string] {
  const copy = shell(element, [new Text('')]);
  const html = render(copy, mode);
  // In foreign mode dom-serializer restores the name's case (on the copy, which is why it is one).
  const close = `</${copy.name}>`;
  return html.endsWith(close) ? [html.slice(0, -close.length), close] : [html, ''];
}

/** A childless, parentless copy: dom-serializer then neither recurses nor second-guesses the mode it is given. */
function shell(element: Element, children: Text[]): Element {
  return new Element(element.name, element.attribs, children, element.type);
}

/** The mode dom-serializer renders an element (and its children) in, given its parent's. */
function elementMode(element: Element, inherited: Mode): Mode {
  let mode = inherited;
  const parent = element.parent;
  if (mode === 'foreign' && parent && isTag(parent) && INTEGRATION_POINTS.has(parent.name.toLowerCase())) mode = false;
  if (!mode && FOREIGN.has(element.name)) mode = 'foreign';
  return mode;
}
