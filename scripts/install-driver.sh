#!/usr/bin/env bash
# The `chromedriver` npm package is the driver locator; its binary must be Debian's, matching
# Debian's Chromium, and nothing may be downloaded. Its own install script is denied in
# package.json's allowScripts (npm 11 would otherwise run it without the setting); here it runs
# with its documented CHROMEDRIVER_FILEPATH setting, which makes it copy Debian's driver. Never
# fails the install: without Chromium (no root, no apt) the package keeps no binary, and
# `npm start` says what is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
driver="${CHROMEDRIVER_PATH:-/usr/bin/chromedriver}"
[ -f node_modules/chromedriver/install.js ] || exit 0
if [ ! -x "$driver" ]; then
  echo "scrapegate: $driver is missing; the chromedriver package keeps no driver (npm start will say what to install)." >&2
  exit 0
fi
( cd node_modules/chromedriver && CHROMEDRIVER_FILEPATH="$driver" CHROMEDRIVER_SKIP_DOWNLOAD=false node install.js ) >/dev/null 2>&1 \
  || echo "scrapegate: copying $driver into the chromedriver package failed; npm start will use $driver itself." >&2
exit 0
