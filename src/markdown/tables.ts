// Two things the GFM plugin's table rules need from a table, settled before conversion.

/**
 * Prepares `table` for the plugin:
 * - `table.rows` is read once, on first use, and kept. The plugin reads it inside loops over the
 *   rows (each column's alignment, the column count) and domino builds a new list, walked from
 *   the start, on every read: a table of 10,000 rows took seconds. Nothing adds or removes a row
 *   once the page is prepared.
 * - <caption> moves after the rows and <colgroup>s go: the plugin takes the first row for the
 *   header only when the row group is the table's first child, so a caption or colgroup before
 *   it turned a table's real header into data under an empty one. The plugin finds the caption
 *   wherever it is; column groups write nothing.
 */
export function prepareTable(table: Element): void {
  for (const child of Array.from(table.children)) {
    if (child.localName === 'colgroup') child.remove();
    else if (child.localName === 'caption') table.appendChild(child);
  }
  let rows: Element[] | undefined;
  Object.defineProperty(table, 'rows', {
    get: () => (rows ??= Array.from(table.getElementsByTagName('tr'))),
  });
}
