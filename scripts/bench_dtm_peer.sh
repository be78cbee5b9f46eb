#!/usr/bin/env bash
# Side by side, in one run on this machine: distance-to-mate tables built by the C++ generator
# (xiangqitb, built with its own script: see ../shared/peer/README.md) and by xqtb, under the
# Asian rules, 2 threads, each run as one process from an empty directory. Workloads: `krn`, the
# KRNKAABB family (27 tables, ../shared/peer/krn-family.txt), and `krckr`, KRCKR with its
# supporting tables (rule stage). Per workload and round:
#   - the peer with DTM=1 (it builds WDL, DTC and DTM),
#   - xqtb --metric both (the same metrics) at the default budget (resident),
#   - xqtb --metric both --memory 64M (streamed; if xqtb refuses 64M for the workload, the
#     smallest budget its refusal names, and the table says which);
# rounds alternate the order (peer, resident, streamed / streamed, resident, peer), and the
# medians of PAIRS rounds are reported (default 1; PAIRS=5 for a median of 5) with each round's
# ratios. Then one xqtb --metric dtm run (DTM alone) against the peer's DTM phases (the
# "DTM generation took" lines of its log). Prints wall and CPU seconds, peak RSS, DTM bytes
# (xqtb: *.xqdtm; peer: dtm/), DTC bytes (xqtb: *.xqtb, which hold WDL and DTC; peer: wdl/ +
# dtc/), the ratios against the goals (xqtb at most 0.5x the peer's wall time and DTM bytes; the
# streamed build at most 1.3x the resident one), whether the streamed files equal the resident
# ones, and per table and side to move whether xqtb's longest DTM win (header side record:
# u16 distance at 56 + 64 * side + 34) equals the peer's (dtm/*.info: u16 longest_win[side] at
# 64, plies + 1; its FEN at 68 + 120 * side), with both positions where they differ (xqtb's
# decoded by scripts/index_ref.py) and xqtb's DTC value of each. The DTC longest wins are
# compared the same way (the peer's dtc/*.info counts plies), to tell a DTM difference apart
# from one the DTC tables share. Under the rules the two may differ by definition: xqtb's DTM of
# a win of a level above 0 counts the plies to the ruling (formats/dtm.md), and the two
# programs group orders differently (formats/rules.md section 6).
# Usage: [PAIRS=N] [WORK=DIR] [STREAMED=64M] scripts/bench_dtm_peer.sh PEER_BINARY [krn|krckr ...]
# WORK keeps every run's directory and log there (default: a temporary directory, removed);
# STREAMED is the first budget tried for the streamed runs.
# Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=$(realpath "${1:?usage: scripts/bench_dtm_peer.sh PEER_BINARY [krn|krckr ...]}"); shift
workloads=("$@"); [ ${#workloads[@]} -gt 0 ] || workloads=(krn krckr)
[ -x /usr/bin/time ] || { echo "bench_dtm_peer: needs GNU time (/usr/bin/time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench_dtm_peer: needs python3" >&2; exit 1; }
runpeer=$(realpath "${RUN_PEER:-../shared/peer/run-peer.sh}")
family=$(realpath "${FAMILY:-../shared/peer/krn-family.txt}")
pairs=${PAIRS:-1}
cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
index_ref="$PWD/scripts/index_ref.py"
if [ -n "${WORK:-}" ]; then
  work=$(realpath -m "$WORK"); mkdir -p "$work"
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi

# Target and the peer's list (supporting tables first; its names: Red's pieces first). The
# family's target is its file's last line (FAMILY=FILE runs a smaller family).
workload() {
  case $1 in
    krn | KRNKAABB) echo "$(tail -n 1 "$family") $(tr '\n' ' ' <"$family")" ;;
    krckr | KRCKR) echo "KRCKR KRK KCK KRKR KRKC KRCK KRCKR" ;;
    *) echo "bench_dtm_peer: unknown workload $1 (krn or krckr)" >&2; exit 1 ;;
  esac
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
max() { printf '%s\n' "$@" | sort -g | tail -n 1; }
bytes() { # dir pattern: summed bytes of the matching files
  find "$1" -maxdepth 1 -name "$2" -printf '%s\n' | awk '{s += $1} END {print s + 0}'
}
hms() { # the seconds of "HH:MM:SS.fff" lines summed
  awk -F: '{s += $1 * 3600 + $2 * 60 + $3} END {printf "%.2f", s}'
}

