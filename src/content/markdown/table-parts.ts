// Where a table's sections, rows and cells go. htmlparser2 nests a start tag in whatever is open,
// so valid HTML that leaves a cell open (`<th>B<tbody><tr>`, end tags being optional) would put
// the next section inside the cell; and outside a table it keeps cells, which the GFM plugin's
// table rules cannot convert (they look for the cell's table and fail). Placed here as the HTML
// parsing algorithm places them.

export const SECTIONS: ReadonlySet<string> = new Set(['thead', 'tbody', 'tfoot']);
const IN_TABLE = new Set(['thead', 'tbody', 'tfoot', 'caption', 'colgroup']);
const CELLS = new Set(['td', 'th']);

/** What `tableParent` needs of an open element. */
interface OpenElement {
  readonly localName: string;
}

/**
 * For a table part about to open, the element to put it in, found on `open` (the open tables,
 * sections and rows, innermost last): a cell goes in the open row, a row in the open section or
 * table, a section, caption or column group in the open table. 'ignored' when no table is open:
 * the HTML parsing algorithm drops such a start tag, and its content stays where it was.
 * Undefined for any other element.
 */
export function tableParent<T extends OpenElement>(name: string, open: readonly T[]): T | 'ignored' | undefined {
  const isCell = CELLS.has(name);
  if (!isCell && name !== 'tr' && !IN_TABLE.has(name)) return undefined;
  for (let i = open.length - 1; i >= 0; i--) {
    const element = open[i];
    const tag = element.localName;
    if (tag === 'table') return element;
    if (isCell && tag === 'tr') return element;
    if (name === 'tr' && SECTIONS.has(tag)) return element;
  }
  return 'ignored';
}
