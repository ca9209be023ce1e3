// The package ships `declare module 'domino'` (its old name), which does not type the
// '@mixmark-io/domino' specifier turndown depends on; only what this folder uses is declared.
declare module '@mixmark-io/domino' {
  /** domino's HTML tree builder; its stack of open elements is what deep nesting makes slow. */
  export interface HtmlParserClass {
    ElementStack: { prototype: { push(this: { elements: unknown[] }, element: unknown): void } };
  }
  export function createDocument(html?: string, force?: boolean): Document;
  export function createDOMImplementation(): DOMImplementation & { mozHTMLParser: HtmlParserClass };
}
