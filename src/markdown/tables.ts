// What the GFM plugin's table rules need from a table, settled before conversion.

import type { ElementNode } from './dom/nodes.js';

/**
 * Prepares `table` for the plugin:
 * - `table.rows`, which the plugin reads inside loops over the rows (each column's alignment, the
 *   column count), is found on first use and kept: nothing adds or removes a row once the page is
 *   prepared. So is `table.caption`, which the plugin reads when the table has no querySelector.
 * - <caption> moves after the rows and <colgroup>s go: the plugin takes the first row for the
 *   header only when the row group is the table's first child, so a caption or colgroup before
 *   it turned a table's real header into data under an empty one. The plugin finds the caption
 *   wherever it is; column groups write nothing.
 */
export function prepareTable(table: ElementNode): void {
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
