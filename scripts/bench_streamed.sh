#!/usr/bin/env bash
# Streamed against resident (issue 7's goal: a build at --memory 64M at most 1.3x the resident
# one): builds the KRNKAABB family from an empty directory, resident (default budget) and at
# --memory 64M, alternating, PAIRS times (default 2), 2 threads; prints each run's wall and CPU
# seconds and peak RSS, each pair's wall ratio and the mean ratio. Alternating pairs is fairer
# than one run of each on a shared machine whose speed drifts. Nothing is kept.
# Usage: scripts/bench_streamed.sh [PAIRS] [MATERIAL]
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-2}"
mat="${2:-KRNKAABB}"
[ -x /usr/bin/time ] || { echo "bench_streamed: needs GNU time (/usr/bin/time)" >&2; exit 1; }
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() { # mode args... -> "wall cpu kib"
  local dir="$work/$1"; shift
  rm -rf "$dir"
  /usr/bin/time -o "$work/t" -f '%e %U %S %M' "$xq" build "$mat" --dir "$dir" --threads 2 --quiet "$@" >/dev/null
  awk '{printf "%s %.2f %d\n", $1, $2 + $3, $4 / 1024}' "$work/t"
}
printf '%-5s %-10s %8s %8s %9s\n' pair run "wall s" "CPU s" "peak MiB"
sum=0
for k in $(seq 1 "$pairs"); do
  read -r rw rc rm < <(run resident)
  printf '%-5s %-10s %8s %8s %9s\n' "$k" resident "$rw" "$rc" "$rm"
  read -r sw sc sm < <(run streamed --memory 64M)
  printf '%-5s %-10s %8s %8s %9s\n' "$k" "64M" "$sw" "$sc" "$sm"
  r=$(awk -v s="$sw" -v r="$rw" 'BEGIN {printf "%.2f", s / r}')
  echo "pair $k: streamed / resident wall $r"
  sum=$(awk -v a="$sum" -v b="$r" 'BEGIN {print a + b}')
done
awk -v s="$sum" -v n="$pairs" 'BEGIN {printf "mean streamed / resident wall: %.2f over %d pairs\n", s / n, n}'
