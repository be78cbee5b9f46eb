#!/usr/bin/env bash
# Two builders side by side on one streamed table: builds MATERIAL (its supporting tables taken
# from DIR, linked into a fresh directory) with binary A, then with binary B, PAIRS times
# (default 5) alternating, at --memory MEMORY (default 1G), 2 threads; prints each run's wall and
# CPU seconds, peak RSS, file-system outputs (GNU time's, 512-byte blocks, as bytes) and the
# store's writes (`build --verbose`), each pair's wall ratio B / A and the median ratio. Both
# tables are compared with `cmp` each round. For changes to the working store, e.g. A a build
# of an earlier commit. Nothing is kept.
# Usage: [PAIRS=5] [MEMORY=1G] scripts/bench_store.sh A B MATERIAL DIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: scripts/bench_store.sh A B MATERIAL DIR" >&2; exit 2; }
a="$(realpath "$1")"; b="$(realpath "$2")"; mat="$3"; src="$(realpath "$4")"
pairs="${PAIRS:-5}"; memory="${MEMORY:-1G}"
[ -x /usr/bin/time ] || { echo "bench_store: needs GNU time (/usr/bin/time)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_store.XXXXXX"); trap 'rm -rf "$work"' EXIT
mkdir "$work/subs"
for f in "$src"/*.xqtb; do
  [ "$(basename "$f")" = "$mat.xqtb" ] || ln -s "$f" "$work/subs/"
done
run() { # label binary -> "wall cpu mib outputs store"
  local dir="$work/$1"
  rm -rf "$dir" "$work/tmp"; cp -as "$work/subs" "$dir"
  /usr/bin/time -o "$work/t" -f '%e %U %S %M %O' "$2" build "$mat" --dir "$dir" --tmp "$work/tmp" \
    --memory "$memory" --threads 2 --verbose >"$work/out" 2>/dev/null
  local store
  store=$(grep -E "^$mat +store" "$work/out" | sed -E 's/.*wrote ([0-9.]+ [kMGT]?B).*/\1/' | tr -d ' ')
  awk -v s="${store:-?}" '{printf "%s %.1f %d %.2fGB %s\n", $1, $2 + $3, $4 / 1024, $5 * 512 / 1e9, s}' "$work/t"
}
printf '%-5s %-3s %8s %8s %9s %10s %10s\n' pair run "wall s" "CPU s" "peak MiB" outputs "store"
ratios=()
for k in $(seq 1 "$pairs"); do
  read -r aw ac am ao as < <(run A "$a")
  printf '%-5s %-3s %8s %8s %9s %10s %10s\n' "$k" A "$aw" "$ac" "$am" "$ao" "$as"
  read -r bw bc bm bo bs < <(run B "$b")
  printf '%-5s %-3s %8s %8s %9s %10s %10s\n' "$k" B "$bw" "$bc" "$bm" "$bo" "$bs"
  cmp "$work/A/$mat.xqtb" "$work/B/$mat.xqtb" || { echo "bench_store: the tables differ" >&2; exit 1; }
  r=$(awk -v b="$bw" -v a="$aw" 'BEGIN {printf "%.3f", b / a}')
  ratios+=("$r")
  echo "pair $k: wall B / A $r"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR] = $1} END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "median wall ratio B / A over %d pairs: %.3f\n", NR, m }'
