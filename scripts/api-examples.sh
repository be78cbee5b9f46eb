#!/usr/bin/env bash
# Prints the examples of formats/api.md from the real server: builds KNKA and KPK into a
# temporary directory (and, with `--corrupt MATERIAL`, that table with one byte of its first
# block flipped), starts `xqtb serve` on a free loopback port, asks each path, stops it. Long lists
# are cut to their first two entries. Needs curl and python3.
#
#   bash scripts/api-examples.sh [--corrupt MATERIAL] PATH...
set -euo pipefail
cd "$(dirname "$0")/.."
corrupt=""
if [ "${1:-}" = "--corrupt" ]; then corrupt=$2; shift 2; fi
cargo build --quiet --locked
xq="${CARGO_TARGET_DIR:-target}/debug/xqtb"
dir=$(mktemp -d)
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$xq" build KNKA --dir "$dir" --quiet >/dev/null
"$xq" build KPK --dir "$dir" --quiet >/dev/null
if [ -n "$corrupt" ]; then
    "$xq" build "$corrupt" --dir "$dir" --quiet >/dev/null
    python3 - "$dir/$corrupt.xqtb" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[300] ^= 0x55  # past the 256-byte header: the first block
open(p, "wb").write(b)
PY
fi
"$xq" serve --dir "$dir" --addr 127.0.0.1:0 --quiet >"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 50); do grep -q http "$dir/out" 2>/dev/null && break; sleep 0.1; done
base=$(grep -o 'http://[0-9.:]*' "$dir/out")
sed "s|$dir|tables|; s|$base|http://127.0.0.1:8080|" "$dir/out"
for q in "$@"; do
    echo
    echo "GET $q"
    curl -s -i "$base$q" | tr -d '\r' >"$dir/resp"
    head -1 "$dir/resp"
    grep -i '^location\|^cache-control' "$dir/resp" || true
    sed '1,/^$/d' "$dir/resp" | python3 -c '
import json, sys
t = sys.stdin.read()
if not t.strip():
    sys.exit()
j = json.loads(t)
def cut(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, list) and len(v) > 3 and k in ("moves", "steps", "histogram", "pawn_ranks", "tables"):
                o[k] = v[:2] + ["... %d more" % (len(v) - 2)]
            cut(o[k])
    elif isinstance(o, list):
        for x in o:
            cut(x)
cut(j)
print(json.dumps(j, indent=2, ensure_ascii=False))' | sed "s|$dir|tables|g"
done
