#!/usr/bin/env bash
# What a student's phone downloads: prints the raw, gzip and brotli size of each file the release
# build put under target/site/pkg (`cargo leptos build --release --precompress --split` writes the
# .gz and .br beside each): the wasm every page loads, the code of each screen split from it, the
# JS glue, the style sheet. Then it starts the release server on a free port with a throw-away
# data folder and measures each page's first visit on the wire as a browser that accepts brotli
# makes it: the page and every file it names (the style sheet, the script, the wasm, the code of
# its screen, its language's sentences) and the two Bangla fonts the style sheet loads. The lab's first visit (the page of
# a new sandbox) is listed file by file: first what it loads before Send works, then the code of
# the panels it draws after (src/app/lab/later.rs: `lab_later` in the split build's manifest,
# with the shared pieces it needs) and the fonts, which the style sheet asks for last.
#
# The pages sent without code (src/app/mod.rs, `SERVER_ONLY`: the front page, the glossary, the
# summary) must name no wasm and no script, and each must stay under SIZE_PLAIN_PAGE_MAX_KB on the
# wire (the budget for a page other than the lab is 150 KB; the ceiling is today's size plus a little).
#
# Fails when a file under /pkg is not sent as brotli under a name the browser may keep for good
# (its hash in it), when a page is not sent as brotli, or when the wasm every page loads is over
# SIZE_WASM_BR_MAX_KB of brotli, the lab's first visit up to Send over SIZE_SEND_VISIT_MAX_KB or
# the whole of it over SIZE_FIRST_VISIT_MAX_KB (defaults
# below: the sizes of today's build plus a little, so the browser build cannot grow unnoticed;
# BENCHMARKS.md says how far they are from the budget of 200 KB and 350 KB the lab aims at).
#
# Usage: scripts/size.sh target/release/pocketpay-lab
set -euo pipefail

bin=${1:?usage: scripts/size.sh <path to the release pocketpay-lab server binary>}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
max_wasm_kb=${SIZE_WASM_BR_MAX_KB:-342}
max_send_kb=${SIZE_SEND_VISIT_MAX_KB:-406}
max_visit_kb=${SIZE_FIRST_VISIT_MAX_KB:-782}
max_plain_kb=${SIZE_PLAIN_PAGE_MAX_KB:-106}

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

python3 - "$root/target/site/pkg" "http://127.0.0.1:$port" "$max_wasm_kb" "$max_send_kb" "$max_visit_kb" "$max_plain_kb" <<'EOF'
import gzip, json, os, re, subprocess, sys, time, urllib.request

pkg, base = sys.argv[1], sys.argv[2]
max_wasm_kb, max_send_kb, max_visit_kb, max_plain_kb = (int(a) for a in sys.argv[3:7])
# The pages sent without code (src/app/mod.rs, SERVER_ONLY).
plain_pages = ["/", "/glossary", "/summary"]

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
# A screen's split code is named split___<screen>_route_view_<n>.<hash>.wasm; the code two
# screens share, chunk_<n>.<hash>.wasm.
short = lambda name: re.sub(r"^split___(\w+?)_route_view_\d+\.", r"(the \1 screen) ", name)
print(f"{'files under target/site/pkg:':58} {'raw':>11} {'gzip':>11} {'brotli':>11}")
main_wasm = None
for name in sorted(os.listdir(pkg)):
    if name.endswith((".gz", ".br", ".ts")):
        continue
    path = os.path.join(pkg, name)
    raw, gz, br = os.path.getsize(path), gzip_size(path), brotli_size(path)
    if re.fullmatch(r"pocketpay-lab\.[\w-]+\.wasm", name):
        main_wasm = (name, br)
    print(f"  {short(name):56} {kb(raw)} {kb(gz)} {kb(br)}")
if main_wasm is None:
    sys.exit("size: no pocketpay-lab.<hash>.wasm under target/site/pkg (built with --release?)")

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

problems = []

def first_visit(page):
    """Every file a first visit to `page` downloads, as (path, bytes on the wire, encoding)."""
    body, headers = get(page)
    if headers.get("Content-Encoding") != "br":
        problems.append(f"{page} was not sent as brotli")
    visit = [(page, len(body), headers.get("Content-Encoding") or "none")]
    # The same page as text, to find what it loads: the style sheet, the script and the wasm it
    # preloads, the split code of its screen, the sentences of its language.
    html = get(page, {"Accept-Encoding": "identity"})[0].decode(errors="replace")
    assets = sorted(set(re.findall(r'(/(?:pkg|strings)/[^"\' )]+)', html)))
    if page in plain_pages:
        code = [a for a in assets if not a.endswith(".css")]
        if code:
            problems.append(f"{page} is to be sent without code but names {code}")
    elif f"/pkg/{main_wasm[0]}" not in assets:
        problems.append(f"{page} does not name {main_wasm[0]}")
        assets.append(f"/pkg/{main_wasm[0]}")
    for a in [a for a in assets if a.endswith(".css")]:
        css = get(a, {"Accept-Encoding": "identity"})[0].decode(errors="replace")
        assets += sorted(set(re.findall(r'url\("?(/[^")]+\.woff2)', css)))
    # The scripts' own imports (the split build's loader), which the browser fetches too.
    for a in [a for a in assets if a.endswith(".js")]:
        js = get(a, {"Accept-Encoding": "identity"})[0].decode(errors="replace")
        folder = a.rsplit("/", 1)[0]
        assets += sorted(set(f"{folder}/{m}" for m in re.findall(r'from\s*"\./([^"]+\.js)"', js)))
    for a in dict.fromkeys(assets):
        body, h = get(a)
        visit.append((a, len(body), h.get("Content-Encoding") or "none"))
        if a.startswith(("/pkg/", "/strings/")):
            # Sent as brotli, and kept for good under its hashed name.
            if h.get("Content-Encoding") != "br":
                problems.append(f"{a} was not sent as brotli")
            if "immutable" not in (h.get("Cache-Control") or ""):
                problems.append(f"{a} may not be cached for good: {h.get('Cache-Control')!r}")
    return visit

