// The tree turndown converts: the parsed page as plain objects with the members of the DOM that
// turndown, its GFM plugin and this folder read, and nothing else. A browser DOM implementation
// (domino, which turndown bundles for strings) spends most of a conversion in its own accessors
// and live lists; these are fields and cached arrays. (No outerHTML: the only rule that writes it,
// the GFM plugin's table kept as HTML, is never reached: see adjustTableRule in turndown-service.ts.)

export abstract class DomNode {
  abstract readonly nodeType: 1 | 3;
  abstract readonly nodeName: string;
  parentNode: ElementNode | null = null;
  previousSibling: DomNode | null = null;
  nextSibling: DomNode | null = null;
  // turndown writes these on every node it converts: declared, so that all nodes keep one shape.
  isBlock = false;
  isCode = false;
  isBlank = false;
  flankingWhitespace: unknown = null;

  abstract get textContent(): string;

  /** Every parent is an element: the page's root is one too (named ROOT_NAME). */
  get parentElement(): ElementNode | null {
    return this.parentNode;
  }

  get nextElementSibling(): ElementNode | null {
    let at = this.nextSibling;
    while (at !== null && !(at instanceof ElementNode)) at = at.nextSibling;
    return at;
  }

  /** Whether the node still hangs from the page's root, rather than from a removed subtree. */
  get isConnected(): boolean {
    let at: DomNode = this;
    while (at.parentNode !== null) at = at.parentNode;
    return at.nodeName === ROOT_NAME;
  }

  remove(): void {
    this.parentNode?.removeChild(this);
  }

  /** Puts `node` right after this one. */
  after(node: DomNode): void {
    this.parentNode?.insertBefore(node, this.nextSibling);
  }

  replaceWith(node: DomNode): void {
    const parent = this.parentNode;
    if (parent === null || node === this) return;
    parent.insertBefore(node, this);
    parent.removeChild(this);
  }
}

/** The node name of the element every parsed page hangs from (a document, in a browser's DOM). */
export const ROOT_NAME = '#document';

export class TextNode extends DomNode {
  readonly nodeType = 3;
  readonly nodeName = '#text';

  private value: string;

  constructor(data: string) {
    super();
    this.value = data;
  }

  get data(): string {
    return this.value;
  }

  /** turndown rewrites it while it collapses white space. */
  set data(text: string) {
    this.value = text;
    this.parentNode?.forgetText();
  }

  get nodeValue(): string {
    return this.value;
  }

  get textContent(): string {
    return this.value;
  }
}

/**
 * An element. Children are a linked list (removing thousands of empty elements from one parent
 * stays linear); the arrays turndown and its plugin index into are built on first read and kept
 * until the children change, as a browser's live lists are.
 */
export class ElementNode extends DomNode {
  readonly nodeType = 1;
  readonly nodeName: string;
  firstChild: DomNode | null = null;
  lastChild: DomNode | null = null;
  /** As the parser gives them: an own property per attribute. */
  private readonly attributes: Record<string, string>;
  private childArray: DomNode[] | null = null;
  private elementArray: ElementNode[] | null = null;
  /** textContent, once read, until the subtree changes; known for every element below when known. */
  private text: string | null = null;

  /** `localName` lower-case, as the parser gives it; ROOT_NAME for the page's root. */
  constructor(
    readonly localName: string,
    attributes: Record<string, string> = {},
  ) {
    super();
    this.nodeName = localName === ROOT_NAME ? ROOT_NAME : localName.toUpperCase();
    this.attributes = attributes;
  }

  getAttribute(name: string): string | null {
    return Object.hasOwn(this.attributes, name) ? this.attributes[name] : null;
  }

  setAttribute(name: string, value: string): void {
    this.attributes[name] = value;
  }

  removeAttribute(name: string): void {
    Reflect.deleteProperty(this.attributes, name);
  }

  hasAttribute(name: string): boolean {
    return Object.hasOwn(this.attributes, name);
  }

  /** The GFM plugin's rule for highlighted code reads it. */
  get className(): string {
    return this.getAttribute('class') ?? '';
  }

  /** An <input>'s type as the DOM reflects it (the GFM plugin's task-list rule reads it); '' for other elements. */
  get type(): string {
    return this.localName === 'input' ? (this.getAttribute('type') ?? '').trim().toLowerCase() : '';
  }

  get checked(): boolean {
    return this.hasAttribute('checked');
  }

  /** The one declaration the GFM plugin reads from `style`: a cell's alignment. */
  get style(): { textAlign: string } {
    const align = /(?:^|;)\s*text-align\s*:\s*([a-z]+)/i.exec(this.getAttribute('style') ?? '');
    return { textAlign: align?.[1] ?? '' };
  }

