#!/usr/bin/env bash
# Two single-thread builds sharing one --dir (formats/locks.md) against one two-thread build of
# the same family, in alternating pairs: wall and CPU seconds and peak RSS of each run, every
# run's tables compared byte for byte with the first's, and the median of the wall-time ratios.
#
#   bash scripts/workers.sh [MATERIAL] [PAIRS] [SCRATCH]
#     MATERIAL  the family's top table (default KRNKAABB)
#     PAIRS     alternating pairs (default 5; this machine's speed drifts, so judge the median)
#     SCRATCH   where the runs build (default a new directory under /tmp, removed at the end)
# Environment: XQTB (default target/release/xqtb), MEMORY (each build's --memory, default 1G).
set -euo pipefail
cd "$(dirname "$0")/.."
material="${1:-KRNKAABB}"
pairs="${2:-5}"
scratch="${3:-$(mktemp -d /tmp/xqtb-workers.XXXXXX)}"
xqtb="${XQTB:-target/release/xqtb}"
memory="${MEMORY:-1G}"
[ -x "$xqtb" ] || { echo "workers: $xqtb not found: cargo build --release first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "workers: GNU time is needed: apt-get install time" >&2; exit 1; }
mkdir -p "$scratch"
[ -n "${3:-}" ] || trap 'rm -rf "$scratch"' EXIT

# One build under GNU time into $1 with $2 threads; its figures ("wall user sys maxrss_kib") to $3.
timed_build() {
    /usr/bin/time -o "$3" -f '%e %U %S %M' \
        "$xqtb" build "$material" --dir "$1" --memory "$memory" --threads "$2" --quiet >/dev/null
}

# The tables of $1 against the reference's; fails on any difference.
same_tables() {
    local n=0
    for f in "$scratch/reference"/*.xqtb; do
        cmp -s "$f" "$1/$(basename "$f")" || { echo "workers: $1: $(basename "$f") differs" >&2; exit 1; }
        n=$((n + 1))
    done
    [ "$(ls "$1"/*.xqtb | wc -l)" -eq "$n" ] || { echo "workers: $1: other tables" >&2; exit 1; }
}

# One two-thread build: "wall cpu rss_mib".
one_process() {
    local d="$scratch/one" t="$scratch/one.time"
    rm -rf "$d"
    timed_build "$d" 2 "$t"
    same_tables "$d"
    awk '{ printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$t"
}

# Two one-thread builds in one directory, started together: "wall cpu rss_mib (largest) tables
# built by each".
two_workers() {
    local d="$scratch/two" start end
    rm -rf "$d"
    start=$(date +%s.%N)
    /usr/bin/time -o "$scratch/w1.time" -f '%e %U %S %M' \
        "$xqtb" build "$material" --dir "$d" --memory "$memory" --threads 1 >"$scratch/w1.out" 2>/dev/null &
    /usr/bin/time -o "$scratch/w2.time" -f '%e %U %S %M' \
        "$xqtb" build "$material" --dir "$d" --memory "$memory" --threads 1 >"$scratch/w2.out" 2>/dev/null &
    wait
    end=$(date +%s.%N)
    same_tables "$d"
    local b1 b2
    b1=$(grep -c ' built ' "$scratch/w1.out" || true)
    b2=$(grep -c ' built ' "$scratch/w2.out" || true)
    cat "$scratch/w1.time" "$scratch/w2.time" | awk -v wall="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
        -v b="$b1+$b2" '{ cpu += $2 + $3; if ($4 > rss) rss = $4 }
        END { printf "%.2f %.2f %.0f %s\n", wall, cpu, rss / 1024, b }'
}

"$xqtb" build "$material" --dir "$scratch/reference" --memory "$memory" --quiet >/dev/null
echo "# $material, --memory $memory, $pairs alternating pairs; $(nproc) cores; $(git rev-parse --short HEAD)"
printf 'pair\tone 2-thread: wall s\tcpu s\tpeak MiB\ttwo 1-thread: wall s\tcpu s\tpeak MiB (each)\ttables built by each\tratio two/one\n'
ratios=()
for k in $(seq 1 "$pairs"); do
    # Alternate which goes first, so a drift in the machine's speed weighs on both.
    if [ $((k % 2)) -eq 1 ]; then
        one=$(one_process); two=$(two_workers)
    else
        two=$(two_workers); one=$(one_process)
    fi
    read -r ow oc orss <<<"$one"
    read -r tw tc trss tb <<<"$two"
    ratio=$(awk -v a="$tw" -v b="$ow" 'BEGIN { printf "%.3f", a / b }')
    ratios+=("$ratio")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$ow" "$oc" "$orss" "$tw" "$tc" "$trss" "$tb" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
echo "median wall ratio, two one-thread workers / one two-thread build: $median"
