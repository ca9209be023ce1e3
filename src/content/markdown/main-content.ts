// What `only_main_content` keeps and drops; the constants below are the lists themselves.
//
// Keeps the content of one element:
// - the page's <main> (the first one without the `hidden` attribute), else
// - its element with role="main", else
// - its <article> when there is exactly one not nested in another (comments are often nested
//   articles; several top-level articles make a listing page, kept whole), else
// - the whole <body>.
// A chosen element with no text and no image (a shell that scripts fill) falls back to <body>.
//
// Drops, inside what it keeps (whatever the mode, scripts, styles, embeds and form controls go too):
// - <nav> and <dialog>, wherever they are;
// - <header> and <footer>, unless inside an <article> or <main> (there they hold the title, the
//   byline or the notes of the text);
// - <aside>, unless inside an <article> (there it is a pull quote or a note of the text);
// - role="navigation", "banner", "contentinfo", "search", "menubar", "dialog", "alertdialog"
//   wherever they are, and role="complementary" as <aside>;
// - containers (div, section, aside, form, ul, ol, li, dl, table, figure, header, footer, and
//   <ins>, where ad networks put their slots) whose class, id or aria-label contains cookie,
//   consent, gdpr, advert, sponsor, promo, newsletter, popup, modal, breadcrumb, sidebar, or
//   the ad networks' adsbygoogle, taboola, outbrain, or has the word ad or ads ("ad-slot",
//   "top_ads"; not "header", "load" or "add-to-cart").
//   A name can mislead (a wrapper called "has-sidebar", a recipe called "cookie-dough"), so a
//   container matched by its name is kept when it encloses a <main>, an <article> or
//   role="main", or holds more than half of the kept text.
// Not dropped: a class or id "banner": hero and page banners often carry the page's title (the
// site header, role="banner", is dropped). Inline elements are never dropped for their class.

import { ElementNode, nextInside } from './dom/nodes.js';
import type { ParsedPage } from './parse-html.js';

/** Tag → the ancestors that make it content after all (none: dropped wherever it is). */
export const DROPPED_TAGS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['nav', new Set<string>()],
  ['dialog', new Set<string>()],
  ['header', new Set(['article', 'main'])],
  ['footer', new Set(['article', 'main'])],
  ['aside', new Set(['article'])],
]);

/** ARIA role → the ancestors that make it content after all. */
export const DROPPED_ROLES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['navigation', new Set<string>()],
  ['banner', new Set<string>()],
  ['contentinfo', new Set<string>()],
  ['search', new Set<string>()],
  ['menubar', new Set<string>()],
  ['dialog', new Set<string>()],
  ['alertdialog', new Set<string>()],
  ['complementary', new Set(['article'])],
]);

/** Matched anywhere in a lower-cased class, id or aria-label ("cookie-notice", "gdprBox"). */
export const DROPPED_NAME_WORDS: readonly string[] = [
  'cookie', 'consent', 'gdpr', 'advert', 'sponsor', 'promo', 'newsletter', 'popup', 'modal',
  'breadcrumb', 'sidebar', 'adsbygoogle', 'taboola', 'outbrain',
];

/** Matched as whole words only ("ad", "ads", "ad-slot", "top_ads"), never inside "header" or "load". */
export const AD_NAMES: readonly string[] = ['ad', 'ads'];

/** Name matching applies to these containers only: an inline element's class is no verdict. */
export const NAME_MATCHED_TAGS: readonly string[] = [
  'div', 'section', 'aside', 'form', 'ul', 'ol', 'li', 'dl', 'table', 'figure', 'header', 'footer', 'ins',
];

/** Share of the kept text above which a name-matched element is kept. */
export const MAX_DROPPED_TEXT_SHARE = 0.5;

const NAME_WORDS = new RegExp(DROPPED_NAME_WORDS.join('|'));
const AD_WORDS = new RegExp(`(?:^|[\\s_-])(?:${AD_NAMES.join('|')})(?:$|[\\s_-])`);
const NAME_MATCHED = new Set(NAME_MATCHED_TAGS);
const ARTICLE = new Set(['article']);

/**
 * The element whose content only_main_content converts: <main>, else role="main", else the one
 * top-level <article>, else <body>.
 */
export function mainContentRoot(page: ParsedPage): ElementNode {
  const candidate =
    visible(page.root.getElementsByTagName('main')) ??
    visible(descendants(page.root, isRoleMain)) ??
    singleTopLevelArticle(page.root);
  return candidate !== undefined && hasContent(candidate) ? candidate : page.body;
}

function visible(elements: ElementNode[]): ElementNode | undefined {
  return elements.find((element) => !element.hasAttribute('hidden'));
}

function singleTopLevelArticle(root: ElementNode): ElementNode | undefined {
  const articles = root.getElementsByTagName('article').filter((article) => !inside(article, ARTICLE, root));
  return articles.length === 1 ? articles[0] : undefined;
}

function hasContent(element: ElementNode): boolean {
  return element.textContent.trim() !== '' || element.getElementsByTagName('img').length > 0;
}

/** The elements below `root` that `test` accepts, in document order; with `first`, only the first. */
function descendants(root: ElementNode, test: (element: ElementNode) => boolean, first = false): ElementNode[] {
  const found: ElementNode[] = [];
  for (let at = nextInside(root, root); at !== null; at = nextInside(at, root)) {
    if (!(at instanceof ElementNode) || !test(at)) continue;
    found.push(at);
    if (first) break;
  }
  return found;
}

/**
 * Decides, element by element below `root`, whether an element is page chrome to drop. Created
 * once per conversion: it measures the kept text once, when a name first matches.
 */
export function pageChromeFilter(root: ElementNode): (element: ElementNode) => boolean {
  let rootTextLength: number | undefined;
  const textLength = (element: ElementNode) => element.textContent.replace(/\s+/g, '').length;

  return (element) => {
    const tag = element.localName;
    const keptInsideTag = DROPPED_TAGS.get(tag);
    if (keptInsideTag !== undefined && !inside(element, keptInsideTag, root)) return true;
    const role = element.getAttribute('role');
    const keptInsideRole = role === null ? undefined : DROPPED_ROLES.get(role.trim().toLowerCase());
    if (keptInsideRole !== undefined && !inside(element, keptInsideRole, root)) return true;

    if (!NAME_MATCHED.has(tag) || !namesChrome(element)) return false;
    if (descendants(element, isMainOrArticle, true).length > 0) return false;
    rootTextLength ??= textLength(root);
    return textLength(element) <= rootTextLength * MAX_DROPPED_TEXT_SHARE;
  };
}

/** Whether `element` lies inside one of `tags`, up to and including `root`; role="main" counts as <main>. */
function inside(element: ElementNode, tags: ReadonlySet<string>, root: ElementNode): boolean {
  if (tags.size === 0) return false;
  for (let at = element.parentElement; at !== null; at = at.parentElement) {
    if (tags.has(at.localName) || (tags.has('main') && isRoleMain(at))) return true;
    if (at === root) return false;
  }
  return false;
}

function isRoleMain(element: ElementNode): boolean {
  return element.getAttribute('role')?.trim().toLowerCase() === 'main';
}

function isMainOrArticle(element: ElementNode): boolean {
  return element.localName === 'main' || element.localName === 'article' || isRoleMain(element);
}

function namesChrome(element: ElementNode): boolean {
  const names = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''} ${element.getAttribute('aria-label') ?? ''}`.toLowerCase();
  return NAME_WORDS.test(names) || AD_WORDS.test(names);
}
