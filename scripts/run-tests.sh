#!/usr/bin/env bash
# The whole suite: types, the dependency rules, unit and integration tests (SQLite, and MySQL when TEST_MYSQL_URL is
# set), then Dredd against the running server. Ends with what failed, if anything, then one "N passed, N failed" line:
# CI shows only the end of this output.
set -uo pipefail
cd "$(dirname "$0")/.."
export SE_OFFLINE=true SE_AVOID_STATS=true
log=$(mktemp)
mocha_log=$(mktemp)
status=0
failed_steps=()

# The MySQL suites run in a schema of their own, created here and dropped at the end, so nothing a
# previous run or another checkout left in the shared database (tables, recorded migrations) is met.
if [ -n "${TEST_MYSQL_URL:-}" ]; then
  TEST_MYSQL_URL=$(node --import tsx scripts/test-schema.ts create "$TEST_MYSQL_URL") || { echo "could not create the run's MySQL schema" >&2; exit 1; }
  export TEST_MYSQL_URL
  trap 'node --import tsx scripts/test-schema.ts drop "$TEST_MYSQL_URL" || true' EXIT
fi

echo "== typecheck"
node_modules/.bin/tsc -p tsconfig.json || { status=1; failed_steps+=(typecheck); }

echo "== dependency rules (.dependency-cruiser.cjs)"
node_modules/.bin/depcruise src --config .dependency-cruiser.cjs --output-type err || { status=1; failed_steps+=("dependency rules"); }

echo "== mocha${TEST_MYSQL_URL:+ (SQLite and MySQL)}"
node_modules/.bin/mocha 2>&1 | tee "$mocha_log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; failed_steps+=(mocha); }
passed=$(grep -Eo '^ +[0-9]+ passing' "$mocha_log" | grep -Eo '[0-9]+' | tail -1)
failed=$(grep -Eo '^ +[0-9]+ failing' "$mocha_log" | grep -Eo '[0-9]+' | tail -1)

echo "== dredd contract tests"
# Dredd's warnings about keys its OAS3 parser does not know say nothing about the server: left out.
bash contract-tests/run.sh 2>&1 | grep -v -e '^.\{0,5\}skip' -e 'API description parser warning' | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; failed_steps+=(dredd); }
# One summary line per document (public, admin): their counts add up.
summaries=$(grep -Eo '[0-9]+ passing, [0-9]+ failing' "$log")
dpassed=$(echo "$summaries" | grep -Eo '^[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
dfailed=$(echo "$summaries" | grep -Eo '[0-9]+ failing' | grep -Eo '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')

total_passed=$(( ${passed:-0} + ${dpassed:-0} ))
total_failed=$(( ${failed:-0} + ${dfailed:-0} ))
[ "$status" -ne 0 ] && [ "$total_failed" -eq 0 ] && total_failed=1
if [ "$status" -ne 0 ]; then
  echo
  echo "== what failed: ${failed_steps[*]}"
  # Mocha's own account of each failure (title, assertion, stack), from its "N failing" line on.
  sed -n '/^ \+[0-9]\+ failing/,$p' "$mocha_log" | head -n 150
  grep -E '^.{0,5}(fail|error):' "$log" | head -n 40
fi
rm -f "$log" "$mocha_log"
echo
echo "${total_passed} passed, ${total_failed} failed"
exit "$status"
