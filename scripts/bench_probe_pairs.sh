#!/usr/bin/env bash
# The probe bench (benches/probe.rs) of another revision against this one's, in alternating
# pairs: this machine's speed drifts 10–30 %, so a ratio is judged by the median of the pairs'
# ratios. Each side builds its tables in its own directory (its own table format).
# Usage: scripts/bench_probe_pairs.sh OLD_REV [PAIRS=5] [FILTER='cold cache|warm cache']
set -euo pipefail
cd "$(dirname "$0")/.."
old_rev="$1"; pairs="${2:-5}"; filter="${3:-cold cache|warm cache}"
work="${BENCH_PAIRS_DIR:-$(mktemp -d)}"
git worktree add --detach "$work/old" "$old_rev" >/dev/null
trap 'git worktree remove --force "$work/old"' EXIT
bench_bin() { # the bench executable cargo builds in directory $1 with target dir $2 (absolute:
  # cargo names it relative to $1 when the target dir is inside it)
  local exe
  exe=$( (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --bench probe --no-run 2>&1) \
    | sed -n 's/.*Executable benches\/probe.rs (\(.*\))/\1/p')
  case "$exe" in /*) echo "$exe" ;; *) echo "$1/$exe" ;; esac
}
old=$(bench_bin "$work/old" "$work/old-target")
new=$(bench_bin "$PWD" "${CARGO_TARGET_DIR:-$PWD/target}")
log="$work/pairs.log"; : > "$log"
for i in $(seq "$pairs"); do
  for v in old new; do
    (cd "$work" && XQTB_BENCH_TABLES="$work/tables-$v" "${!v}" --bench "$filter" \
      --measurement-time 3 --warm-up-time 1 --noplot 2>&1) \
      | grep -A1 "^probe KRNKAABB" | grep -v "^--" | paste - - \
      | sed 's/.*KRNKAABB\///; s/  */ /g' | awk -v v="$v" -v i="$i" '{print i, v": "$0}' >> "$log"
  done
done
python3 - "$log" <<'PY'
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\d+) (old|new): (.*?)\s+time: \[\S+ \S+ (\S+) (\S+)", line)
    if m:
        i, v, name, val, unit = m.groups()
        val = float(val) * {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[unit]
        rows.setdefault(name, {}).setdefault(v, {})[int(i)] = val
for name, d in rows.items():
    ratios = [d["new"][i] / d["old"][i] for i in d["old"] if i in d.get("new", {})]
    print(f"{name:46s} old {statistics.median(d['old'].values()):10.2f} µs  "
          f"new {statistics.median(d['new'].values()):10.2f} µs  "
          f"new/old median {statistics.median(ratios):.3f} ({len(ratios)} pairs)")
PY