  get childNodes(): readonly DomNode[] {
    if (this.childArray === null) {
      this.childArray = [];
      for (let at = this.firstChild; at !== null; at = at.nextSibling) this.childArray.push(at);
    }
    return this.childArray;
  }

  get children(): readonly ElementNode[] {
    this.elementArray ??= this.childNodes.filter((node): node is ElementNode => node instanceof ElementNode);
    return this.elementArray;
  }

  get firstElementChild(): ElementNode | null {
    const first = this.firstChild;
    return first === null || first instanceof ElementNode ? first : first.nextElementSibling;
  }

  get lastElementChild(): ElementNode | null {
    let at = this.lastChild;
    while (at !== null && !(at instanceof ElementNode)) at = at.previousSibling;
    return at;
  }

  /**
   * The text of every descendant text node, in document order. turndown reads it for every element
   * it converts (to find blank ones) and again for inline ones: built afresh each time, the reads
   * and the regular expressions over them took 53 of a 281 ms conversion. One walk of the subtree,
   * without recursion, keeps the text of every element in it, each made of its children's; the
   * conversion takes 0.94 of the time (what is left is mostly flattening the strings).
   */
  get textContent(): string {
    if (this.text !== null) return this.text;
    const outer: string[] = [];
    let element: ElementNode = this;
    let text = '';
    let child = this.firstChild;
    for (;;) {
      if (child === null) {
        element.text = text;
        if (element === this) return text;
        child = element.nextSibling;
        element = element.parentNode as ElementNode;
        text = (outer.pop() as string) + text;
      } else if (child instanceof ElementNode && child.text === null) {
        outer.push(text);
        text = '';
        element = child;
        child = child.firstChild;
      } else {
        text += child.textContent;
        child = child.nextSibling;
      }
    }
  }

  set textContent(text: string) {
    while (this.firstChild !== null) this.removeChild(this.firstChild);
    if (text !== '') this.appendChild(new TextNode(text));
  }

  /** The descendants named `name` in any case (turndown asks for 'IMG'), in document order. */
  getElementsByTagName(name: string): ElementNode[] {
    const localName = name.toLowerCase();
    const found: ElementNode[] = [];
    for (let at = this.firstChild; at !== null; at = nextInside(at, this)) {
      if (at instanceof ElementNode && at.localName === localName) found.push(at);
    }
    return found;
  }

  appendChild<T extends DomNode>(node: T): T {
    return this.insertBefore(node, null);
  }

  /** Inserts `node` (taken from where it was) before `reference`, or last when it is null. */
  insertBefore<T extends DomNode>(node: T, reference: DomNode | null): T {
    // Before itself, a node stays where it is (taking it out first would lose its place).
    if (node === reference) return node;
    node.parentNode?.removeChild(node);
    const previous = reference === null ? this.lastChild : reference.previousSibling;
    node.parentNode = this;
    node.previousSibling = previous;
    node.nextSibling = reference;
    if (previous === null) this.firstChild = node;
    else previous.nextSibling = node;
    if (reference === null) this.lastChild = node;
    else reference.previousSibling = node;
    this.childrenChanged();
    return node;
  }

  removeChild<T extends DomNode>(node: T): T {
    if (node.parentNode !== this) return node;
    if (node.previousSibling === null) this.firstChild = node.nextSibling;
    else node.previousSibling.nextSibling = node.nextSibling;
    if (node.nextSibling === null) this.lastChild = node.previousSibling;
    else node.nextSibling.previousSibling = node.previousSibling;
    node.parentNode = node.previousSibling = node.nextSibling = null;
    this.childrenChanged();
    return node;
  }

  /** For this tree's nodes only: the text below this element changed. */
  forgetText(): void {
    // An element whose text is not known has no ancestor that knows it: the climb stops there.
    for (let at: ElementNode | null = this; at !== null && at.text !== null; at = at.parentNode) at.text = null;
  }

  private childrenChanged(): void {
    this.childArray = null;
    this.elementArray = null;
    this.forgetText();
  }
}

/** The node after `node` in document order, not leaving `root`'s subtree; null at its end. */
export function nextInside(node: DomNode, root: DomNode): DomNode | null {
  if (node instanceof ElementNode && node.firstChild !== null) return node.firstChild;
  return nextOutside(node, root);
}

/** The node after `node`'s subtree in document order, within `root`'s; null at its end. */
export function nextOutside(node: DomNode, root: DomNode): DomNode | null {
  for (let at: DomNode | null = node; at !== null && at !== root; at = at.parentNode) {
    if (at.nextSibling !== null) return at.nextSibling;
  }
  return null;
}
