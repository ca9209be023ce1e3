#!/usr/bin/env bash
# The browser engine drives Debian's Chromium through Debian's chromedriver (matching versions,
# no downloads at install). Installs both when missing; does nothing when they are there or when
# the browser engine is switched off (BROWSER_POOL_SIZE=0) or runs on a Grid.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
driver="${CHROMEDRIVER_PATH:-/usr/bin/chromedriver}"
[ "${BROWSER_POOL_SIZE:-}" = "0" ] && exit 0
[ -n "${SELENIUM_REMOTE_URL:-}" ] && exit 0
[ -x "$chromium" ] && [ -x "$driver" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Chromium ($chromium) and chromedriver ($driver) are needed: install Debian's chromium and chromium-driver," >&2
  echo "or set BROWSER_POOL_SIZE=0 to run without the browser engine." >&2
  exit 1
fi
echo "Installing Chromium and chromedriver from Debian's packages..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
