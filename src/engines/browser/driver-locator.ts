import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';

/** Debian's chromedriver, which the `chromedriver` package copies at install (.npmrc). */
export const DEBIAN_CHROMEDRIVER = '/usr/bin/chromedriver';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The driver binary: `CHROMEDRIVER_PATH` when set, else the copy the `chromedriver` package keeps
 * (the project's postinstall runs its installer with CHROMEDRIVER_FILEPATH, which copies Debian's
 * matching driver, so nothing is downloaded), else Debian's own: where Chromium could not be
 * installed at `npm install`, the package keeps no driver.
 */
export function locateChromedriver(configured: string | undefined): string {
  if (configured) return configured;
  try {
    const located = (createRequire(import.meta.url)('chromedriver') as { path: string }).path;
    if (executable(located)) return located;
  } catch {
    // the package is not installed
  }
  return DEBIAN_CHROMEDRIVER;
}
