/**
 * The User-Agent both engines present: a current desktop Chrome. Headless Chromium's own says
 * "HeadlessChrome", and got's names a library; both are refused by many sites on sight.
 */
export const USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
