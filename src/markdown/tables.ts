// What the GFM plugin's table rules need from a table, settled before conversion.

import { ElementNode } from './dom/nodes.js';

const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);

/**
 * Prepares `table` for the plugin:
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
export function prepareTable(table: ElementNode): void {
  fosterText(table);
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
}

function fosterText(table: ElementNode): void {
  const parent = table.parentNode;
  if (parent === null) return;
  // Every row of this table, however it is nested in it (not those of a table in a cell).
  const rows = table.getElementsByTagName('tr').filter((row) => nearestTable(row) === table);
  const holders = [table, ...table.children.filter((child) => SECTIONS.has(child.localName)), ...rows];
  for (const holder of holders) {
    for (const node of holder.childNodes) if (!(node instanceof ElementNode)) parent.insertBefore(node, table);
  }
}

function nearestTable(element: ElementNode): ElementNode | null {
  let at = element.parentElement;
  while (at !== null && at.localName !== 'table') at = at.parentElement;
  return at;
}
