import { UnprocessableEntityError } from '../errors/api-error.js';

/** What a value may carry to a target: visible ASCII, spaces and tabs (no CR, LF, NUL or other controls, no bytes a target could read in another charset). */
const SAFE_VALUE = /^[\t\x20-\x7e]*$/;
/** RFC 9110 token: a header or cookie name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 6265 cookie-octets, plus the space browsers tolerate inside a value. */
const COOKIE_VALUE = /^[\x20\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

export const MAX_FORWARDED_HEADERS = 50;
export const MAX_FORWARDED_VALUE = 8 * 1024;

function invalid(loc: Array<string | number>, msg: string): UnprocessableEntityError {
  return new UnprocessableEntityError([{ loc, msg, type: 'value_error.header' }]);
}

/** A forwarded `svc-` header a target could be attacked with (split, smuggled, mis-decoded) is the caller's invalid value. */
export function checkForwardedHeader(rawName: string, value: string): void {
  if (!TOKEN.test(rawName)) throw invalid(['header', rawName], 'not a valid header name');
  if (value.length > MAX_FORWARDED_VALUE) throw invalid(['header', rawName], `ensure this value has at most ${MAX_FORWARDED_VALUE} characters`);
  if (!SAFE_VALUE.test(value)) throw invalid(['header', rawName], 'a forwarded header value may hold only visible ASCII characters, spaces and tabs');
}

export function checkForwardedCount(count: number): void {
  if (count > MAX_FORWARDED_HEADERS) throw invalid(['header'], `at most ${MAX_FORWARDED_HEADERS} svc- headers are forwarded`);
}

/** A cookie for the target: a token name and a value without separators or controls. */
export function checkCookie(name: string, value: string, loc: Array<string | number>): void {
  if (!TOKEN.test(name) || !COOKIE_VALUE.test(value)) {
    throw new UnprocessableEntityError([{ loc, msg: `the cookie ${JSON.stringify(name)} has characters a cookie cannot carry`, type: 'value_error.cookie' }]);
  }
}
