#!/usr/bin/env bash
# Dredd against the real server (embedded SQLite in a temporary directory): the public document,
# the Firecrawl dialect's, then the admin document (the server has an ADMIN_TOKEN for this run only).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
# CONTRACT_PLAIN_ONLY=true sends every transaction with browser=false (no Chromium needed).
export BROWSER_POOL_SIZE="${BROWSER_POOL_SIZE:-2}" SE_OFFLINE=true SE_AVOID_STATS=true
export DATABASE_URL="sqlite:$work/contract.sqlite" ALLOW_PRIVATE_TARGETS=true LOG_LEVEL=warn HOST=127.0.0.1
export CONTRACT_ADMIN_TOKEN="contract-$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')"

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# The documented examples ask for proxy_country=US: a real upstream proxy on loopback serves it.
node --import tsx contract-tests/upstream-proxy.ts "$work/proxies.json" > "$work/proxy.log" 2>&1 &
proxy=$!
for _ in $(seq 1 100); do [ -s "$work/proxies.json" ] && break; sleep 0.1; done
ADMIN_TOKEN="$CONTRACT_ADMIN_TOKEN" PROXY_CONFIG="$work/proxies.json" PORT=$port node --import tsx src/index.ts > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server $proxy 2>/dev/null; wait $server $proxy 2>/dev/null; rm -rf "$work"' EXIT
# /readyz: the database answers and the browser pool is warm, as a load balancer would wait.
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
  sleep 0.2
done
node contract-tests/dredd-document.mjs openapi/dist/openapi.json "$work/dredd-openapi.json"
node_modules/.bin/dredd "$work/dredd-openapi.json" "http://127.0.0.1:$port" \
  --hookfiles=contract-tests/hooks.cjs --language=nodejs --loglevel=${DREDD_LOGLEVEL:-warning} "$@"
node contract-tests/dredd-document.mjs openapi/dist/firecrawl.json "$work/dredd-firecrawl.json"
CONTRACT_SERVER_URL="http://127.0.0.1:$port" node_modules/.bin/dredd "$work/dredd-firecrawl.json" "http://127.0.0.1:$port" \
  --hookfiles=contract-tests/firecrawl-hooks.cjs --language=nodejs --loglevel=${DREDD_LOGLEVEL:-warning} "$@"
node contract-tests/dredd-document.mjs openapi/dist/admin.json "$work/dredd-admin.json"
node_modules/.bin/dredd "$work/dredd-admin.json" "http://127.0.0.1:$port" \
  --hookfiles=contract-tests/admin-hooks.cjs --language=nodejs --loglevel=${DREDD_LOGLEVEL:-warning} "$@"
