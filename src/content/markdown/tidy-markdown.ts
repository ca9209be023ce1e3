// turndown separates blocks by one empty line, but runs of <br> and empty blocks still leave
// several. Outside code blocks, whose lines are the page's own text, a run of blank lines becomes
// one.

// A fence opens a code block also when indented, quoted or behind list markers: "    ```",
// "> ```", "-   ```js", "1.  > ```".
const FENCE = /^(?:[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]))*[ \t]*(`{3,}|~{3,})(.*)$/;

/** `markdown` trimmed, with at most one blank line in a row outside fenced code blocks. */
export function tidyMarkdown(markdown: string): string {
  const out: string[] = [];
  let openFence: string | null = null;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line);
    if (openFence !== null) {
      out.push(line);
      if (fence !== null && closes(fence, openFence)) openFence = null;
      continue;
    }
    if (line.trim() === '') {
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      continue;
    }
    // A backtick fence's info string has no backticks; with one, the line is inline code.
    if (fence !== null && !(fence[1][0] === '`' && fence[2].includes('`'))) openFence = fence[1];
    out.push(line);
  }
  return out.join('\n').trim();
}

/** A fence closes the block opened by `open` with the same character, at least as long, and nothing after. */
function closes(fence: RegExpExecArray, open: string): boolean {
  return fence[1][0] === open[0] && fence[1].length >= open.length && fence[2].trim() === '';
}
