#!/usr/bin/env bash
# Warm WDL probes per second through the C ABI's board form (examples/c/bench.c) against Rust's
# Tablebase::probe_wdl (crates/xqtb-c/examples/wdl_bench.rs), over the same positions, at 1 and
# 2 threads sharing one handle. The machine's speed drifts, so the two run in alternating pairs
# (C, then Rust) and the script prints each pair and the medians: the ratio C/Rust, and the
# boundary's cost per probe (1e9/C - 1e9/Rust ns, at 2 threads per thread's probe).
#
#   bash scripts/c-bench.sh [tables-dir (tables)] [pairs (5)]
#
# Builds xqtb, the library and both benchmarks (release), and the table into the directory if
# it is not there. Environment: MATERIAL (KRNKAAB), STEP (every STEP-th index of its table,
# both sides to move: 600), PASSES (over the list, per thread: 80), CC (cc). KRNKAAB's WDL
# blocks (2 bits an entry, 8.8 MB) fit the handle's 16 MiB block cache, so the timed probes are
# warm; KRNKAABB's (26 MB) do not, and decompressing blocks would be most of both sides' time.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-tables}
pairs=${2:-5}
material=${MATERIAL:-KRNKAAB}
step=${STEP:-600}
passes=${PASSES:-80}
release=${CARGO_TARGET_DIR:-target}/release

cargo build --release --locked -p xqtb -p xqtb-c --example wdl_bench
${CC:-cc} -std=c99 -O2 -pthread -Icrates/xqtb-c/include examples/c/bench.c \
    "$release/libxqtb_c.a" -lutil -lrt -lpthread -lm -ldl -o "$release/c-bench"
[ -f "$dir/$material.xqtb" ] || "$release/xqtb" build "$material" --dir "$dir" --quiet
positions="$release/c-bench-$material-$step.fens"
"$release/examples/wdl_bench" list "$material" "$step" >"$positions"
echo "$material: $(wc -l <"$positions") positions (every ${step}th index), $passes passes per thread"
echo "cpu: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# The value of `key=` in a bench line.
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

for threads in 1 2; do
    for pair in $(seq "$pairs"); do
        c=$("$release/c-bench" "$dir" "$positions" "$threads" "$passes")
        rust=$("$release/examples/wdl_bench" run "$dir" "$positions" "$threads" "$passes")
        echo "  $c"
        echo "  $rust"
        # Both must have probed the same positions to the same answers.
        [ "$(field wins "$c")" = "$(field wins "$rust")" ] || { echo "wins differ" >&2; exit 1; }
        echo "$threads $pair $(field probes_per_s "$c") $(field probes_per_s "$rust")" >>"$results"
    done
done

# Per pair: probes/s of each, the ratio and the boundary's nanoseconds per probe; then medians.
awk '
    function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    BEGIN { print ""; printf "%7s %4s %12s %12s %9s %12s\n", "threads", "pair", "C probes/s", "Rust probes/s", "C/Rust", "ns/probe" }
    {
        n[$1]++; ratio[$1, n[$1]] = $3 / $4; ns[$1, n[$1]] = ($1 * 1e9 / $3) - ($1 * 1e9 / $4)
        printf "%7d %4d %12.0f %12.0f %9.3f %12.1f\n", $1, $2, $3, $4, $3 / $4, ns[$1, n[$1]]
    }
    END {
        for (t = 1; t in n; t++) {
            for (i = 1; i <= n[t]; i++) { r[i] = ratio[t, i]; d[i] = ns[t, i] }
            printf "threads=%d: median C/Rust %.3f, median boundary cost %.1f ns per probe (%d pairs)\n", t, median(r, n[t]), median(d, n[t]), n[t]
        }
    }' "$results"
