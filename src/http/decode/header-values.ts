import { InvalidValueError } from '../../scrape/invalid-value-error.js';

/** What a value may carry to a target: visible ASCII, spaces and tabs (no CR, LF, NUL or other controls, no bytes a target could read in another charset). */
const SAFE_VALUE = /^[\t\x20-\x7e]*$/;
/** RFC 9110 token: a header or cookie name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 6265 cookie-octets, plus the space browsers tolerate inside a value. */
const COOKIE_VALUE = /^[\x20\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

export const MAX_FORWARDED_HEADERS = 50;
export const MAX_FORWARDED_VALUE = 8 * 1024;

function invalidHeader(name: string, msg: string): InvalidValueError {
  return new InvalidValueError(name, msg, 'value_error.header', 'header');
}

/** A forwarded `svc-` header a target could be attacked with (split, smuggled, mis-decoded) is the caller's invalid value. */
export function checkForwardedHeader(rawName: string, value: string): void {
  if (!TOKEN.test(rawName)) throw invalidHeader(rawName, 'not a valid header name');
  if (value.length > MAX_FORWARDED_VALUE) throw invalidHeader(rawName, `ensure this value has at most ${MAX_FORWARDED_VALUE} characters`);
  if (!SAFE_VALUE.test(value)) throw invalidHeader(rawName, 'a forwarded header value may hold only visible ASCII characters, spaces and tabs');
}

export function checkForwardedCount(count: number): void {
  if (count > MAX_FORWARDED_HEADERS) throw new InvalidValueError('', `at most ${MAX_FORWARDED_HEADERS} svc- headers are forwarded`, 'value_error.header', 'header');
}

/**
 * A cookie for the target: a token name and a value without separators or controls. `from`: the
 * `cookies` parameter, or the forwarded header (`svc-Cookie`) that carried it.
 */
export function checkCookie(name: string, value: string, from: 'cookies' | { header: string }): void {
  if (!TOKEN.test(name) || !COOKIE_VALUE.test(value)) {
    const msg = `the cookie ${JSON.stringify(name)} has characters a cookie cannot carry`;
    throw from === 'cookies' ? new InvalidValueError('cookies', msg, 'value_error.cookie') : new InvalidValueError(from.header, msg, 'value_error.cookie', 'header');
  }
}
