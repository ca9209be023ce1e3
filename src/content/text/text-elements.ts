/**
 * What HTML's text is made of, in one place for every reading of it (the page's text, the
 * Markdown's fallback): the elements whose content is never visible text, and those that stand
 * on lines of their own.
 */

/** Elements whose whole content is never read as text: code, styling, templates, embedded and replaced content, metadata. */
export const TEXTLESS_ELEMENTS: ReadonlySet<string> = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'title', 'svg', 'canvas', 'iframe', 'object',
  'select', 'textarea', 'xmp', 'noembed', 'noframes',
]);

/** Elements that start and end a line of their own. */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup',
  'hr', 'html', 'legend', 'li', 'main', 'nav', 'ol', 'option', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'tfoot', 'thead', 'tr', 'ul',
]);

/** Table cells are separated, not broken: a row stays one line. */
export const CELL_ELEMENTS: ReadonlySet<string> = new Set(['td', 'th']);
