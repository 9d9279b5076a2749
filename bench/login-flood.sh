#!/usr/bin/env bash
# Load run: memory under a login flood. Builds the server from a base revision (default
# main) and from the work tree, starts each in turn against one database, and sends the
# same flood of wrong-password sign-ins to /oauth/login: N requests, C at a time, each from
# another address (X-Forwarded-For, TRUSTED_PROXIES=127.0.0.1/32) and for another email, so
# neither per-IP nor per-account throttling stops it and only the bound on concurrent
# password checks holds memory. Prints resident memory before the flood, the peak (VmHWM)
# after it, and the status counts.  Traffic goes to 127.0.0.1 only.
#   bash bench/login-flood.sh [requests] [concurrency] [base revision]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-120}
c=${2:-12}
base=${3:-main}
admin_url=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
db=ws_loginflood
db_url=${admin_url%/*}/$db?sslmode=disable
addr=127.0.0.1:18091

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/workspaced-base" ./cmd/workspaced)
go build -o "$tmp/workspaced-head" ./cmd/workspaced
psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
export DATABASE_URL=$db_url APIKEY=loginflood-key LOG_LEVEL=error TRUSTED_PROXIES=127.0.0.1/32 LISTEN_ADDR=$addr
"$tmp/workspaced-head" migrate >/dev/null

kib() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$2/status"; }

run() { # name, binary
  local name=$1 bin=$2
  "$bin" serve >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do curl -fs "$addr/readyz" >/dev/null && break; sleep 0.1; done
  local jar=$tmp/jar csrf
  csrf=$(curl -s -c "$jar" "$addr/oauth/login" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p')
  sleep 1
  local before
  before=$(kib VmRSS "$pid")
  seq 1 "$n" | xargs -P "$c" -I{} curl -s -o /dev/null -w '%{http_code}\n' -b "$jar" \
    -H "X-Forwarded-For: 10.$(( RANDOM % 250 )).{}.$(( RANDOM % 250 ))" \
    --data-urlencode "csrf=$csrf" --data-urlencode "email=flood-{}@example.test" \
    --data-urlencode "password=wrong password" "$addr/oauth/login" >"$tmp/codes"
  local peak
  peak=$(kib VmHWM "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  printf '%-5s RSS before %4d MiB, peak %4d MiB (+%d MiB); answers: %s\n' "$name" $((before / 1024)) $((peak / 1024)) \
    $(((peak - before) / 1024)) "$(sort "$tmp/codes" | uniq -c | awk '{printf "%s x%s ", $2, $1}')"
}

run base "$tmp/workspaced-base"
run head "$tmp/workspaced-head"
run base "$tmp/workspaced-base"
run head "$tmp/workspaced-head"
psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
