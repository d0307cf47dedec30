#!/usr/bin/env bash
# The chaos test against the release server: `scripts/chaos.sh [kills] [seed]` (default 10 kills,
# a drawn seed, printed). Builds the release server if needed, then kills it with SIGKILL
# `kills` times while sandboxes send transfers through a lossy network with crash faults, and
# checks every sandbox's stores like a bank (tests/chaos.rs says what). CHAOS_SANDBOXES sets how
# many sandboxes send at once (default 4).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
if [ ! -x target/release/pocketpay-lab ]; then
  cargo build --release --features ssr --bin pocketpay-lab
fi
export CHAOS_SERVER="$ROOT/target/release/pocketpay-lab"
export CHAOS_KILLS="${1:-${CHAOS_KILLS:-10}}"
if [ -n "${2:-}" ]; then export CHAOS_SEED="$2"; fi
exec cargo test --features ssr --test chaos -- --ignored --nocapture
