#!/usr/bin/env bash
# Lighthouse's mobile audit (simulated slow 4G, CPU ×4: its defaults) of the release server's
# pages, each a cold visit in Debian's Chromium. Keeps Lighthouse's own JSON per page under
# benches/lighthouse/reports/ as the record and prints one line a page (BENCHMARKS.md,
# "Lighthouse on a phone").
#   benches/lighthouse/run.sh [server binary] [page …]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="${1:-$root/target/release/pocketpay-lab}"
shift || true
pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(/ /lab /quiz /glossary /teach)
port="${LIGHTHOUSE_PORT:-3471}"
[ -d "$here/node_modules/lighthouse" ] || (cd "$here" && npm ci --no-audit --no-fund >/dev/null)
data="$(mktemp -d)"
LEPTOS_SITE_ADDR="127.0.0.1:$port" LEPTOS_SITE_ROOT="$root/target/site" LAB_DATA_DIR="$data" \
  RUST_LOG=warn "$server" >"$data/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
mkdir -p "$here/reports"
printf '%-10s %5s %7s %7s %6s %8s\n' page perf LCP TBT CLS KB
for page in "${pages[@]}"; do
  name="$(echo "${page#/}" | tr '/' '-')"; name="${name:-home}"
  out="$here/reports/$name.json"
  CHROME_PATH="${CHROMIUM:-/usr/bin/chromium}" "$here/node_modules/.bin/lighthouse" \
    "http://127.0.0.1:$port$page" --quiet --output=json --output-path="$out" \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run"
  node -e '
    const r = require(process.argv[1]);
    const a = r.audits, n = (id) => a[id].numericValue;
    console.log([process.argv[2].padEnd(10), r.categories.performance.score.toFixed(2).padStart(5),
      ((n("largest-contentful-paint") / 1000).toFixed(1) + " s").padStart(7),
      (Math.round(n("total-blocking-time")) + " ms").padStart(7),
      n("cumulative-layout-shift").toFixed(3).padStart(6),
      Math.round(n("total-byte-weight") / 1024).toString().padStart(8)].join(" "));
  ' "$out" "$page"
done