# Each run sets R_WALL R_KIB R_CPU R_DTM R_DTC.
peer_run() { # dir materials...
  local dir=$1 line; shift
  rm -rf "$dir"
  line=$(DTM=1 THREADS=2 /usr/bin/time -o "$dir.cpu" -f '%U %S' bash "$runpeer" "$peer" "$dir" "$@")
  # "peer: wall W s, peak K KiB, WDL bytes A, DTC bytes B, DTM bytes C (...)"
  read -r R_WALL R_KIB R_DTC R_DTM < <(awk '{print $3, $6, $10 + $13, $16 + 0}' <<<"$line")
  R_CPU=$(awk '{print $1 + $2}' "$dir.cpu")
}

xq_run() { # dir target args...; fails (status 1) if the build does
  local dir=$1 target=$2 user sys; shift 2
  rm -rf "$dir"
  /usr/bin/time -o "$dir.time" -f '%e %M %U %S' "$xq" build "$target" --dir "$dir" --rules asian \
    --threads 2 --quiet "$@" >"$dir.log" 2>"$dir.err" || return 1
  read -r R_WALL R_KIB user sys <"$dir.time"
  R_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
  R_DTM=$(bytes "$dir" '*.xqdtm'); R_DTC=$(bytes "$dir" '*.xqtb')
}

# The streamed build at $budget; a refusal naming the smallest budget ("needs at least N MiB")
# moves $budget there and runs again.
streamed_run() { # dir target
  if xq_run "$1" "$2" --metric both --memory "$budget"; then return 0; fi
  local need
  need=$(grep -o 'needs at least [0-9]* MiB' "$1.err" | awk '{print $4}' | sort -g | tail -n 1)
  if [ -z "$need" ]; then cat "$1.err" >&2; exit 1; fi
  echo "xqtb refuses $2 at --memory $budget (needs ${need} MiB): streamed runs use --memory ${need}M" >&2
  budget="${need}M"
  xq_run "$1" "$2" --metric both --memory "$budget" || { cat "$1.err" >&2; exit 1; }
}

