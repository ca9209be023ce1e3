// What the GFM plugin's table rules need from a table, settled before conversion.

import { ElementNode } from './dom/nodes.js';
import { SECTIONS } from './table-parts.js';

/**
 * The most cells a row may hold for its table to be written as a table. The plugin numbers each
 * cell by searching for it among its row's children, so a row of n cells costs n²/2 steps: one of
 * 50,000 cells took 1.5 s, one of 300,000 more than the 15 s a conversion may take. No table a
 * reader could use is that wide; a wider one is written as its text.
 */
export const MAX_ROW_CELLS = 500;

/**
 * Prepares `table` for the plugin, or returns false, changing nothing, when a row holds more than
 * MAX_ROW_CELLS cells:
 * - `table.rows`, which the plugin reads inside loops over the rows (each column's alignment, the
 *   column count), is found on first use and kept: nothing adds or removes a row once the page is
 *   prepared. So is `table.caption`, which the plugin reads when the table has no querySelector.
 * - Text in the table's structure but in no cell moves before the table, where a browser puts it
 *   (the HTML parser's "foster parenting"): the plugin reads every child of a row as a cell.
 * - <caption> moves after the rows and <colgroup>s go: the plugin takes the first row for the
 *   header only when the row group is the table's first child, so a caption or colgroup before
 *   it turned a table's real header into data under an empty one. The plugin finds the caption
 *   wherever it is; column groups write nothing.
 */
export function prepareTable(table: ElementNode): boolean {
  const holders = rowHolders(table);
  if (holders.some((holder) => cellCount(holder) > MAX_ROW_CELLS)) return false;
  fosterText(table, holders);
  for (const child of table.children) {
    if (child.localName === 'colgroup') child.remove();
    else if (child.localName === 'caption') table.appendChild(child);
  }
  let rows: ElementNode[] | undefined;
  Object.defineProperty(table, 'rows', {
    get: () => (rows ??= table.getElementsByTagName('tr')),
  });
  Object.defineProperty(table, 'caption', {
    get: () => table.children.find((child) => child.localName === 'caption') ?? null,
  });
  return true;
}

/** The table, its sections and every row of it, however nested in it (not those of a table in a cell). */
function rowHolders(table: ElementNode): ElementNode[] {
  const rows = table.getElementsByTagName('tr').filter((row) => nearestTable(row) === table);
  return [table, ...table.children.filter((child) => SECTIONS.has(child.localName)), ...rows];
}

/** The cells directly in `holder`: a row's, or those a page put straight into a table or section. */
function cellCount(holder: ElementNode): number {
  let cells = 0;
  for (const child of holder.children) if (child.localName === 'td' || child.localName === 'th') cells++;
  return cells;
}

function fosterText(table: ElementNode, holders: ElementNode[]): void {
  const parent = table.parentNode;
  if (parent === null) return;
  for (const holder of holders) {
    for (const node of holder.childNodes) if (!(node instanceof ElementNode)) parent.insertBefore(node, table);
  }
}

function nearestTable(element: ElementNode): ElementNode | null {
  let at = element.parentElement;
  while (at !== null && at.localName !== 'table') at = at.parentElement;
  return at;
}
