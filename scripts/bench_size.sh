#!/usr/bin/env bash
# Table file sizes (issue 9): builds a family (default KRNKAABB: K+R+N against every subset of
# two advisors and two elephants, with the K+R, K+N and defender-only tables it captures into)
# in one `xqtb build --verbose` run and prints, per table, the file's bytes, its WDL-only bytes
# (header + WDL blocks + their block-index entries: what a WDL prober reads), its distance
# blocks' bytes, and the write time; then the family totals and the build's wall time.
# The layout is read by an independent parser of formats/table.md (format 5), below; it also
# names each table's derived side (the one whose distances are found from its moves).
# Usage: scripts/bench_size.sh [MATERIAL] [DIR]   (DIR kept if given, else a temporary one)
set -euo pipefail
cd "$(dirname "$0")/.."
mat="${1:-KRNKAABB}"
cargo build --release --locked --quiet
xq="$PWD/${CARGO_TARGET_DIR:-target}/release/xqtb"
if [ -n "${2:-}" ]; then dir="$2"; mkdir -p "$dir"; else
  dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT; fi
log="$dir/build.log"
start=$(date +%s.%N)
"$xq" build "$mat" --dir "$dir" --verbose >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
end=$(date +%s.%N)
python3 - "$dir" "$log" "$start" "$end" <<'PY'
import os, struct, sys, re, zlib
d, log, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
writes = {}
for line in open(log):
    m = re.match(r"^(\S+) write: ([0-9.]+) s", line)
    if m:
        writes[m.group(1)] = float(m.group(2))
rows = []
for name in sorted(os.listdir(d)):
    if not name.endswith(".xqtb"):
        continue
    b = open(os.path.join(d, name), "rb").read()
    assert b[:8] == b"XQTB\x1aTBL", name
    version, = struct.unpack_from("<I", b, 8)
    assert version == 5, f"{name}: format {version}"
    assert zlib.crc32(b[:252]) == struct.unpack_from("<I", b, 252)[0], name
    supports, supports_crc = struct.unpack_from("<II", b, 244)
    assert zlib.crc32(b[256 : 256 + 32 * supports]) == supports_crc, name
    assert zlib.crc32(b[:-4]) == struct.unpack_from("<I", b, len(b) - 4)[0], name
    block_entries, entries, nb = struct.unpack_from("<IQI", b, 36)
    index_offset, file_len = struct.unpack_from("<QQ", b, 184)
    assert file_len == len(b)
    lens = [struct.unpack_from("<QII", b, index_offset + 16 * k)[1] for k in range(4 * nb)]
    # What a WDL probe reads: header and supporting-table list, WDL blocks, their index entries.
    wdl = 256 + 32 * supports + sum(lens[: 2 * nb]) + 2 * nb * 16
    dtc = sum(lens[2 * nb :])
    derived, = struct.unpack_from("<I", b, 240)
    side = {0: "w", 1: "b", 0xFFFFFFFF: "-"}[derived]
    mat = name[: -len(".xqtb")]
    rows.append((mat, len(b), wdl, dtc, writes.get(mat, 0.0), side))
print(f"{'table':10} {'file bytes':>12} {'WDL bytes':>10} {'DTC blocks':>11} {'write s':>8} derived")
for r in sorted(rows, key=lambda r: r[1]):
    print(f"{r[0]:10} {r[1]:12d} {r[2]:10d} {r[3]:11d} {r[4]:8.2f} {r[5]:>7}")
tot = [sum(r[i] for r in rows) for i in (1, 2, 3, 4)]
print(f"{'family':10} {tot[0]:12d} {tot[1]:10d} {tot[2]:11d} {tot[3]:8.2f}")
print(f"{len(rows)} tables, {tot[0] / 1e6:.2f} MB ({tot[1] / 1e6:.2f} MB WDL); "
      f"write {tot[3]:.1f} s of a {end - start:.1f} s build")
PY
