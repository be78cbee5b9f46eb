#!/usr/bin/env bash
# Kills a streamed build with SIGKILL in the middle of its plies, resumes it, and checks the
# table it ends with is byte for byte the one an uninterrupted build wrote.
#
# DIR must hold MATERIAL's supporting tables (a family built before, e.g. by scripts/scale.sh)
# and REFERENCE is MATERIAL's table from an uninterrupted build. The build goes to a fresh
# directory beside DIR that links DIR's other tables, with its store under TMP. It is killed
# once its progress has passed ply KILL_AT_PLY (default 30) and it has written a checkpoint in
# this run, and again, if KILLS > 1, KILL_AT_PLY plies past where each rerun resumed (order 0
# plies; the plies of an order above 0 count from 1 again); each rerun must resume
# from the checkpoint the run before wrote (not restart) and the last one must end with
# REFERENCE's bytes.
#
# Usage: [MEMORY=1G] [THREADS=2] [KILL_AT_PLY=30] [KILLS=1] [XQTB=path]
#        scripts/kill_resume.sh MATERIAL DIR TMP REFERENCE
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 4 ] || { echo "usage: scripts/kill_resume.sh MATERIAL DIR TMP REFERENCE" >&2; exit 2; }
mat="$1"; dir="$(realpath -m "$2")"; tmp="$(realpath -m "$3")"; ref="$(realpath -m "$4")"
memory="${MEMORY:-1G}"; threads="${THREADS:-2}"; at="${KILL_AT_PLY:-30}"; kills="${KILLS:-1}"
if [ -z "${XQTB:-}" ]; then
  cargo build --release --locked --quiet
  XQTB="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
fi
work="$dir.kill-resume"
rm -rf "$work"; mkdir -p "$work" "$tmp"
for f in "$dir"/*.xqtb; do
  [ "$(basename "$f")" = "$mat.xqtb" ] || ln -s "$f" "$work/"
done
run=(build "$mat" --dir "$work" --tmp "$tmp" --memory "$memory" --threads "$threads"
  --checkpoint-secs 20 --verbose)

for k in $(seq 1 "$kills"); do
  err="$work/run$k.err"
  started=$(date +%s.%N)
  "$XQTB" "${run[@]}" >"$work/run$k.out" 2>"$err" &
  pid=$!
  manifest="$tmp/$mat/manifest.json"
  # --verbose prints a line per ply: kill when the target ply has passed and this run has
  # written a checkpoint (every 20 s).
  checkpointed() {
    [ -f "$manifest" ] && [ "$(stat -c %.9Y "$manifest")" \> "$started" ]
  }
  passed() {
    local from
    from=$(grep -oE "resuming after order [0-9]+ ply [0-9]+" "$err" | grep -oE "[0-9]+$" || true)
    grep -qE "^$mat ply $((${from:-0} + at)) " "$err" 2>/dev/null
  }
  until passed && checkpointed; do
    kill -0 "$pid" 2>/dev/null || { echo "kill_resume: run $k ended before it was killed" >&2; exit 1; }
    sleep 0.2
  done
  kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
  grep -E "resuming" "$err" || true
  echo "kill_resume: run $k killed after $(grep -E "^$mat ply" "$err" | tail -1 | cut -d: -f1)" \
    "($(du -sh "$tmp" | cut -f1) under $tmp)"
done
err="$work/resume.err"
"$XQTB" "${run[@]}" >"$work/resume.out" 2>"$err"
grep -E "resum|restart|damaged" "$err" | head -3 || true
if grep -qE "damaged|from scratch" "$err"; then
  echo "kill_resume: FAILED: the last run did not resume from the checkpoint" >&2; exit 1
fi
grep -qE "resum" "$err" || { echo "kill_resume: FAILED: no resume reported" >&2; exit 1; }
if cmp "$work/$mat.xqtb" "$ref"; then
  echo "kill_resume: $mat resumed after $kills kill(s): identical to $ref"
else
  echo "kill_resume: FAILED: $mat differs from $ref" >&2; exit 1
fi
rm -rf "$work"
