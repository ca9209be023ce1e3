// The one turndown configuration: GFM output (ATX headings, "-" bullets, fenced code, pipe
// tables, ~~strikethrough~~, task lists). The GFM plugin's table rules are used as they are,
// with two adjustments that keep every table a pipe table (see adjustTableRule).

import { strikethrough, tables, taskListItems } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import type { ElementNode } from './dom/nodes.js';
import { unwrap, walkElements } from './dom-walk.js';

/**
 * Block elements that make the plugin keep a whole table as raw HTML (a choice made for Joplin's
 * editor, which can edit such tables). A GFM cell holds one line anyway, so their already
 * converted text goes into the cell as a line.
 */
const BLOCKS_KEPT_AS_HTML = new Set(['ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'hr']);

// Stands for a pipe of the cell's text while the plugin formats the cell: the plugin turns a run
// of pipes into a single "\|", which loses pipes ("a || b"). A noncharacter, absent from text.
const PIPE = '\uFDD0';
const PIPES = new RegExp(PIPE, 'g');

/** Any character or line start that one of turndown's escaping expressions rewrites. */
const MIGHT_NEED_ESCAPING = /[\\*`[\]_]|^(?:[-+=#>]|~~~|\d+\. )/;

export function createTurndownService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    fence: '```',
    // "*" rather than "_": GFM does not read underscores inside a word as emphasis ("un_fair_").
    emDelimiter: '*',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  service.use([strikethrough, taskListItems]);
  useAdjusted(service, tables, adjustTableRule);
  // turndown runs its thirteen escaping expressions over every text node; most text contains
  // nothing any of them would change, which one test tells. (Overriding escape is turndown's
  // documented way to change escaping; this changes none.)
  const escape = service.escape.bind(service);
  service.escape = (text) => (MIGHT_NEED_ESCAPING.test(text) ? escape(text) : text);
  return service;
}


/**
 * Table rules as the plugin writes them, except:
 * - tableCell: the cell's text becomes one line (its line breaks, which the plugin writes as
 *   "<br>", become spaces) and each of its pipes is escaped on its own;
 * - table: block elements inside the table are unwrapped once the cells are converted, so the
 *   plugin writes a pipe table where it would keep HTML.
 * A table without a header row gets the plugin's empty header row, which keeps its first row
 * as data: a first row promoted to header would claim headings the page never gave.
 */
function adjustTableRule(key: string, rule: TurndownService.Rule): TurndownService.Rule {
  const replacement = rule.replacement;
  if (replacement === undefined) return rule;
  if (key === 'tableCell') {
    return {
      filter: rule.filter,
      replacement(content, node, options) {
        const oneLine = content.replace(/[ \t]*\n\s*/g, ' ').replace(/\|/g, PIPE);
        const cell = replacement(oneLine, node, options);
        // The plugin hands back the text untouched for tables it does not tabulate (layout
        // tables: one cell, or tables within tables), whose cells are read as paragraphs.
        return cell === oneLine ? content : cell.replace(PIPES, '\\|');
      },
    };
  }
  if (key === 'table') {
    return {
      filter: rule.filter,
      replacement(content, node, options) {
        const blocks: ElementNode[] = [];
        // turndown's declarations name the browser's types; the node is one of dom/'s.
        walkElements(node as unknown as ElementNode, (element) => {
          if (BLOCKS_KEPT_AS_HTML.has(element.localName)) blocks.push(element);
          return 'descend';
        });
        for (const block of blocks) unwrap(block);
        return replacement(content, node, options);
      },
    };
  }
  return rule;
}

/** Installs `plugin`, passing each rule it adds through `adjust` first. */
function useAdjusted(
  service: TurndownService,
  plugin: TurndownService.Plugin,
  adjust: (key: string, rule: TurndownService.Rule) => TurndownService.Rule,
): void {
  const addRule = service.addRule;
  service.addRule = (key, rule) => addRule.call(service, key, adjust(key, rule));
  try {
    service.use(plugin);
  } finally {
    // Back to the prototype's addRule.
    Reflect.deleteProperty(service, 'addRule');
  }
}
