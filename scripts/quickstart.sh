#!/usr/bin/env bash
# The main job for a new user: build xqtb (release) and show what it does today —
# perft of the start position, the legal moves of a query-system position, and the index
# report of a small material.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "quickstart: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
cargo build --release --locked --quiet
xq="${CARGO_TARGET_DIR:-target}/release/xqtb"
echo "== perft 4 from the start position (published count: 3,290,240)"
"$xq" perft 4
echo "== legal moves of the query system's KNKA example (4K44B49994n495k399)"
"$xq" moves 4K44B49994n495k399 | tr '\n' ' '; echo
echo "== index of KRKAABB (expected legal counts: 719,532 Red to move, 840,762 Black to move)"
"$xq" index KRKAABB
