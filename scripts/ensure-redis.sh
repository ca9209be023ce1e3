#!/usr/bin/env bash
# Jobs (batches, crawls, webhooks) run on BullMQ over Redis 7. With REDIS_URL set the deployment
# brings its own Redis; without it scrapegate runs a private redis-server (Debian's package) as a
# child of its own. Installs the package when it is missing; does nothing when REDIS_URL is set.
set -euo pipefail
server="${REDIS_SERVER_PATH:-/usr/bin/redis-server}"
[ -n "${REDIS_URL:-}" ] && exit 0
[ -x "$server" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "redis-server ($server) is needed for jobs: install Debian's redis-server, or set REDIS_URL to a Redis 7 of your own." >&2
  exit 1
fi
echo "Installing redis-server from Debian's package..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# The package's own service is not scrapegate's: scrapegate starts a private server of its own.
