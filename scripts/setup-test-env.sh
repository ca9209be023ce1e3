#!/usr/bin/env bash
# What `npm test` needs from the system, installed through the project's own scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
bash scripts/ensure-mariadb.sh
# Firecrawl's published clients, which the SDK tests drive: a package of their own (test/sdk), so
# that their engine warnings and dependencies never reach the project's own npm install.
if [ ! -f test/sdk/node_modules/@mendable/firecrawl-js/package.json ] || [ ! -f test/sdk/node_modules/firecrawl-mcp/package.json ]; then
  npm ci --prefix test/sdk --no-audit --no-fund --loglevel=error || echo 'scrapegate: test/sdk could not be installed; the Firecrawl SDK tests will be skipped.' >&2
fi
