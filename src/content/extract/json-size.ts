/** Characters JSON.stringify escapes in a string: the quote, the backslash, controls, and lone surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;
/** Controls JSON writes as two characters (\b \t \n \f \r); the others take six (\u00XX). */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * The length of JSON.stringify(text), without making it: the quotes, and every escape at its
 * written length (a well-formed JSON.stringify writes a lone surrogate as \uXXXX). One scan of a
 * string that needs escaping; none for one that does not.
 */
export function jsonStringLength(text: string): number {
  if (!ESCAPED.test(text)) return text.length + 2;
  let length = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) length += 2;
    else if (c < 0x20) length += SHORT_ESCAPES.has(c) ? 2 : 6;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 2;
        i++;
      } else {
        length += 6;
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) length += 6;
    else length += 1;
  }
  return length;
}

/** `null` as JSON. */
export const NULL_CHARS = 4;
