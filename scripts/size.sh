#!/usr/bin/env bash
# What a student's phone downloads: prints the raw, gzip and brotli size of each file the release
# build put under target/site/pkg (the wasm, its JS glue, the style sheet; `cargo leptos build
# --release --precompress` writes the .gz and .br beside each), then starts the release server on
# a free port with a throw-away data folder and measures the lab's first visit on the wire as a
# browser that accepts brotli makes it: the page of a new sandbox and every file it loads (the
# style sheet, the script, the wasm, the two Bangla fonts).
#
# Fails when a file under /pkg is not sent as brotli under a name the browser may keep for good
# (its hash in it), when the page is not sent as brotli, or when the wasm's brotli size is over
# SIZE_WASM_BR_MAX_KB or the first visit over
# SIZE_FIRST_VISIT_MAX_KB (defaults below: the sizes of today's build plus a little, so the
# browser build cannot grow unnoticed; BENCHMARKS.md says how far they are from the budget of
# 200 KB and 350 KB the lab aims at).
#
# Usage: scripts/size.sh target/release/pocketpay-lab
set -euo pipefail

bin=${1:?usage: scripts/size.sh <path to the release pocketpay-lab server binary>}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
max_wasm_kb=${SIZE_WASM_BR_MAX_KB:-570}
max_visit_kb=${SIZE_FIRST_VISIT_MAX_KB:-690}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap cleanup EXIT

(
  cd "$root"
  LEPTOS_SITE_ADDR=127.0.0.1:$port LEPTOS_SITE_ROOT=target/site LAB_DATA_DIR=$data RUST_LOG=error \
    exec "$bin" >/dev/null
) &
server=$!

python3 - "$root/target/site/pkg" "http://127.0.0.1:$port" "$max_wasm_kb" "$max_visit_kb" <<'EOF'
import gzip, json, os, re, subprocess, sys, time, urllib.request

pkg, base, max_wasm_kb, max_visit_kb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def brotli_size(path):
    # The precompressed file when the build wrote one, else Node's brotli at its best.
    if os.path.exists(path + ".br"):
        return os.path.getsize(path + ".br")
    out = subprocess.run(["node", "-e", "const z=require('zlib'),fs=require('fs');"
        "process.stdout.write(String(z.brotliCompressSync(fs.readFileSync(process.argv[1]),"
        "{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))", path],
        capture_output=True, text=True, check=True)
    return int(out.stdout)

def gzip_size(path):
    if os.path.exists(path + ".gz"):
        return os.path.getsize(path + ".gz")
    return len(gzip.compress(open(path, "rb").read(), 9))

kb = lambda n: f"{n / 1024:8.1f} KB"
print("files under target/site/pkg:          raw        gzip      brotli")
wasm_br = 0
for name in sorted(os.listdir(pkg)):
    if name.endswith((".gz", ".br")):
        continue
    path = os.path.join(pkg, name)
    raw, gz, br = os.path.getsize(path), gzip_size(path), brotli_size(path)
    if name.endswith(".wasm"):
        wasm_br += br
    print(f"  {name:34} {kb(raw)} {kb(gz)} {kb(br)}")

for _ in range(300):
    try:
        urllib.request.urlopen(base + "/api/openapi.json", timeout=1)
        break
    except Exception:
        time.sleep(0.1)

def get(path, headers=None):
    req = urllib.request.Request(base + path, headers={"Accept-Encoding": "br, gzip", **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read(), r.headers

req = urllib.request.Request(base + "/api/sandboxes", data=b"{}", method="POST",
                             headers={"Content-Type": "application/json"})
sandbox = json.load(urllib.request.urlopen(req, timeout=30))["id"]
page, headers = get(f"/lab/{sandbox}")
visit = [(f"/lab/{sandbox}", len(page), headers.get("Content-Encoding") or "none")]
# The same page as text, to find what it loads (the page of the same sandbox, so the same links).
html = get(f"/lab/{sandbox}", {"Accept-Encoding": "identity"})[0].decode(errors="replace")
assets = sorted(set(re.findall(r'(/pkg/[^"\' )]+)', html)))
css = [a for a in assets if a.endswith(".css")]
for a in css:
    body, _ = get(a, {"Accept-Encoding": "identity"})
    assets += sorted(set(re.findall(r'url\("?(/[^")]+\.woff2)', body.decode(errors="replace"))))
problems = []
for a in dict.fromkeys(assets):
    body, h = get(a)
    visit.append((a, len(body), h.get("Content-Encoding") or "none"))
    if a.startswith("/pkg/"):
        # Sent as brotli, and kept for good under its hashed name.
        if h.get("Content-Encoding") != "br":
            problems.append(f"{a} was not sent as brotli")
        if "immutable" not in (h.get("Cache-Control") or ""):
            problems.append(f"{a} may not be cached for good: {h.get('Cache-Control')!r}")
# The script loads the wasm itself, by the name the build gave it.
for w in sorted(f for f in os.listdir(pkg) if f.endswith(".wasm")):
    if not any(p.endswith(w) for p, _, _ in visit):
        body, h = get(f"/pkg/{w}")
        visit.append((f"/pkg/{w}", len(body), h.get("Content-Encoding") or "none"))

total = sum(n for _, n, _ in visit)
print("\nthe lab's first visit on the wire (Accept-Encoding: br, gzip):")
for path, n, enc in visit:
    shown = path if not path.startswith("/lab/") else "/lab/{id} (the page)"
    print(f"  {shown:44} {kb(n)}  {enc}")
print(f"  {'total':44} {kb(total)}")
print(f"\nwasm (brotli) {wasm_br / 1024:.1f} KB, at most {max_wasm_kb} KB allowed; "
      f"first visit {total / 1024:.1f} KB, at most {max_visit_kb} KB allowed")
if headers.get("Content-Encoding") != "br":
    problems.append("the page was not sent as brotli")
if wasm_br > max_wasm_kb * 1024 or total > max_visit_kb * 1024:
    problems.append("over the ceiling")
for p in problems:
    print(f"size: {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
