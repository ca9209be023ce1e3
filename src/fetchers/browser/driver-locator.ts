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
 * The driver binary: `CHROMEDRIVER_PATH` when set, else the copy the `chromedriver` package
 * installed (its install script copies Debian's matching driver through `chromedriver_filepath`,
 * so nothing is downloaded), else Debian's own. The package is an optional dependency: where
 * Chromium could not be installed at `npm install` its install fails and npm leaves it out.
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
