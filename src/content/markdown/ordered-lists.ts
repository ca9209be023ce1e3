// turndown numbers an item of an ordered list by searching for it among the list's children, so
// a list of n items costs n²/2 steps: 40,000 items took 3 s, and a 10 MB page of them would
// take an hour. A longer list is split into consecutive lists of at most ORDERED_LIST_RUN items,
// each starting at the number its first item had; the markdown numbers stay those of the page.
// (A markdown reader sees the parts as one list, loose instead of tight: they are separated by a
// blank line.)

import { ElementNode } from './dom/nodes.js';

export const ORDERED_LIST_RUN = 500;

/** Splits `list` (an <ol>) into runs of at most ORDERED_LIST_RUN element children. */
export function splitLongOrderedList(list: ElementNode): void {
  const items = list.children;
  if (items.length <= ORDERED_LIST_RUN) return;
  const start = Number.parseInt(list.getAttribute('start') ?? '1', 10);
  const first = Number.isNaN(start) ? 1 : start;
  let after: ElementNode = list;
  for (let from = ORDERED_LIST_RUN; from < items.length; from += ORDERED_LIST_RUN) {
    const run = new ElementNode('ol');
    run.setAttribute('start', String(first + from));
    after.after(run);
    for (const item of items.slice(from, from + ORDERED_LIST_RUN)) run.appendChild(item);
    after = run;
  }
}
