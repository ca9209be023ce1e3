/**
 * Attribute names a shorthand may end with: what HTML allows in one (no white space, quotes, `>`,
 * `/` or `=`), less the characters that would make the tail look like CSS rather than a name.
 */
const ATTRIBUTE_NAME = /^[^\s"'<>/=@[\]()\\,]+$/;

/**
 * Splits the shorthand `selector@attribute` at its last `@` outside quotes, brackets and
 * parentheses and not escaped (`a[href^="mailto:x@y"]`, `:is(.a@b)` and `.md\@flex` stay
 * selectors), when what follows is an attribute name and what precedes is not empty. Undefined
 * when the text is a selector alone. The name is lower-cased, as the HTML parser lower-cases the
 * page's attribute names.
 */
export function splitAttribute(text: string): { selector: string; attribute: string } | undefined {
  let at = -1;
  let quote = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
    } else if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      depth = Math.max(0, depth - 1);
    } else if (c === '@' && depth === 0) {
      at = i;
    }
  }
  if (at < 0) return undefined;
  const selector = text.slice(0, at).trim();
  const attribute = text.slice(at + 1).trim();
  if (!selector || !ATTRIBUTE_NAME.test(attribute)) return undefined;
  return { selector, attribute: attribute.toLowerCase() };
}

/** An attribute output, `@name`: the name lower-cased, or undefined when the text is not one. */
export function attributeOutput(text: string): string | undefined {
  if (!text.startsWith('@')) return undefined;
  const name = text.slice(1);
  return ATTRIBUTE_NAME.test(name) ? name.toLowerCase() : undefined;
}
