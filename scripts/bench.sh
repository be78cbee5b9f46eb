#!/usr/bin/env bash
# Benchmarks of the rules core and the index: criterion throughputs (perft leaves/s, index
# decode/encode, the builder's forward and backward steps), then whole commands timed with
# their peak RSS (GNU time). Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench.sh: needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }
cargo build --release --locked --quiet
cargo bench --locked --bench core 2>/dev/null | grep -E '^[a-z].*\(|thrpt' | grep -v '%' | sed 's/^ *//'
xq="${CARGO_TARGET_DIR:-target}/release/xqtb"
run() { # label, expected leaves or empty, command...
  local label=$1 leaves=$2; shift 2
  local out secs rss
  out=$( { /usr/bin/time -f '%e %M' "$xq" "$@" >/dev/null; } 2>&1 )
  secs=${out% *} rss=${out#* }
  printf '%-34s %7.2f s  peak RSS %7d KiB' "$label" "$secs" "$rss"
  [ -n "$leaves" ] && awk -v n="$leaves" -v s="$secs" 'BEGIN { printf "  %.1f M leaves/s", n / s / 1e6 }'
  echo
}
run "perft 5 (133,312,995 leaves)" 133312995 perft 5
run "index KRKAABB (2 x 573,480)" "" index KRKAABB --quiet
run "index KRNKAABB (2 x 51,613,200)" "" index KRNKAABB --quiet
