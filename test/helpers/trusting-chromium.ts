import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A CHROMIUM_PATH for a test's server: the machine's Chromium, trusting certificates with these
 * public keys as if a public authority had issued them (a test's own TLS targets), so that it
 * keeps what it keeps only for trusted connections (HSTS, TLS sessions).
 */
export function chromiumTrusting(spkiHashes: string[], binary = '/usr/bin/chromium'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'chromium-')), 'chromium');
  writeFileSync(path, `#!/bin/sh\nexec ${binary} --ignore-certificate-errors-spki-list=${spkiHashes.join(',')} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}
