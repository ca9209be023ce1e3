#!/usr/bin/env bash
# What `npm test` needs from the system, installed through the project's own scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
bash scripts/ensure-redis.sh
bash scripts/ensure-mariadb.sh
