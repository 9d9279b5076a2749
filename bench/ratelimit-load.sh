#!/usr/bin/env bash
# Load run: the rate limiter's cost per request. Starts the real server against one
# database with limits off, in memory and in Redis, in interleaved rounds (off, memory,
# redis, off, memory, redis ...) so all three see the same machine; each run drives
# GET /v1/deals?limit=1 with wrk for the same time. Prints each round and, per limiter, the
# total requests/s over all rounds and its ratio to limits off.
# Budgets are set far above what the run can spend, so every request does the full work of
# an allowed request. Traffic goes to 127.0.0.1 only.
#   bash bench/ratelimit-load.sh [seconds per run] [rounds]     (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
admin_url=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379/0}
db=ws_loadrun
db_url=${admin_url%/*}/$db?sslmode=disable
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

bin=$(mktemp -d)/workspaced
go build -o "$bin" ./cmd/workspaced
psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL=$db_url APIKEY=loadrun-key LOG_LEVEL=error \
  RATE_LIMIT_PER_CREDENTIAL=1000000000 RATE_LIMIT_PER_WORKSPACE=1000000000
"$bin" migrate >/dev/null
key=$("$bin" admin seed-demo | python3 -c 'import json,sys; print(json.load(sys.stdin)["agent_key"])')
redis-cli -u "$redis_url" --scan --pattern 'workspaced:ratelimit:*' | xargs -r redis-cli -u "$redis_url" del >/dev/null

run() { # name, env...
  local name=$1; shift
  env LISTEN_ADDR=127.0.0.1:18089 "$@" "$bin" serve >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do curl -fs 127.0.0.1:18089/readyz >/dev/null && break; sleep 0.1; done
  wrk -t2 -c16 -d2s -H "apikey: $APIKEY" -H "Authorization: Bearer $key" \
    "http://127.0.0.1:18089/v1/deals?limit=1" >/dev/null # warm-up
  local rps
  rps=$(wrk -t2 -c16 -d"${secs}s" -H "apikey: $APIKEY" -H "Authorization: Bearer $key" \
    "http://127.0.0.1:18089/v1/deals?limit=1" | awk '/Requests\/sec/ {print $2}')
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$name $rps"
}

results=$(
  for r in $(seq 1 "$rounds"); do
    run off RATE_LIMITS=false | sed "s/^/$r /"
    run memory RATE_LIMITS=true | sed "s/^/$r /"
    run redis RATE_LIMITS=true REDIS_URL=$redis_url | sed "s/^/$r /"
  done
)
echo "$results" | awk '{printf "round %s  %-7s %10.0f req/s\n", $1, $2, $3}'
echo "$results" | awk -v rounds="$rounds" '
  {sum[$2] += $3; if (!($2 in seen)) {order[++n] = $2; seen[$2] = 1}}
  END {for (i = 1; i <= n; i++) printf "%-7s %10.0f req/s   %.2fx of limits off\n", order[i], sum[order[i]] / rounds, sum[order[i]] / sum["off"]}'
redis-cli -u "$redis_url" --scan --pattern 'workspaced:ratelimit:*' | xargs -r redis-cli -u "$redis_url" del >/dev/null
psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
