#!/usr/bin/env bash
# Runs every check and test: formatting, clippy for the server and for the browser build, the
# Rust unit and integration tests, a release build (its browser files precompressed with gzip and
# brotli), the size of what a phone downloads (scripts/size.sh), the chaos test (10 kills of the
# release server), the README's API commands run as written (tests/readme.rs), the API fuzzer
# against the OpenAPI document, and the Playwright tests in Chromium (with the README's sample outside
# test, written out by scripts/readme-sample.mjs).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# One build from scratch gains nothing from incremental caches, which would double the disk the
# build takes.
export CARGO_INCREMENTAL=0

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
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run "Rust unit and integration tests" bash -c "set -o pipefail; cargo test --features ssr 2>&1 | tee -a '$log'"
run "release build (site and server, precompressed)" cargo leptos build --release --precompress --split
run "browser bytes (files and the first visit, raw, gzip and brotli)" scripts/size.sh target/release/pocketpay-lab
run "chaos test (10 kills of the release server)" bash -c "set -o pipefail; CHAOS_SERVER='$PWD/target/release/pocketpay-lab' CHAOS_KILLS=10 cargo test --features ssr --test chaos -- --ignored --nocapture 2>&1 | tee -a '$log'"
run "the README's API commands, run as written (release server)" bash -c "set -o pipefail; README_SERVER='$PWD/target/release/pocketpay-lab' cargo test --features ssr --test readme -- --ignored --nocapture 2>&1 | tee -a '$log'"
run "API fuzzer (Schemathesis, every check)" scripts/fuzz-api.sh target/release/pocketpay-lab
run "Playwright end-to-end tests (the README's sample test among them)" bash -c "set -o pipefail; node scripts/readme-sample.mjs && cd end2end && npx playwright test 2>&1 | tee -a '$log'"

printf '\n==> all checks passed in %ss\n' $((SECONDS - started))
printf '%s\n' "${timings[@]}"
rust=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$log" | awk '{ n += $1 } END { print n + 0 }')
browser=$(sed -n 's/^ *\([0-9]*\) passed (.*/\1/p' "$log" | awk '{ n += $1 } END { print n + 0 }')
printf 'Rust tests %s, Playwright tests %s\n' "$rust" "$browser"
printf 'tests: %s passed, 0 failed\n' $((rust + browser))
