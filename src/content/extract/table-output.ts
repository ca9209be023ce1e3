import { isTag, type Element } from 'domhandler';
import { jsonStringLength, NULL_CHARS } from './json-size.js';

/**
 * How a table output reads a cell, hears of each row before it is built (to stop at the results
 * cap), and counts the JSON it adds around the cells' texts (brackets, commas, keys, nulls).
 */
export interface TableReading {
  cellText(cell: Element): string;
  /** A header cell's text, which becomes a key (counted as one), not a value. */
  keyText(cell: Element): string;
  onRow(): void;
  charge(chars: number): void;
}

interface TableRows {
  /** The rows of the table's thead elements. */
  head: Element[][];
  /** The rows of its tbody elements and its own tr children, then those of its tfoot elements. */
  rest: Element[][];
}

/**
 * table_array: every row of the table as the array of its cells' texts (th and td alike, in
 * order). The rows are the table's own, in the order of a browser's table.rows: those of thead
 * first, then tbody's and the table's direct tr children in document order, then tfoot's; rows of
 * tables nested in a cell are not the table's. colspan and rowspan are not expanded: a cell is one
 * entry however many columns it spans. A matched element that is not a <table> has no rows: [].
 */
export function tableArray(table: Element, reading: TableReading): string[][] {
  const { head, rest } = tableRows(table);
  reading.charge(2);
  return [...head, ...rest].map((row, i) => {
    reading.onRow();
    reading.charge((i > 0 ? 1 : 0) + 2 + Math.max(0, row.length - 1));
    return row.map((cell) => reading.cellText(cell));
  });
}

/**
 * table_json: each data row as an object from column names to cell texts. The names are the
 * cells of the header row: the thead's first row (any other thead rows are neither names nor
 * data), or, without a thead, the first row when all its cells are th. A table with no header row
 * names its columns by their indexes, "0", "1", ...; so does a column whose header is empty or
 * repeats an earlier one, and a cell beyond the header's last. A row shorter than the header has
 * null for the columns it lacks.
 */
export function tableJson(table: Element, reading: TableReading): Array<Record<string, string | null>> {
  const { head, rest } = tableRows(table);
  let header: Element[] = [];
  let data = rest;
  if (head.length > 0) {
    header = head[0];
  } else if (rest.length > 0 && rest[0].length > 0 && rest[0].every((cell) => cell.name === 'th')) {
    header = rest[0];
    data = rest.slice(1);
  }
  const names: string[] = [];
  for (const [i, cell] of header.entries()) {
    const text = reading.keyText(cell);
    names.push(text === '' || names.includes(text) ? String(i) : text);
  }
  const keyChars = names.map((name) => jsonStringLength(name) + 1);
  reading.charge(2);
  return data.map((row, r) => {
    reading.onRow();
    const width = Math.max(names.length, row.length);
    reading.charge((r > 0 ? 1 : 0) + 2 + Math.max(0, width - 1));
    const entries: Array<[string, string | null]> = names.map((name, i) => {
      reading.charge(keyChars[i] + (i < row.length ? 0 : NULL_CHARS));
      return [name, i < row.length ? reading.cellText(row[i]) : null];
    });
    for (let i = names.length; i < row.length; i++) {
      reading.charge(jsonStringLength(String(i)) + 1);
      entries.push([String(i), reading.cellText(row[i])]);
    }
    // fromEntries defines each key, so a column named "__proto__" is one more key, not a prototype.
    return Object.fromEntries(entries);
  });
}

function tableRows(table: Element): TableRows {
  const head: Element[][] = [];
  const body: Element[][] = [];
  const foot: Element[][] = [];
  if (table.name !== 'table') return { head, rest: [] };
  for (const child of table.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') body.push(cells(child));
    else if (child.name === 'thead') head.push(...rows(child));
    else if (child.name === 'tbody') body.push(...rows(child));
    else if (child.name === 'tfoot') foot.push(...rows(child));
  }
  return { head, rest: [...body, ...foot] };
}

function rows(section: Element): Element[][] {
  return section.children.filter((child): child is Element => isTag(child) && child.name === 'tr').map(cells);
}

function cells(row: Element): Element[] {
  return row.children.filter((child): child is Element => isTag(child) && (child.name === 'td' || child.name === 'th'));
}
