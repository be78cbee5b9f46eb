#!/usr/bin/env bash
# Benchmarks of the rules core and the index: criterion throughputs (perft leaves/s, index
# decode/encode, the builder's forward and backward steps), then whole-program perft 5 and
# `index` runs timed with peak RSS. Run on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
cargo bench --locked --bench core 2>/dev/null | grep -E '^[a-z].*\(|thrpt' | sed 's/^ *//'
xq=target/release/xqtb
run() {
  local label=$1; shift
  local out
  out=$( { /usr/bin/time -f '%e %M' "$xq" "$@" >/dev/null; } 2>&1 )
  printf '%-32s %8.2f s  peak RSS %6d KiB\n' "$label" ${out% *} ${out#* }
}
run "perft 5 (133,312,995 leaves)" perft 5
s=$( { /usr/bin/time -f '%e' "$xq" perft 5 >/dev/null; } 2>&1 )
awk -v s="$s" 'BEGIN { printf "perft 5: %.1f M leaves/s (single thread)\n", 133312995 / s / 1e6 }'
run "index KRKAABB" index KRKAABB
run "index KRNKAABB" index KRNKAABB