# Longest wins: xqtb's header side records against the peer's .info files.
longest() { # peer_dir xqtb_dir
  python3 - "$1" "$2" "$xq" "$index_ref" <<'EOF'
import json, os, struct, subprocess, sys
peer_dir, xq_dir, xq, index_ref = sys.argv[1:5]
SIDES = "wb"

def flip(m):
    k = m.index("K", 1)
    return m[k:] + m[:k]

def peer_info(path, plus):
    b = open(path, "rb").read()
    out = []
    for s in (0, 1):
        lw = struct.unpack_from("<H", b, 64 + 2 * s)[0]
        fen = b[68 + 120 * s:68 + 120 * (s + 1)].split(b"\0")[0].decode()
        out.append((lw - plus, fen) if lw else (None, None))
    return out

def xq_header(path):
    b = open(path, "rb").read(256)
    out = []
    for s in (0, 1):
        o = 56 + 64 * s
        order, dist = struct.unpack_from("<HH", b, o + 32)
        index = struct.unpack_from("<Q", b, o + 40)[0]
        out.append(None if index == 2**64 - 1 else (dist, order, index))
    return out

def decode(m, index, side):
    r = subprocess.run(["python3", index_ref, "decode", m, str(index), SIDES[side]],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"

def xq_dtc(fen):
    r = subprocess.run([xq, "probe", "--json", "--dir", xq_dir, fen], capture_output=True, text=True)
    try:
        j = json.loads(r.stdout)
    except ValueError:
        return "?"
    d = "" if j.get("distance") is None else f" {j['distance']}"
    return f"{j['result']}{d} (order {j.get('order')})"

def fmt(v):
    return "-" if v is None else str(v)

names = sorted(f[:-5] for f in os.listdir(os.path.join(peer_dir, "dtm")) if f.endswith(".info"))
rows, diffs, same, compared = [], [], 0, 0
for m in names:
    if os.path.exists(os.path.join(xq_dir, m + ".xqdtm")):
        xm, swap = m, False
    elif os.path.exists(os.path.join(xq_dir, flip(m) + ".xqdtm")):
        xm, swap = flip(m), True
    else:
        rows.append(f"{m:<10} no xqtb table")
        continue
    pd = peer_info(os.path.join(peer_dir, "dtm", m + ".info"), 1)
    pc = peer_info(os.path.join(peer_dir, "dtc", m + ".info"), 0)
    xd = xq_header(os.path.join(xq_dir, xm + ".xqdtm"))
    xc = xq_header(os.path.join(xq_dir, xm + ".xqtb"))
    for ps in (0, 1):
        xs = 1 - ps if swap else ps  # xqtb's side of the peer's side ps
        xdd = xd[xs][0] if xd[xs] else None
        xcd = xc[xs][0] if xc[xs] else None
        ok = xdd == pd[ps][0]
        same += ok
        compared += 1
        dtc = "equal" if xcd == pc[ps][0] else "DIFFER"
        level = f" (level {xd[xs][1]})" if xd[xs] else ""
        rows.append(f"{m:<10} {SIDES[ps]}  dtm xqtb {fmt(xdd):>4}{level:<10} peer {fmt(pd[ps][0]):>4}  "
                    f"{'equal ' if ok else 'DIFFER'}   dtc xqtb {fmt(xcd):>4} peer {fmt(pc[ps][0]):>4} {dtc}")
        if not ok:
            d = [f"{m} {SIDES[ps]} to move: xqtb longest DTM win {fmt(xdd)} plies{level}, peer {fmt(pd[ps][0])}"]
            if xd[xs]:
                fen = decode(xm, xd[xs][2], xs)
                d.append(f"  xqtb's position (index {xd[xs][2]} of {xm}): {fen}; xqtb DTC {xq_dtc(fen)}")
            if pd[ps][1]:
                d.append(f"  peer's position: {pd[ps][1]}; xqtb DTC {xq_dtc(pd[ps][1])}")
            diffs.append("\n".join(d))
only = sorted({f[:-6] for f in os.listdir(xq_dir) if f.endswith(".xqdtm")}
              - set(names) - {flip(m) for m in names})
print("\n".join(rows))
print(f"longest DTM wins equal: {same} of {compared} (table, side) pairs; "
      f"tables only xqtb builds: {' '.join(only) or 'none'}")
for d in diffs:
    print(d)
EOF
}

for wl in "${workloads[@]}"; do
  spec=$(workload "$wl")
  read -r -a words <<<"$spec"
  target=${words[0]} list=("${words[@]:1}")
  w="$work/$target"; mkdir -p "$w"
  budget=${STREAMED:-64M}
  declare -a pw pk pc xw xk xc sw sk sc rounds
  pw=() pk=() pc=() xw=() xk=() xc=() sw=() sk=() sc=() rounds=()
  for ((i = 0; i < pairs; i++)); do
    order=(peer resident streamed); ((i % 2)) && order=(streamed resident peer)
    for run in "${order[@]}"; do
      case $run in
        peer) peer_run "$w/peer" "${list[@]}"; pw[i]=$R_WALL pk[i]=$R_KIB pc[i]=$R_CPU
          peer_dtm=$R_DTM peer_dtc=$R_DTC ;;
        resident) xq_run "$w/xqtb" "$target" --metric both || { cat "$w/xqtb.err" >&2; exit 1; }
          xw[i]=$R_WALL xk[i]=$R_KIB xc[i]=$R_CPU xq_dtm=$R_DTM xq_dtc=$R_DTC ;;
        streamed) streamed_run "$w/xqtb-streamed" "$target"; sw[i]=$R_WALL sk[i]=$R_KIB sc[i]=$R_CPU
          st_dtm=$R_DTM st_dtc=$R_DTC ;;
      esac
    done
    rounds[i]=$(awk -v a="${xw[i]}" -v b="${pw[i]}" -v s="${sw[i]}" 'BEGIN {printf "%.2f/%.2f", a / b, s / a}')
  done
  xq_run "$w/xqtb-dtm" "$target" --metric dtm || { cat "$w/xqtb-dtm.err" >&2; exit 1; }
  dw=$R_WALL dk=$R_KIB dcpu=$R_CPU
  peer_dtm_s=$(grep -o 'DTM generation took [0-9:.]*' "$w/peer/run.log" | awk '{print $4}' | hms)
  same=yes
  for f in "$w/xqtb"/*.xqdtm "$w/xqtb"/*.xqtb; do
    cmp -s "$f" "$w/xqtb-streamed/${f##*/}" || same=no
  done

  p_wall=$(median "${pw[@]}") p_cpu=$(median "${pc[@]}") p_kib=$(max "${pk[@]}")
  x_wall=$(median "${xw[@]}") x_cpu=$(median "${xc[@]}") x_kib=$(max "${xk[@]}")
  s_wall=$(median "${sw[@]}") s_cpu=$(median "${sc[@]}") s_kib=$(max "${sk[@]}")
  echo
  echo "== $target ($wl: ${#list[@]} peer tables, Asian rules, 2 threads; $pairs round(s): medians, peak RSS the largest)"
  printf '%-34s %9s %9s %9s %12s %12s\n' run "wall s" "CPU s" "peak MiB" "DTM bytes" "DTC bytes"
  printf '%-34s %9s %9s %9d %12s %12s\n' "xiangqitb DTM=1 (WDL+DTC+DTM)" "$p_wall" "$p_cpu" $((p_kib / 1024)) "$peer_dtm" "$peer_dtc"
  printf '%-34s %9s %9s %9d %12s %12s\n' "xqtb --metric both" "$x_wall" "$x_cpu" $((x_kib / 1024)) "$xq_dtm" "$xq_dtc"
  printf '%-34s %9s %9s %9d %12s %12s\n' "xqtb --metric both --memory $budget" "$s_wall" "$s_cpu" $((s_kib / 1024)) "$st_dtm" "$st_dtc"
  printf '%-34s %9s %9s %9d %12s %12s\n' "xqtb --metric dtm (1 run)" "$dw" "$dcpu" $((dk / 1024)) "-" "-"
  printf '%-34s %9s\n' "xiangqitb DTM phases (its log)" "$peer_dtm_s"
  echo "(peer DTC bytes: its wdl/ + dtc/; xqtb's: *.xqtb, WDL and DTC in one file)"
  awk -v a="$x_wall" -v b="$p_wall" -v ac="$x_cpu" -v bc="$p_cpu" -v s="$s_wall" -v xd="$xq_dtm" \
    -v pd="$peer_dtm" -v xc="$xq_dtc" -v pcb="$peer_dtc" -v xk="$x_kib" -v pk="$p_kib" -v d="$dw" \
    -v pds="$peer_dtm_s" -v budget="$budget" 'BEGIN {
    printf "xqtb / xiangqitb: wall %.2f, CPU %.2f, peak RSS %.2f, DTM bytes %.3f, DTC bytes %.3f\n", a / b, ac / bc, xk / pk, xd / pd, xc / pcb
    printf "xqtb DTM alone / peer DTM phases: %s; streamed (%s) / resident wall: %.2f\n", (pds > 0 ? sprintf("%.2f", d / pds) : "-"), budget, s / a
    printf "goal wall <= 0.5x the peer: %s (%.2f)\n", (a / b <= 0.5 ? "PASS" : "FAIL"), a / b
    printf "goal DTM bytes <= 0.5x the peer: %s (%.3f)\n", (xd / pd <= 0.5 ? "PASS" : "FAIL"), xd / pd
    printf "goal streamed <= 1.3x resident: %s (%.2f)\n", (s / a <= 1.3 ? "PASS" : "FAIL"), s / a }'
  echo "each round's xqtb / xiangqitb and streamed / resident wall: ${rounds[*]}"
  echo "streamed files byte-identical to the resident ones: $same"
  echo "-- longest wins per table and side to move (plies; xqtb level index of the DTM win)"
  longest "$w/peer" "$w/xqtb"
done
exit 0
