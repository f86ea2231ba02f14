#!/usr/bin/env bash
# The Dockerfile's steps on a clean copy of the committed tree, without a Docker daemon:
#   build stage    npm ci, npm run build
#   runtime stage  npm ci --omit=dev, dist/ + migrations/ + bin/ from the build
# then, from the runtime copy: the API on the embedded database (PGlite) until /readyz, the API
# (PARASOL_WORKERS=off) and a worker on a temporary PostgreSQL database, one CLI command from dist/,
# `parasol --help` timed, and a clean stop (exit 0; every line on stdout JSON). Exits non-zero on
# the first failure.
# Usage: .ci/image-smoke.sh   (PostgreSQL: PGHOST/PGPORT/PGUSER, default 127.0.0.1:5432 postgres)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/parasol-image-smoke.XXXXXX")"
pids=()
db=""
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -n "$db" ]; then psql -d postgres -q -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

step "clean copy of HEAD ($(git -C "$repo" rev-parse --short HEAD))"
mkdir -p "$work/build" "$work/app"
git -C "$repo" archive HEAD | tar -x -C "$work/build"

step "build stage: npm ci && npm run build"
(cd "$work/build" && npm ci --no-audit --no-fund --loglevel=error && npm run build)

step "runtime stage: npm ci --omit=dev, dist/, migrations/, bin/"
cp "$work/build/package.json" "$work/build/package-lock.json" "$work/app/"
(cd "$work/app" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
cp -R "$work/build/dist" "$work/build/migrations" "$work/build/bin" "$work/app/"
# (typescript itself stays: @scalar/api-reference's dependencies declare it as a peer)
if [ -e "$work/app/node_modules/fast-check" ] || [ -e "$work/app/src" ]; then echo "dev dependencies or sources in the runtime copy" >&2; exit 1; fi

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
wait_ready() { # url pid log
  for _ in $(seq 1 240); do
    if curl -fsS "$1" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$2" 2>/dev/null; then echo "process exited before $1 answered:" >&2; cat "$3" "${3%.log}.err" >&2; return 1; fi
    sleep 0.5
  done
  echo "no answer from $1 in 120 s:" >&2; cat "$3" >&2; return 1
}
stop() { # pid
  kill -TERM "$1"; wait "$1" || { echo "exit code $? on SIGTERM" >&2; return 1; }
}
all_json() { # log
  node -e "for (const l of require('fs').readFileSync(process.argv[1],'utf8').split('\n')) if (l.trim()) JSON.parse(l)" "$1" || { echo "a log line is not JSON: $1" >&2; cat "$1" >&2; return 1; }
}
key="$(node -e "console.log(require('crypto').randomBytes(32).toString('base64'))")"
cd "$work/app"
export PARASOL_MASTER_KEY="$key" HOST=127.0.0.1 NODE_ENV=production

step "CLI --help from dist (no database)"
start=$(date +%s%N)
PARASOL_DATA_DIR="$work/none" node bin/parasol.js --help >/dev/null
echo "parasol --help: $(( ($(date +%s%N) - start) / 1000000 )) ms"
test ! -e "$work/none"

step "API on the embedded database (PGlite)"
port=$(free_port)
PORT=$port PARASOL_DATA_DIR="$work/data" node dist/main.js >"$work/embedded.log" 2>"$work/embedded.err" & pids+=($!)
wait_ready "http://127.0.0.1:$port/readyz" "${pids[-1]}" "$work/embedded.log"
curl -fsS "http://127.0.0.1:$port/readyz"; echo
curl -fsS -o /dev/null "http://127.0.0.1:$port/assets/web.css"
curl -fsS -o /dev/null "http://127.0.0.1:$port/assets/htmx.min.js"
stop "${pids[-1]}"
all_json "$work/embedded.log"
step "CLI command from dist on the embedded database"
partners="$(PARASOL_DATA_DIR="$work/data" node bin/parasol.js partners list)"
grep -q demo-air <<<"$partners"

step "API (PARASOL_WORKERS=off) and a worker on PostgreSQL"
db="parasol_smoke_$(date +%s)_$$"
psql -d postgres -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE ${db}"
export DATABASE_URL="postgres://${PGUSER}@${PGHOST}:${PGPORT}/${db}"
node bin/parasol.js db migrate
port=$(free_port); metrics=$(free_port)
PORT=$port PARASOL_WORKERS=off PARASOL_DATA_DIR="$work/pg-api" node dist/main.js >"$work/api.log" 2>"$work/api.err" & pids+=($!)
api=${pids[-1]}
PARASOL_METRICS_PORT=$metrics PARASOL_DATA_DIR="$work/pg-worker" node dist/worker-main.js >"$work/worker.log" 2>"$work/worker.err" & pids+=($!)
worker=${pids[-1]}
wait_ready "http://127.0.0.1:$port/readyz" "$api" "$work/api.log"
curl -fsS "http://127.0.0.1:$port/readyz"; echo
wait_ready "http://127.0.0.1:$metrics/metrics" "$worker" "$work/worker.log"
test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 401
created="$(node bin/parasol.js operators token-create --name smoke)"
token="$(grep -o 'pso_[A-Za-z0-9_-]*' <<<"$created" | head -n 1)"
scraped="$(curl -fsS -H "Authorization: Bearer $token" "http://127.0.0.1:$port/metrics")"
grep -q '^parasol_job_queue_depth{queue="claims_notify"}' <<<"$scraped"
worker_metrics="$(curl -fsS "http://127.0.0.1:$metrics/metrics")"
grep -q '^# TYPE parasol_webhook_deliveries_total counter' <<<"$worker_metrics"
partners="$(node bin/parasol.js partners list)"
grep -q demo-air <<<"$partners"
stop "$api"
stop "$worker"
all_json "$work/api.log"
all_json "$work/worker.log"

step "image smoke test passed"
