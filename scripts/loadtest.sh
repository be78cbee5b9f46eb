#!/usr/bin/env bash
# Bounded load test of `xqtb serve` on loopback (stops by itself within 60 s once the tables
# exist): requests/s and p50/p90/p99 latency of /api/probe on KRNKAABB (129,233,004 legal
# positions) with a cold and a warm block cache, then a burst of malformed requests. Fails if
# the server answers any 5xx, dies, or logs anything but the requests it answered.
#
#   bash scripts/loadtest.sh [--dir tables] [--cache 32M] [--threads 4] [--seconds 15]
#
# Builds KRNKAABB (and its supporting tables) into --dir first if it is missing: that takes
# about two minutes on two cores and is not part of the bounded run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tables cache=32M threads=4 seconds=15 material=KRNKAABB
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) dir=$2; shift 2 ;;
        --cache) cache=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "loadtest: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ "$seconds" -le 15 ] || { echo "loadtest: --seconds is at most 15 (three phases within 60 s)" >&2; exit 2; }
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked --quiet --bin xqtb --example loadtest
xq="$target/release/xqtb"
gen="$target/release/examples/loadtest"
if [ ! -f "$dir/$material.xqtb" ]; then
    echo "== building $material into $dir (once; not part of the timed run)"
    "$xq" build "$material" --dir "$dir" --quiet
fi
log=$(mktemp)
out=$(mktemp)
. scripts/serve_lib.sh
trap 'stop; rm -f "$log" "$out"' EXIT
start_serve "$xq" "$out" "$log" --dir "$dir" --addr 127.0.0.1:0 --cache "$cache"
url=$(grep -o 'http://127[0-9.:]*' "$out")
echo "== $(head -1 "$out")"
echo "== $(nproc) cores; server and load generator share them"
timeout 20 "$gen" --url "$url" --material "$material" --mode cold --seconds "$seconds" --threads "$threads"
timeout 20 "$gen" --url "$url" --material "$material" --mode warm --seconds "$seconds" --threads "$threads"
timeout 10 "$gen" --url "$url" --material "$material" --mode malformed --seconds 5 --threads "$threads"
kill -0 "$pid" || { echo "loadtest: the server died" >&2; exit 1; }
rss=$(awk '/VmHWM/ {print $2 / 1024 " MiB"}' "/proc/$pid/status")
echo "== server peak RSS $rss"
stop
# The log holds one line per request and the shutdown; anything else (an ERROR, a WARN about a
# table, a panic) fails the run.
statuses=$(grep -o 'status=[0-9]*' "$log" | sort | uniq -c | tr '\n' ' ')
echo "== server log: $(wc -l <"$log") lines; $statuses"
if grep -v -E 'INFO request\{method=GET uri=[^}]*\}: xqtb::server: response status=(200|4[0-9][0-9]) |INFO xqtb::server: shutting down' "$log" | grep -q .; then
    echo "loadtest: unexpected lines in the server log:" >&2
    grep -v -E 'INFO request\{method=GET uri=[^}]*\}: xqtb::server: response status=(200|4[0-9][0-9]) |INFO xqtb::server: shutting down' "$log" | head -20 >&2
    exit 1
fi
echo "== ok"
