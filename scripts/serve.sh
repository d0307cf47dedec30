#!/usr/bin/env bash
# Builds the release site and server, then serves the lab and prints its URL.
# LEPTOS_SITE_ADDR (default 127.0.0.1:3000) and LAB_DATA_DIR (default ./data) are honoured.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

printf '\n==> building the release site and server (browser files precompressed)\n'
cargo leptos build --release --precompress --split

export LEPTOS_SITE_ROOT=target/site
export LEPTOS_SITE_ADDR="${LEPTOS_SITE_ADDR:-127.0.0.1:3000}"
printf '\n==> serving the lab at http://%s/lab  (Ctrl-C stops it)\n' "$LEPTOS_SITE_ADDR"
exec ./target/release/pocketpay-lab
