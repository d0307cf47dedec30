#!/usr/bin/env bash
# Runs every check and test: formatting, clippy for the server and for the browser build, the
# Rust unit and integration tests, a release build, and the Playwright tests in Chromium.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

started=$SECONDS
timings=()
run() {
  local name="$1"; shift
  printf '\n==> %s\n' "$name"
  local t=$SECONDS
  "$@"
  timings+=("$(printf '%5ss  %s' $((SECONDS - t)) "$name")")
}

run "cargo fmt --check" cargo fmt --all -- --check
run "clippy (ssr)" cargo clippy --features ssr --all-targets -- -D warnings
run "clippy (hydrate, wasm32)" cargo clippy --lib --features hydrate --target wasm32-unknown-unknown -- -D warnings
run "Rust unit and integration tests" cargo test --features ssr
run "release build (site and server)" cargo leptos build --release
run "Playwright end-to-end tests" bash -c 'cd end2end && npx playwright test'

printf '\n==> all checks passed in %ss\n' $((SECONDS - started))
printf '%s\n' "${timings[@]}"
