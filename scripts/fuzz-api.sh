#!/usr/bin/env bash
# Fuzzes the HTTP API against its own OpenAPI document with Schemathesis, every check on:
# starts the given server binary on a free port with a temporary data folder, runs
# `schemathesis run` with a fixed seed and a bounded number of examples per operation, stops
# the server, prints how many requests were generated and how many failures were found, and
# exits non-zero on any failure.
#
# Usage: scripts/fuzz-api.sh target/release/pocketpay-lab   (or target/debug/pocketpay-lab)
# Settings: FUZZ_EXAMPLES (examples per operation, default 40), FUZZ_SEED (default 20240917).
# Schemathesis 4.32 is installed with pip into target/fuzz-venv when it is not there yet.
# The per-operation settings (and why each is there) are in scripts/fuzz-api.toml.
set -euo pipefail

bin=${1:?usage: scripts/fuzz-api.sh <path to the pocketpay-lab server binary>}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -x "$bin" ] || { echo "fuzz-api: $bin is not an executable" >&2; exit 2; }
venv=$root/target/fuzz-venv
examples=${FUZZ_EXAMPLES:-40}
seed=${FUZZ_SEED:-20240917}

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q ' 4\.32\.'; then
  echo "fuzz-api: installing schemathesis 4.32 into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.*'
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d)
report=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$data" "$report"
}
trap cleanup EXIT

# The limits a classroom needs would only get in the fuzzer's way: one client, thousands of
# requests a minute, hundreds of sandboxes. A transfer whose answer does not come within 2 s
# (a paused clock, minutes of latency) answers 504 `no-response`, as documented: the default
# bound is 10 s, shortened here so the run takes less time.
(
  cd "$root"
  LEPTOS_SITE_ADDR=127.0.0.1:$port LAB_DATA_DIR=$data \
    LAB_RATE_PER_SEC=1000000 LAB_RATE_BURST=1000000 LAB_MAX_SANDBOXES=1000000 \
    LAB_MAX_STREAMS=1000 LAB_TRANSFER_WAIT_SECS=2 RUST_LOG=error \
    exec "$bin" >/dev/null
) &
server=$!

url=http://127.0.0.1:$port/api/openapi.json
for _ in $(seq 1 300); do
  if python3 -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$url" 2>/dev/null; then
    break
  fi
  kill -0 "$server" 2>/dev/null || { echo "fuzz-api: the server exited" >&2; exit 2; }
  sleep 0.1
done

set +e
# From the report folder: Schemathesis keeps its own files where it runs.
(cd "$report" && "$venv/bin/schemathesis" --config-file "$root/scripts/fuzz-api.toml" run "$url" \
  --checks all --seed "$seed" --max-examples "$examples" --workers 1 \
  --generation-database none --no-color \
  --report ndjson --report-ndjson-path "$report/events.ndjson")
status=$?
set -e

# The figures, from the run's events: every request sent, every check that failed.
python3 - "$report/events.ndjson" <<'EOF'
import json, sys
requests, failures = set(), set()
for line in open(sys.argv[1]):
    finished = json.loads(line).get("ScenarioFinished")
    if not finished:
        continue
    recorder = finished.get("recorder", {})
    requests.update(recorder.get("interactions", {}).keys())
    for case, checks in recorder.get("checks", {}).items():
        failures.update((case, c["name"]) for c in checks if c.get("status") == "failure")
print(f"fuzz-api: {len(requests)} requests generated, {len(failures)} failures")
EOF

if [ "$status" -ne 0 ]; then
  echo "fuzz-api: schemathesis found failures (exit $status)" >&2
fi
exit "$status"
