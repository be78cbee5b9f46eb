#!/usr/bin/env bash
# Side by side, in one run on this machine: tables under the Asian rules (perpetual check and
# chase, with orders) built by the C++ generator (xiangqitb: ../shared/peer/README.md) and by
# xqtb. Per target (default KRCKR and KRKNN): its supporting tables are built first (not timed),
# then the target alone, 2 threads: the peer; xqtb --rules asian at the default budget and at
# --memory 256M; xqtb --rules none (the plain build the rule stage adds to). Prints wall and CPU
# seconds, peak RSS, orders, and the ratios the issue sets goals for. The asian and none builds
# run RUNS times each (default 3), alternating, and the medians are reported: this machine's
# runs move by 10 % and more, as much as the asian / none ratio's distance to its goal.
# Usage: [RUNS=N] scripts/bench_rules.sh PEER_BINARY [TARGET...]   Needs GNU time. Nothing is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=$(realpath "${1:?usage: scripts/bench_rules.sh PEER_BINARY [TARGET...]}"); shift
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(KRCKR KRKNN)
[ -x /usr/bin/time ] || { echo "bench_rules: needs GNU time (/usr/bin/time)" >&2; exit 1; }
runpeer=${RUN_PEER:-../shared/peer/run-peer.sh}
runs=${RUNS:-3}
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# The peer's supporting tables of a target, smallest first (its names: Red's pieces first).
peer_supporting() {
  case $1 in
    KRCKR) echo KRK KCK KRKR KRKC KRCK ;;
    KRKNN) echo KRK KNK KRKN KNNK ;;
    *) echo "bench_rules: no supporting list for $1" >&2; exit 1 ;;
  esac
}

xq_run() { # dir target args... -> "wall cpu kib orders"
  local dir=$1 target=$2; shift 2
  "$xq" build "$target" --dir "$dir" --threads 2 --quiet "$@" >/dev/null # supporting tables
  rm -f "$dir/$target.xqtb"
  /usr/bin/time -o "$work/time.txt" -f '%e %U %S %M' "$xq" build "$target" --dir "$dir" --threads 2 "$@" >"$work/out.txt" 2>/dev/null
  read -r wall user sys kib <"$work/time.txt"
  local orders
  orders=$(grep "^$target " "$work/out.txt" | grep -o '[0-9]* orders' | awk '{print $1}' || true)
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $kib ${orders:-1}"
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# Median wall, median CPU and largest peak RSS of `runs` lines "wall cpu kib orders".
summary() {
  # shellcheck disable=SC2046
  echo "$(median $(awk '{print $1}' <<<"$1")) $(median $(awk '{print $2}' <<<"$1"))" \
    "$(awk 'BEGIN {m = 0} {if ($3 > m) m = $3; o = $4} END {print m, o}' <<<"$1")"
}

printf '%-8s %-26s %8s %8s %10s %7s\n' table run "wall s" "CPU s" "peak MiB" orders
for t in "${targets[@]}"; do
  sup=$(peer_supporting "$t")
  # shellcheck disable=SC2086
  THREADS=2 bash "$runpeer" "$peer" "$work/peer-$t" $sup >/dev/null
  line=$(THREADS=2 /usr/bin/time -o "$work/peer-cpu.txt" -f '%U %S' bash "$runpeer" "$peer" "$work/peer-$t" "$t")
  read -r p_wall p_kib < <(awk '{print $3, $6}' <<<"$line")
  p_cpu=$(awk '{print $1 + $2}' "$work/peer-cpu.txt")
  asian="" none="" ratios=()
  for ((r = 0; r < runs; r++)); do
    a=$(xq_run "$work/asian-$t" "$t")
    n=$(xq_run "$work/none-$t" "$t" --rules none)
    asian+="$a"$'\n' none+="$n"$'\n'
    ratios+=("$(awk -v a="${a%% *}" -v n="${n%% *}" 'BEGIN {printf "%.2f", a / n}')")
  done
  read -r a_wall a_cpu a_kib a_orders < <(summary "${asian%$'\n'}")
  read -r n_wall n_cpu n_kib _ < <(summary "${none%$'\n'}")
  read -r m_wall m_cpu m_kib m_orders < <(xq_run "$work/asian256-$t" "$t" --memory 256M)
  printf '%-8s %-26s %8s %8s %10d %7s\n' "$t" "xiangqitb" "$p_wall" "$p_cpu" $((p_kib / 1024)) "-"
  printf '%-8s %-26s %8s %8s %10d %7s\n' "$t" "xqtb --rules asian" "$a_wall" "$a_cpu" $((a_kib / 1024)) "$a_orders"
  printf '%-8s %-26s %8s %8s %10d %7s\n' "$t" "xqtb asian --memory 256M" "$m_wall" "$m_cpu" $((m_kib / 1024)) "$m_orders"
  printf '%-8s %-26s %8s %8s %10d %7s\n' "$t" "xqtb --rules none" "$n_wall" "$n_cpu" $((n_kib / 1024)) 1
  awk -v t="$t" -v a="$a_wall" -v p="$p_wall" -v n="$n_wall" -v ac="$a_cpu" -v pc="$p_cpu" -v m="$m_wall" 'BEGIN {
    printf "%-8s asian / xiangqitb: wall %.2f, CPU %.2f (goal 0.75); asian / none: %.2f (goal 2); 256M / default: %.2f\n", t, a / p, ac / pc, a / n, m / a }'
  echo "$t asian / none of each of the $runs pairs: ${ratios[*]} (median $(median "${ratios[@]}"))"
done
