#!/usr/bin/env bash
# Side by side, in one run on this machine: the KRNKAABB family (27 tables: K+R+N against every
# subset of two advisors and two elephants, with the K+R and K+N tables) built by the C++
# generator (xiangqitb, built with its own script: see ../shared/peer/README.md) and by xqtb,
# each as one process from an empty directory, 2 threads. Prints wall time, peak RSS and table
# bytes of each, and the ratios; then xqtb at --memory STREAM_MEMORY (default 64M: streamed)
# against its resident run. Under the Asian rules (the default) the family's rule stages need
# STREAM_MEMORY=256M (KRNKAABB needs 195 MiB); with `--rules none` (no rule stage, as the
# generator builds these tables) 64M do.
# With RUNS=N (default 1) the three runs repeat N times in turn and the medians are reported,
# with each round's ratios: on this shared machine one run of each drifts by 5-10 %.
# Usage: [RUNS=N] scripts/bench_peer.sh PEER_BINARY [xqtb build args...]
# Needs GNU time (/usr/bin/time). Nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=$(realpath "${1:?usage: scripts/bench_peer.sh PEER_BINARY [xqtb build args]}"); shift
[ -x /usr/bin/time ] || { echo "bench_peer: needs GNU time (/usr/bin/time)" >&2; exit 1; }
runpeer=${RUN_PEER:-../shared/peer/run-peer.sh}
family=${FAMILY:-../shared/peer/krn-family.txt}
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# CPU seconds (user + sys) are reported beside wall time: on a shared machine they are the
# steadier measure of the work each program does.
runs=${RUNS:-1}
stream_memory=${STREAM_MEMORY:-64M}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

peer_run() { # prints: wall kib bytes cpu
  rm -rf "$work/peer"
  # shellcheck disable=SC2046
  local line
  line=$(THREADS=2 /usr/bin/time -o "$work/peer-cpu.txt" -f '%U %S' bash "$runpeer" "$peer" "$work/peer" $(cat "$family"))
  echo "$(awk '{print $3, $6, $10 + $13}' <<<"$line") $(awk '{print $1 + $2}' "$work/peer-cpu.txt")"
}

xqtb_run() { # dir args...; prints: wall kib bytes cpu
  local dir=$1; shift
  rm -rf "$dir"
  /usr/bin/time -o "$work/time.txt" -f '%e %M %U %S' "$xq" build KRNKAABB --dir "$dir" --threads 2 --quiet "$@" >/dev/null
  read -r wall kib user sys <"$work/time.txt"
  bytes=$(find "$dir" -maxdepth 1 -name '*.xqtb' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "$wall $kib $bytes $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')"
}

declare -a pw pk pc xw xk xc sw sk sc rounds
for ((i = 0; i < runs; i++)); do
  read -r pw[i] pk[i] peer_bytes pc[i] < <(peer_run)
  read -r xw[i] xk[i] xq_bytes xc[i] < <(xqtb_run "$work/xqtb" "$@")
  read -r sw[i] sk[i] _ sc[i] < <(xqtb_run "$work/xqtb64" --memory "$stream_memory" "$@")
  rounds[i]=$(awk -v a="${xw[i]}" -v b="${pw[i]}" -v s="${sw[i]}" 'BEGIN {printf "%.2f/%.2f", a / b, s / a}')
done
max() { printf '%s\n' "$@" | sort -g | tail -n 1; }
peer_wall=$(median "${pw[@]}"); peer_cpu=$(median "${pc[@]}"); peer_kib=$(max "${pk[@]}")
xq_wall=$(median "${xw[@]}"); xq_cpu=$(median "${xc[@]}"); xq_kib=$(max "${xk[@]}")
st_wall=$(median "${sw[@]}"); st_cpu=$(median "${sc[@]}"); st_kib=$(max "${sk[@]}")

[ "$runs" -gt 1 ] && echo "medians of $runs rounds (peak RSS: the largest)"
printf '%-22s %10s %10s %12s %14s\n' run "wall s" "CPU s" "peak MiB" "table bytes"
printf '%-22s %10s %10s %12d %14s\n' "xiangqitb (WDL+DTC)" "$peer_wall" "$peer_cpu" $((peer_kib / 1024)) "$peer_bytes"
printf '%-22s %10s %10s %12d %14s\n' "xqtb" "$xq_wall" "$xq_cpu" $((xq_kib / 1024)) "$xq_bytes"
printf '%-22s %10s %10s %12d %14s\n' "xqtb --memory $stream_memory" "$st_wall" "$st_cpu" $((st_kib / 1024)) "-"
awk -v a="$xq_wall" -v b="$peer_wall" -v s="$st_wall" -v ac="$xq_cpu" -v bc="$peer_cpu" -v xb="$xq_bytes" -v pb="$peer_bytes" 'BEGIN {
  printf "xqtb / xiangqitb: wall %.2f, CPU %.2f; streamed / resident wall: %.2f; bytes xqtb / xiangqitb: %.2f\n", a / b, ac / bc, s / a, xb / pb }'
[ "$runs" -gt 1 ] && echo "each round's xqtb / xiangqitb and streamed / resident wall: ${rounds[*]}"
exit 0
