#!/usr/bin/env bash
# Load run: the rate limiter's cost per request. Starts the real server against one
# database with limits off, in memory and in Redis (a redis-server of the run's own, so its
# CPU time is the limiter's alone), in interleaved rounds (off, memory, redis, off ...) so
# all three see the same machine; each run drives GET /v1/deals?limit=1 with wrk for the
# same time. Prints each round and, per limiter, the mean requests/s over all rounds, its
# ratio to limits off, and the CPU time the server and redis-server spent per request
# (from /proc): on a machine shared with other work, throughput swings with the
# neighbours, CPU per request much less.
# Budgets are set far above what the run can spend, so every request does the full work of
# an allowed request. Traffic goes to 127.0.0.1 only.
# With OTHER_BIN set to another build of workspaced, each round also runs it with Redis
# ("redis-other"), for before/after comparisons in one run.
#   bash bench/ratelimit-load.sh [seconds per run] [rounds]     (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
admin_url=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
redis_port=${REDIS_PORT:-16390}
redis_url=redis://127.0.0.1:$redis_port/0
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
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >/dev/null &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system clock ticks

run() { # name, binary, env...
  local name=$1 exe=$2; shift 2
  env LISTEN_ADDR=127.0.0.1:18089 "$@" "$exe" serve >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do curl -fs 127.0.0.1:18089/readyz >/dev/null && break; sleep 0.1; done
  wrk -t2 -c16 -d2s -H "apikey: $APIKEY" -H "Authorization: Bearer $key" \
    "http://127.0.0.1:18089/v1/deals?limit=1" >/dev/null # warm-up
  local out c0 r0 c1 r1
  c0=$(cpu "$pid"); r0=$(cpu "$redis_pid")
  out=$(wrk -t2 -c16 -d"${secs}s" -H "apikey: $APIKEY" -H "Authorization: Bearer $key" \
    "http://127.0.0.1:18089/v1/deals?limit=1")
  c1=$(cpu "$pid"); r1=$(cpu "$redis_pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  # name, requests/s, requests, CPU ticks of the server, of redis-server
  echo "$name $(echo "$out" | awk '/Requests\/sec/ {print $2}') $(echo "$out" | awk '/requests in/ {print $1}') \
    $((c1 - c0)) $((r1 - r0))"
}

results=$(
  for r in $(seq 1 "$rounds"); do
    run off "$bin" RATE_LIMITS=false | sed "s/^/$r /"
    run memory "$bin" RATE_LIMITS=true | sed "s/^/$r /"
    run redis "$bin" RATE_LIMITS=true REDIS_URL=$redis_url | sed "s/^/$r /"
    if [ -n "${OTHER_BIN:-}" ]; then
      run redis-other "$OTHER_BIN" RATE_LIMITS=true REDIS_URL=$redis_url | sed "s/^/$r /"
    fi
  done
)
tick=$(getconf CLK_TCK)
echo "$results" | awk -v tick="$tick" '{printf "round %s  %-11s %8.0f req/s  %5.1f us CPU/request (server %5.1f, redis %4.1f)\n",
  $1, $2, $3, ($5 + $6) * 1e6 / tick / $4, $5 * 1e6 / tick / $4, $6 * 1e6 / tick / $4}'
echo "$results" | awk -v rounds="$rounds" -v tick="$tick" '
  {rps[$2] += $3; req[$2] += $4; cpu[$2] += $5 + $6; if (!($2 in seen)) {order[++n] = $2; seen[$2] = 1}}
  END {for (i = 1; i <= n; i++) { k = order[i]
    printf "%-11s %8.0f req/s  %.2fx of limits off   %5.1f us CPU/request  %.2fx of limits off\n",
      k, rps[k] / rounds, rps[k] / rps["off"], cpu[k] * 1e6 / tick / req[k], (cpu["off"] / req["off"]) / (cpu[k] / req[k]) }}'
psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
