#!/usr/bin/env bash
# Side by side, in one run on this machine: the KRNKAABB family (27 tables: K+R+N against every
# subset of two advisors and two elephants, with the K+R and K+N tables) built by the C++
# generator (xiangqitb, built with its own script: see ../shared/peer/README.md) and by xqtb,
# each as one process from an empty directory, 2 threads. Prints wall time, peak RSS and table
# bytes of each, and the ratios; then xqtb at --memory 64M (streamed) against its resident run.
# Usage: scripts/bench_peer.sh PEER_BINARY [xqtb build args...]
# Needs GNU time (/usr/bin/time). Nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=$(realpath "${1:?usage: scripts/bench_peer.sh PEER_BINARY [xqtb build args]}"); shift
[ -x /usr/bin/time ] || { echo "bench_peer: needs GNU time (/usr/bin/time)" >&2; exit 1; }
runpeer=${RUN_PEER:-../shared/peer/run-peer.sh}
family=${FAMILY:-../shared/peer/krn-family.txt}
cargo build --release --locked --quiet
xq="$PWD/${CARGO_TARGET_DIR:-target}/release/xqtb"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# CPU seconds (user + sys) are reported beside wall time: on a shared machine they are the
# steadier measure of the work each program does.
# shellcheck disable=SC2046
peer_line=$(THREADS=2 /usr/bin/time -o "$work/peer-cpu.txt" -f '%U %S' bash "$runpeer" "$peer" "$work/peer" $(cat "$family"))
read -r peer_wall peer_kib < <(awk '{print $3, $6}' <<<"$peer_line")
peer_bytes=$(awk '{print $10 + $13}' <<<"$peer_line")
peer_cpu=$(awk '{print $1 + $2}' "$work/peer-cpu.txt")

xqtb_run() { # label dir args...
  local label=$1 dir=$2; shift 2
  /usr/bin/time -o "$work/time.txt" -f '%e %M %U %S' "$xq" build KRNKAABB --dir "$dir" --threads 2 --quiet "$@" >/dev/null
  read -r wall kib user sys <"$work/time.txt"
  bytes=$(find "$dir" -maxdepth 1 -name '*.xqtb' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "$label $wall $kib $bytes $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')"
}
read -r _ xq_wall xq_kib xq_bytes xq_cpu < <(xqtb_run resident "$work/xqtb" "$@")
read -r _ st_wall st_kib _ st_cpu < <(xqtb_run streamed "$work/xqtb64" --memory 64M "$@")

printf '%-22s %10s %10s %12s %14s\n' run "wall s" "CPU s" "peak MiB" "table bytes"
printf '%-22s %10s %10s %12d %14s\n' "xiangqitb (WDL+DTC)" "$peer_wall" "$peer_cpu" $((peer_kib / 1024)) "$peer_bytes"
printf '%-22s %10s %10s %12d %14s\n' "xqtb" "$xq_wall" "$xq_cpu" $((xq_kib / 1024)) "$xq_bytes"
printf '%-22s %10s %10s %12d %14s\n' "xqtb --memory 64M" "$st_wall" "$st_cpu" $((st_kib / 1024)) "-"
awk -v a="$xq_wall" -v b="$peer_wall" -v s="$st_wall" -v ac="$xq_cpu" -v bc="$peer_cpu" -v xb="$xq_bytes" -v pb="$peer_bytes" 'BEGIN {
  printf "xqtb / xiangqitb: wall %.2f, CPU %.2f; streamed / resident wall: %.2f; bytes xqtb / xiangqitb: %.2f\n", a / b, ac / bc, s / a, xb / pb }'
