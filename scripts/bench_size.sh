#!/usr/bin/env bash
# Table file sizes (issue 9): builds a family (default KRNKAABB: K+R+N against every subset of
# two advisors and two elephants, with the K+R, K+N and defender-only tables it captures into)
# in one `xqtb build --verbose` run and prints, per table, the file's bytes, its WDL-only bytes
# (header + WDL blocks + their block-index entries: what a WDL prober reads), its distance
# blocks' bytes, and the write time; then the family totals and the build's wall time.
# The layout is read by an independent parser of formats/table.md (format 7), below; it also
# names each table's derived side (the one whose distances are found from its moves) and splits
# the distance bytes by side to move. In a DTM file the side not derived keeps no WDL blocks: its
# distance bytes carry its outcomes (formats/table.md §5.1).
# Usage: [METRIC=dtc|dtm] [SKIP_BUILD=1] scripts/bench_size.sh [MATERIAL] [DIR]
# (DIR kept if given, else a temporary one; METRIC=dtm builds and reads the .xqdtm files;
# SKIP_BUILD=1 reads the tables already in DIR.)
set -euo pipefail
cd "$(dirname "$0")/.."
mat="${1:-KRNKAABB}"
[ -n "${SKIP_BUILD:-}" ] || cargo build --release --locked --quiet
xq="$(realpath -m "${CARGO_TARGET_DIR:-target}")/release/xqtb"
if [ -n "${2:-}" ]; then dir="$2"; mkdir -p "$dir"; else
  dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT; fi
metric="${METRIC:-dtc}"
log="$dir/build.log"
start=$(date +%s.%N)
if [ -z "${SKIP_BUILD:-}" ]; then
  "$xq" build "$mat" --dir "$dir" --metric "$metric" --verbose >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
else
  : >"$log"
fi
end=$(date +%s.%N)
python3 - "$dir" "$log" "$start" "$end" "$metric" <<'PY'
import os, struct, sys, re, zlib
d, log, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
ext = {"dtc": ".xqtb", "dtm": ".xqdtm"}[sys.argv[5]]
writes = {}
for line in open(log):
    m = re.match(r"^(\S+) write: ([0-9.]+) s", line)
    if m:
        writes[m.group(1)] = float(m.group(2))
rows = []
for name in sorted(os.listdir(d)):
    if not name.endswith(ext):
        continue
    b = open(os.path.join(d, name), "rb").read()
    assert b[:8] == b"XQTB\x1aTBL", name
    version, = struct.unpack_from("<I", b, 8)
    assert version == 7, f"{name}: format {version}"
    assert zlib.crc32(b[:252]) == struct.unpack_from("<I", b, 252)[0], name
    supports, supports_crc = struct.unpack_from("<II", b, 244)
    assert zlib.crc32(b[256 : 256 + 32 * supports]) == supports_crc, name
    # The trailer: every byte before it but header_crc (formats/table.md §9).
    assert zlib.crc32(b[256:-4], zlib.crc32(b[:252])) == struct.unpack_from("<I", b, len(b) - 4)[0], name
    block_entries, entries, nb = struct.unpack_from("<IQI", b, 36)
    index_offset, file_len = struct.unpack_from("<QQ", b, 184)
    assert file_len == len(b)
    lens = [struct.unpack_from("<QII", b, index_offset + 16 * k)[1] for k in range(4 * nb)]
    levels_len, = struct.unpack_from("<I", b, 112)
    # Fold tables (DTM: a folded side's values, its WDL blocks empty) between the value table
    # and the block index.
    folded = [struct.unpack_from("<I", b, 56 + 64 * s + 36)[0] for s in (0, 1)]
    symbols, = struct.unpack_from("<I", b, 236)
    assert index_offset - 4 * sum(folded) - 68 * symbols >= 256 + levels_len, name
    # What a WDL probe reads: header, supporting-table list, level table (DTM), WDL blocks and
    # their index entries.
    wdl = 256 + 32 * supports + levels_len + sum(lens[: 2 * nb]) + 2 * nb * 16
    dtc = (sum(lens[2 * nb : 3 * nb]), sum(lens[3 * nb :]))
    derived, = struct.unpack_from("<I", b, 240)
    side = {0: "w", 1: "b", 0xFFFFFFFF: "-"}[derived]
    mat = name[: -len(ext)]
    rows.append((mat, len(b), wdl, dtc[0], dtc[1], writes.get(mat, 0.0), side))
print(f"{'table':10} {'file bytes':>12} {'WDL bytes':>10} {'dist. w':>10} {'dist. b':>10} {'write s':>8} derived")
for r in sorted(rows, key=lambda r: r[1]):
    print(f"{r[0]:10} {r[1]:12d} {r[2]:10d} {r[3]:10d} {r[4]:10d} {r[5]:8.2f} {r[6]:>7}")
tot = [sum(r[i] for r in rows) for i in (1, 2, 3, 4, 5)]
print(f"{'family':10} {tot[0]:12d} {tot[1]:10d} {tot[2]:10d} {tot[3]:10d} {tot[4]:8.2f}")
print(f"{len(rows)} tables, {tot[0] / 1e6:.2f} MB ({tot[1] / 1e6:.2f} MB WDL); "
      f"write {tot[4]:.1f} s of a {end - start:.1f} s build")
PY