req = urllib.request.Request(base + "/api/sandboxes", data=b"{}", method="POST",
                             headers={"Content-Type": "application/json"})
sandbox = json.load(urllib.request.urlopen(req, timeout=30))["id"]
lab = first_visit(f"/lab/{sandbox}")
send_total = sum(n for _, n, _ in lab)
# The later panels' code: the split module `lab_later` and the shared pieces the manifest says
# it loads with it, fetched once the phone is live.
manifests = [n for n in os.listdir(pkg) if re.fullmatch(r"__wasm_split_manifest\.[\w-]+\.json", n)]
if not manifests:
    sys.exit("size: no __wasm_split_manifest.<hash>.json under target/site/pkg (built with --split?)")
manifest = json.load(open(os.path.join(pkg, manifests[0])))
if "lab_later" not in manifest:
    sys.exit("size: the split build has no lab_later module (src/app/lab/later.rs)")
later = []
for name in manifest["lab_later"]:
    body, h = get(f"/pkg/{name}.wasm")
    later.append((f"/pkg/{name}.wasm", len(body), h.get("Content-Encoding") or "none"))
    if h.get("Content-Encoding") != "br":
        problems.append(f"/pkg/{name}.wasm was not sent as brotli")
# The fonts come after too: the style sheet asks for them only once the page is all live
# (style/main.css, `:root:not([data-hydrated])`).
later += [v for v in lab if v[0].endswith(".woff2")]
lab = [v for v in lab if not v[0].endswith(".woff2")]
send_total = sum(n for _, n, _ in lab)
later_total = sum(n for _, n, _ in later)
total = send_total + later_total
print("\nthe lab's first visit on the wire (Accept-Encoding: br, gzip), up to Send working:")
for path, n, enc in lab:
    shown = "/lab/{id} (the page)" if path.startswith("/lab/") else short(path)
    print(f"  {shown:56} {kb(n)}  {enc}")
print(f"  {'total, up to Send working':56} {kb(send_total)}")
print(f"then the later panels' code and the fonts, {len(later)} files:")
largest = sorted(later, key=lambda v: -v[1])
for path, n, enc in largest[:5]:
    print(f"  {short(path):56} {kb(n)}  {enc}")
print(f"  {'… the other ' + str(len(largest[5:])) + ' files':56} {kb(sum(n for _, n, _ in largest[5:]))}")
print(f"  {'total, the later panels and the fonts':56} {kb(later_total)}")
print(f"  {'the whole lab':56} {kb(total)}")

print("\nevery page's first visit on the wire (the fonts among it):")
for page in ["/", f"/lab/{sandbox}", "/run", "/quiz", "/glossary", "/summary", "/calculators", "/day"]:
    visit = lab + later if page.startswith("/lab/") else first_visit(page)
    if page in plain_pages and sum(n for _, n, _ in visit) > max_plain_kb * 1024:
        problems.append(f"{page}, sent without code, is over {max_plain_kb} KB")
    split = sum(n for p, n, _ in visit if p.startswith("/pkg/") and p.endswith(".wasm")
                and not p.endswith(main_wasm[0]))
    shown = "/lab/{id}" if page.startswith("/lab/") else page
    note = "   (sent without code)" if page in plain_pages else f"   its screen's split code {kb(split)}"
    print(f"  {shown:14} {kb(sum(n for _, n, _ in visit))}{note}")

print(f"\nthe wasm every page loads (brotli) {main_wasm[1] / 1024:.1f} KB, at most {max_wasm_kb} KB "
      f"allowed; the lab's first visit up to Send {send_total / 1024:.1f} KB, at most {max_send_kb} KB "
      f"allowed, all of it {total / 1024:.1f} KB, at most {max_visit_kb} KB allowed; a page sent "
      f"without code at most {max_plain_kb} KB")
if (main_wasm[1] > max_wasm_kb * 1024 or send_total > max_send_kb * 1024
        or total > max_visit_kb * 1024):
    problems.append("over the ceiling")
for p in problems:
    print(f"size: {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
