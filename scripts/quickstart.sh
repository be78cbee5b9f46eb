#!/usr/bin/env bash
# The main job for a new user: build xqtb (release), build the KNKA table (with its supporting
# tables) into ./tables, verify it, show its statistics and probe the query system's example.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "quickstart: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
cargo build --release --locked --quiet
xq="${CARGO_TARGET_DIR:-target}/release/xqtb"
dir="${XQTB_DIR:-tables}"
echo "== build KNKA (a horse against a lone advisor) and its supporting tables into $dir/"
"$xq" build KNKA --dir "$dir"
echo "== verify: checksums, then every entry against its children (Fang 5.4)"
"$xq" verify --dir "$dir" KNKA
echo "== statistics (published: Red to move 21,366 wins / 60 draws; Black to move 816 draws / 21,990 losses; longest win 29 plies)"
"$xq" stats --dir "$dir" KNKA | grep -v "distance"
echo "== probe the query system's example 4K44B49994n495k399 (its recommended move is N5+7, e4c5)"
"$xq" probe --dir "$dir" 4K44B49994n495k399
