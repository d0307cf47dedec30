#!/usr/bin/env bash
# Installs what building and testing the lab needs, skipping whatever is already there:
# Debian's Chromium and nginx, the wasm32 target, cargo-leptos (pinned, built so it never
# downloads tools), wasm-bindgen-cli at exactly the version in Cargo.lock, and the end-to-end
# npm packages (which bring Playwright and binaryen's wasm-opt). Nothing here or later fetches
# from outside the package registries. Sourced by serve.sh and test.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"

CARGO_LEPTOS_VERSION=0.3.10
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"

say() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's chromium (the browser the end-to-end tests drive)"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi

if [ ! -x /usr/sbin/nginx ]; then
  say "installing Debian's nginx-light (the load balancer tests/balancer.rs runs the lab behind)"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light
  # The package starts a system nginx on port 80; the tests start their own.
  as_root service nginx stop >/dev/null 2>&1 || true
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    rustup component add "$component"
  fi
done

if [ "$(cargo leptos --version 2>/dev/null || true)" != "cargo-leptos $CARGO_LEPTOS_VERSION" ]; then
  say "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 11 minutes on 2 cores, once per machine)"
  cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --features no_downloads --force
fi

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (must match Cargo.lock exactly)"
  # Not --locked: its lock names a webpki-roots version the registry no longer serves.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [ ! -f end2end/node_modules/.package-lock.json ] ||
   [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
  say "installing the end-to-end npm packages"
  (cd end2end && npm ci --no-audit --no-fund)
fi

# npm's wasm-opt must come first: Debian's binaryen (wasm-opt 108) silently corrupts the wasm.
export PATH="$ROOT/end2end/node_modules/binaryen/bin:$PATH"
