#!/usr/bin/env bash
# Lints the hand-written OpenAPI documents (the public API, and the admin API beside it), bundles
# each into openapi/dist (JSON and YAML, what the server routes by and publishes) and builds the
# offline Redoc pages served at /docs and /docs/admin.
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
redocly=node_modules/.bin/redocly
mkdir -p openapi/dist
build() { # name, title of its docs page
  "$redocly" lint "openapi/$1.yaml" --format=summary 2>&1 | grep -v -e '^ *║' -e '^ *╔' -e '^ *╚' -e '^$' >&2
  "$redocly" bundle "openapi/$1.yaml" -o "openapi/dist/$1.yaml" 2>/dev/null
  "$redocly" bundle "openapi/$1.yaml" -o "openapi/dist/$1.json" 2>/dev/null
  "$redocly" build-docs "openapi/dist/$1.yaml" --inlineBundle -o "openapi/dist/$3" --title "$2" 2>/dev/null >/dev/null
}
build openapi "scrapegate API" docs.html
build admin "scrapegate admin API" admin-docs.html
build firecrawl "scrapegate Firecrawl dialect" firecrawl-docs.html
echo "openapi/dist: openapi.json openapi.yaml docs.html admin.json admin.yaml admin-docs.html firecrawl.json firecrawl.yaml firecrawl-docs.html"
