#!/usr/bin/env bash
# The main job for a new user: build xqtb (release), build the KNKA table (with its supporting
# tables) into ./tables, verify it, show its statistics and probe the query system's example;
# then say how to serve the tables to a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "quickstart: cargo not found; install Rust (https://rustup.rs)" >&2; exit 1; }
echo "== compile xqtb (release build; the first one fetches and compiles every dependency: a few minutes)"
cargo build --release --locked
xq="${CARGO_TARGET_DIR:-target}/release/xqtb"
dir="${XQTB_DIR:-tables}"
echo "== build KNKA (a horse against a lone advisor) and its supporting tables into $dir/"
"$xq" build KNKA --dir "$dir"
echo "== verify: checksums, then every entry against its children (Fang 5.4)"
"$xq" verify --dir "$dir" KNKA
echo "== statistics (published: Red to move 21,366 wins / 60 draws; Black to move 816 draws / 21,990 losses; longest win 29 plies)"
"$xq" stats --dir "$dir" KNKA | grep -v "distance"
echo "== probe the query system's example 4K44B49994n495k399 (its recommended move: H5+7, 傌五進七, e4c5)"
"$xq" probe --dir "$dir" 4K44B49994n495k399
cat <<EOF

Done. To look at the tables in a browser, serve them:
  $xq serve --dir $dir
and open http://127.0.0.1:8080/ (the example: http://127.0.0.1:8080/?4K44B49994n495k399).
To type \`xqtb\` instead of $xq: cargo install --path . --locked (it goes to ~/.cargo/bin).
EOF
