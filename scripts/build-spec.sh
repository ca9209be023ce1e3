#!/usr/bin/env bash
# Lints the hand-written OpenAPI document, bundles it into openapi/dist (JSON and YAML, what the
# server routes by and publishes) and builds the offline Redoc page served at /docs.
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
redocly=node_modules/.bin/redocly
mkdir -p openapi/dist
"$redocly" lint openapi/openapi.yaml --format=summary 2>&1 | grep -v -e '^ *║' -e '^ *╔' -e '^ *╚' -e '^$' >&2
"$redocly" bundle openapi/openapi.yaml -o openapi/dist/openapi.yaml 2>/dev/null
"$redocly" bundle openapi/openapi.yaml -o openapi/dist/openapi.json 2>/dev/null
"$redocly" build-docs openapi/dist/openapi.yaml --inlineBundle -o openapi/dist/docs.html \
  --title "scrapegate API" 2>/dev/null >/dev/null
echo "openapi/dist: openapi.json openapi.yaml docs.html"
