#!/usr/bin/env bash
# Builds the KRNKAABB family (K+R+N against every subset of two advisors and two elephants,
# with the K+R and K+N tables it captures into: 27 tables, plus the 9 trivial defender-only
# tables) one table per process, and prints per table: legal positions, wall time,
# positions/s, peak RSS. Usage: scripts/bench_family.sh [extra build args, e.g. --memory 64M]
# Needs GNU time (/usr/bin/time). Tables go to a fresh temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench_family: needs GNU time (/usr/bin/time; Debian package 'time')" >&2; exit 1; }
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
subsets=("" A B AA AB BB AAB ABB AABB)
tables=()
for s in "${subsets[@]}"; do [ -n "$s" ] && tables+=("K${s}K"); done
tables=(KK "${tables[@]}")
for p in R N RN; do for s in "${subsets[@]}"; do tables+=("K${p}K${s}"); done; done
printf '%-10s %14s %9s %12s %10s\n' table positions seconds "M pos/s" "peak MiB"
total=0
start=$(date +%s.%N)
for t in "${tables[@]}"; do
  line=$(/usr/bin/time -f 'TIME %e %M' "$xq" build "$t" --dir "$dir" --quiet "$@" 2>"$dir/time.txt" | grep "^$t " || true)
  read -r _ wall rss < <(grep '^TIME' "$dir/time.txt")
  pos=$(awk '{gsub(",", "", $3); print $3}' <<<"$line")
  [ -n "$pos" ] || { echo "bench_family: $t did not build: $(cat "$dir/time.txt")" >&2; exit 1; }
  rate=$(awk -v p="$pos" -v w="$wall" 'BEGIN{ printf "%.2f", (w > 0 ? p / w / 1e6 : 0) }')
  printf '%-10s %14s %9s %12s %10d\n' "$t" "$pos" "$wall" "$rate" $((rss / 1024))
done
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" -v n="${#tables[@]}" 'BEGIN{ printf "family: %d tables, %.1f s wall in all\n", n, b - a }'
