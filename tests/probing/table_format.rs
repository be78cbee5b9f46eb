//! Table format 5 (formats/table.md): round trips through the real writer and reader (every
//! symbol width, several blocks, a derived side, illegal entries never returned), every single
//! flipped byte detected, older formats refused with a rebuild hint, and mutated files never
//! panicking the reader.

use crate::common::{build_lib_with, Notes};
use proptest::prelude::*;
use std::path::Path;
use xqtb::table::{
    derived_stand_in, distance_implied, is_order_seed, Firsts, Histogram, Levels, Metric, RuleSet,
    SideCounts, Stream, SupportingTable, TableError, TableFile, TableWriter, BLOCK_ENTRIES,
};
use xqtb::{ByColor, Color, Indexer, Material, Value};

/// A deterministic value for a legal entry: draws, wins and losses at distances up to `span`
/// (odd = win), and, with `orders`, some of order 1 (seeds among them), varying slowly along the
/// index so blocks compress like real tables.
fn synthetic(index: u64, side: usize, span: u64, orders: bool) -> Value {
    let x = (index / 7).wrapping_mul(0x9E37_79B9) ^ side as u64;
    match x % 5 {
        0 => Value::Draw,
        4 if (index / 7).is_multiple_of(3) => Value::Decided {
            order: orders as u16,
            distance: (index % 4) as u16,
        },
        _ => Value::Decided {
            order: 0,
            distance: ((index / 3 + x % 3) % span) as u16,
        },
    }
}

/// The codes of a synthetic table: 0 for entries that are not legal positions.
fn codes(ix: &Indexer, side: usize, span: impl Fn(u64) -> u64, orders: bool) -> Vec<u32> {
    (0..ix.size())
        .map(|i| {
            let legal = ix
                .decode(i, Color::ALL[side])
                .is_some_and(|p| !p.opponent_in_check());
            if legal {
                synthetic(i, side, span(i), orders).code()
            } else {
                0
            }
        })
        .collect()
}

/// Writes a synthetic table of `material` into `dir` through [`TableWriter`], in pieces of
/// `piece` entries, side `derived` (if any) derived, a DTM table with `levels` if given; returns
/// its path and codes.
fn write_table(
    dir: &Path,
    material: &str,
    piece: usize,
    span: impl Fn(u64) -> u64 + Copy,
    (derived, levels): (Option<usize>, Option<&Levels>),
) -> (std::path::PathBuf, [Vec<u32>; 2]) {
    let m: Material = material.parse().unwrap();
    let ix = Indexer::new(m).unwrap();
    let metric = if levels.is_some() {
        Metric::Dtm
    } else {
        Metric::Dtc
    };
    let path = xqtb::table::metric_table_path(dir, m, metric);
    // Values of order 1 where the rules can make them.
    let rule_set = RuleSet::DtcAsian.for_material(m);
    let orders = rule_set.has_orders();
    let all = [codes(&ix, 0, span, orders), codes(&ix, 1, span, orders)];
    let derived = derived.map(|s| Color::ALL[s]);
    let mut w = TableWriter::create(&path, m, ix.size(), (derived, levels), &supports(m)).unwrap();
    for (side, c) in Color::ALL.into_iter().zip(&all) {
        for p in c.chunks(piece) {
            w.write(side, p).unwrap();
        }
    }
    let mut sides = ByColor::<SideCounts>::default();
    let mut tallies: ByColor<(Histogram, Firsts)> = Default::default();
    for (side, c) in Color::ALL.into_iter().zip(&all) {
        for (i, &code) in c.iter().enumerate() {
            if let Some(v) = Value::from_code(code) {
                sides[side].count(v, 1, i as u64);
                count(&mut tallies[side], v, i as u64);
            }
        }
    }
    w.finish(rule_set, sides, &tallies, orders as u16).unwrap();
    (path, all)
}

/// Records of supporting tables for a synthetic table of `m` (no such files exist).
fn supports(m: Material) -> Vec<SupportingTable> {
    m.captures_into()
        .into_iter()
        .map(|s| SupportingTable {
            material: s,
            rule_set: RuleSet::DtcAsian.for_material(s),
            file_crc: 0x1234_5678,
            file_len: 1000,
        })
        .collect()
}

/// Does a stored code stand for the written one? Equal, except that a win at `(0, 1)` and a
/// loss at `(0, 0)` keep only their outcome (their distance is not stored, format 4 §5), and so
/// does every value of a derived side but the seeds of order 1 (a stand-in).
fn stands_for(stored: Option<Value>, written: Option<Value>, derived: bool) -> bool {
    match (stored, written) {
        (Some(s), Some(w @ Value::Decided { .. })) if derived && !is_order_seed(w) => {
            s == derived_stand_in(w.outcome())
        }
        (Some(s), Some(w)) if !derived && distance_implied(w) => s.outcome() == w.outcome(),
        (s, w) => s == w,
    }
}

fn check_round_trip<R: xqtb::table::ReadAt>(t: &TableFile<R>, all: &[Vec<u32>; 2]) {
    t.verify_checksums().unwrap();
    let h = t.header();
    for (side, c) in all.iter().enumerate() {
        let derived = h.derived == Some(Color::ALL[side]);
        let mut implied = 0;
        for block in 0..h.blocks_per_side() {
            let got = t.read_stored(Color::ALL[side], block).unwrap();
            let base = (block * h.block_entries as u64) as usize;
            let want = &c[base..base + got.len()];
            for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
                let (g, w) = (Value::from_code(g), Value::from_code(w));
                assert!(
                    stands_for(g, w, derived),
                    "side {side} entry {}: {g:?} for {w:?}",
                    base + k
                );
                implied += w.is_some_and(distance_implied) as u64;
            }
        }
        assert!(
            implied > 0,
            "the synthetic table has wins and losses at once"
        );
        assert!(
            !h.rule_set.has_orders()
                || c.iter()
                    .filter_map(|&code| Value::from_code(code))
                    .any(is_order_seed),
            "and seeds of order 1 (side {side})"
        );
        // The value table counts every value, the implied and derived ones too, with the
        // first index of each.
        let mut tally = Default::default();
        for (i, &code) in c.iter().enumerate() {
            if let Some(v) = Value::from_code(code) {
                count(&mut tally, v, i as u64);
            }
        }
        assert_eq!(
            (t.histogram(Color::ALL[side]), t.firsts(Color::ALL[side])),
            tally
        );
        for (i, &code) in c.iter().enumerate().step_by(97) {
            let i = i as u64;
            let want = Value::from_code(code);
            assert!(
                stands_for(t.stored(Color::ALL[side], i).unwrap(), want, derived),
                "{i}"
            );
            if code != 0 {
                assert!(stands_for(
                    Some(t.stored_legal(Color::ALL[side], i).unwrap()),
                    want,
                    derived
                ));
                assert_eq!(
                    t.outcome_legal(Color::ALL[side], i).unwrap(),
                    Value::from_code(code).unwrap().outcome()
                );
            } else {
                assert_eq!(t.outcome(Color::ALL[side], i).unwrap(), None);
            }
        }
    }
}

/// Counts one position holding `v` in a histogram (decided values only), as the value table
/// counts them (`formats/table.md` §7).
fn count((hist, firsts): &mut (Histogram, Firsts), v: Value, index: u64) {
    if let Value::Decided { order, distance } = v {
        *hist.entry((order, distance)).or_default() += 1;
        firsts.entry((order, distance)).or_insert(index);
    }
}

#[test]
fn round_trip_every_width_and_several_blocks() {
    let dir = tempfile::tempdir().unwrap();
    // KRKN: 364,500 entries a side, two blocks each. Distances up to 20 (4-bit symbols) in the
    // first block, up to 400 (8 bits) and then 1,000 (16 bits) in the second.
    let span = |i: u64| match i {
        i if i < BLOCK_ENTRIES as u64 => 20,
        i if i < 300_000 => 400,
        _ => 1000,
    };
    // Pieces that cut blocks anywhere.
    let (path, all) = write_table(dir.path(), "KRKN", 100_003, span, (None, None));
    let t = TableFile::open(&path, 1 << 20).unwrap();
    assert_eq!(t.header().blocks_per_side(), 2);
    assert!(t.values().len() > 256, "{} symbols", t.values().len());
    check_round_trip(&t, &all);
    // The same bytes through the in-memory reader.
    let bytes = std::fs::read(&path).unwrap();
    let widths: Vec<u8> = (0..2)
        .flat_map(|b| {
            let t = &t;
            Color::ALL
                .into_iter()
                .map(move |s| t.read_stream_block(Stream::Dtc, s, b).unwrap()[0])
        })
        .collect();
    assert!(widths.contains(&8) && widths.contains(&16), "{widths:?}");
    let v = TableFile::from_reader(bytes, &path, 1 << 20).unwrap();
    check_round_trip(&v, &all);
    let small = write_table(dir.path(), "KNK", 1 << 30, |_| 9, (Some(1), None));
    let t = TableFile::open(&small.0, 0).unwrap();
    assert_eq!(
        t.read_stream_block(Stream::Dtc, Color::Red, 0).unwrap()[0],
        4,
        "nibbles"
    );
    check_round_trip(&t, &small.1);
}

/// Format 7: a DTM table's sides that are not derived carry their outcomes in their distance
/// streams (`formats/table.md` §5.1, §7.1). With no side, Red or Black derived, every entry
/// reads back (a derived one as its stand-in but for the seeds), a folded side's WDL is read
/// from its distances, and the bytes are where the format puts them, parsed here on their own:
/// each side record's fold-table length at +36, the fold tables between the value table and the
/// block index holding the side's values in order of first use, and a folded side's WDL blocks
/// empty in the block index.
#[test]
fn dtm_sides_fold_their_outcomes_into_their_distances() {
    let dir = tempfile::tempdir().unwrap();
    let levels = Levels::for_table(std::iter::empty(), 1);
    let span = |i: u64| if i < BLOCK_ENTRIES as u64 { 6 } else { 600 };
    for derived in [None, Some(0), Some(1)] {
        let (path, all) = write_table(dir.path(), "KRKN", 70_001, span, (derived, Some(&levels)));
        let t = TableFile::open(&path, 1 << 20).unwrap();
        t.verify_checksums().unwrap();
        let h = t.header().clone();
        let bytes = std::fs::read(&path).unwrap();
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        assert_eq!(u32_at(8), 7, "format version");
        let index_offset = u64_at(184) as usize;
        let folds = [u32_at(56 + 36) as usize, u32_at(120 + 36) as usize];
        let mut fold_at = index_offset - 4 * (folds[0] + folds[1]);
        let nb = h.blocks_per_side() as usize;
        let mut widths = Vec::new();
        for (side, c) in all.iter().enumerate() {
            let color = Color::ALL[side];
            let is_derived = derived == Some(side);
            // The side's decided values in order of first use: its fold table.
            let mut first_use: Vec<(u16, u16)> = Vec::new();
            for v in c.iter().filter_map(|&code| Value::from_code(code)) {
                if let Value::Decided { order, distance } = v {
                    if !first_use.contains(&(order, distance)) {
                        first_use.push((order, distance));
                    }
                }
            }
            let table: Vec<(u16, u16)> = (0..folds[side])
                .map(|k| {
                    let e = fold_at + 4 * k;
                    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
                    (u16_at(e), u16_at(e + 2))
                })
                .collect();
            fold_at += 4 * folds[side];
            assert_eq!(
                table,
                if is_derived { vec![] } else { first_use },
                "side {side}"
            );
            let wdl_lens: Vec<u32> = (0..nb)
                .map(|b| u32_at(index_offset + 16 * (side * nb + b) + 8))
                .collect();
            assert_eq!(
                wdl_lens.iter().all(|&n| n == 0),
                !is_derived,
                "{wdl_lens:?}"
            );
            for block in 0..h.blocks_per_side() {
                let got = t.read_stored(color, block).unwrap();
                let wdl = t.read_wdl_block(color, block).unwrap();
                widths.push(t.read_stream_block(Stream::Dtc, color, block).unwrap()[0]);
                let base = (block * h.block_entries as u64) as usize;
                for (k, &g) in got.iter().enumerate() {
                    let (g, w) = (Value::from_code(g), Value::from_code(c[base + k]));
                    let want = match w {
                        Some(v @ Value::Decided { .. }) if is_derived && !is_order_seed(v) => {
                            Some(derived_stand_in(v.outcome()))
                        }
                        w => w,
                    };
                    assert_eq!(g, want, "side {side} entry {}", base + k);
                    if let Some(w) = w {
                        let symbol = w.outcome() as u8; // loss 0, draw 1, win 2
                        assert_eq!(wdl[k], symbol, "side {side} entry {} WDL", base + k);
                        let i = (base + k) as u64;
                        assert_eq!(t.outcome_legal(color, i).unwrap(), w.outcome());
                    }
                }
            }
        }
        assert_eq!(fold_at, index_offset);
        assert!(widths.contains(&4) && widths.contains(&16), "{widths:?}");
        // Every single flipped byte of the fold tables is an error at open or a check.
        for i in index_offset - 4 * (folds[0] + folds[1])..index_offset {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            assert!(read_all(bad, &path).is_err(), "byte {i}");
        }
    }
}

/// The trailer, a table's identity in the tables built from it (§4.1), covers the header.
/// Over every byte before it, header_crc included, it would not: a crc32 followed by its own
/// crc32 leaves a constant state, so a header rewritten with a fresh header_crc kept the file's
/// trailer (and its identity) unchanged.
#[test]
fn the_trailer_covers_the_header() {
    let (_dir, path, good) = small_file();
    let mut bad = good.clone();
    bad[0xcc] ^= 0x20; // the builder field: "Xqtb"
    let crc = crc32fast::hash(&bad[..252]);
    bad[252..256].copy_from_slice(&crc.to_le_bytes());
    let t = TableFile::from_reader(bad.clone(), &path, 1 << 16).unwrap();
    assert!(matches!(
        t.verify_file_checksum(),
        Err(TableError::FileChecksum(_))
    ));
    assert_eq!(
        crc32fast::hash(&bad[..bad.len() - 4]),
        crc32fast::hash(&good[..good.len() - 4]),
        "a crc32 over the header with its own crc32 does not see the change"
    );
}

/// A small real-writer file: KNKA (16,470 entries a side, one block each).
fn small_file() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write_table(dir.path(), "KNKA", 5000, |_| 30, (Some(0), None));
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

/// Opens and fully checks in-memory bytes; then probes a few entries and reads every block.
fn read_all(bytes: Vec<u8>, path: &Path) -> Result<(), TableError> {
    let t = TableFile::from_reader(bytes, path, 1 << 16)?;
    t.verify_checksums()?;
    let h = t.header().clone();
    for side in 0..2 {
        for i in [0, 1, h.entries / 2, h.entries - 1, h.entries, u64::MAX] {
            let _ = t.stored(Color::ALL[side], i);
            let _ = t.stored_legal(Color::ALL[side], i);
            let _ = t.outcome_legal(Color::ALL[side], i);
        }
        for block in 0..h.blocks_per_side() {
            t.read_stored(Color::ALL[side], block)?;
        }
    }
    Ok(())
}

#[test]
fn every_flipped_byte_and_truncation_is_an_error() {
    let (_dir, path, good) = small_file();
    read_all(good.clone(), &path).unwrap();
    for i in 0..good.len() {
        for mask in [0x01u8, 0x80] {
            let mut bad = good.clone();
            bad[i] ^= mask;
            assert!(
                read_all(bad, &path).is_err(),
                "byte {i} of {} xor {mask:#x} not detected",
                good.len()
            );
        }
    }
    for cut in 0..good.len() {
        assert!(read_all(good[..cut].to_vec(), &path).is_err(), "cut {cut}");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert!(read_all(longer, &path).is_err());
}

/// Files of formats 1 and 2 (KRK, written by the releases that wrote them) are refused, never
/// misread: format 2 differs from 3 only in what some distance symbols mean.
#[test]
fn formats_1_and_2_are_refused_with_a_rebuild_hint() {
    for version in [1, 2] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/KRK.format{version}.xqtb"));
        let err = match TableFile::open(&path, 1 << 20) {
            Err(e) => e,
            Ok(_) => panic!("a format-{version} file was opened"),
        };
        assert!(matches!(err, TableError::OldFormat { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("format version {version}"))
                && msg.contains("xqtb build KRK --dir"),
            "{msg}"
        );
        // And from bytes.
        let bytes = std::fs::read(&path).unwrap();
        assert!(matches!(
            TableFile::from_reader(bytes, &path, 0),
            Err(TableError::OldFormat { .. })
        ));
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Extend(Vec<u8>),
    /// Overwrite a run with copies of one byte (zeroed or saturated fields).
    Fill(usize, usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(i, m)| Mutation::Flip(i, m)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Mutation::Set(i, v)),
        any::<usize>().prop_map(Mutation::Truncate),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(Mutation::Extend),
        (any::<usize>(), 1..32usize, any::<u8>()).prop_map(|(i, n, v)| Mutation::Fill(i, n, v)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    match *m {
        Mutation::Flip(i, x) => {
            if let Some(b) = bytes.get_mut(i % len) {
                *b ^= x;
            }
        }
        Mutation::Set(i, v) => {
            if let Some(b) = bytes.get_mut(i % len) {
                *b = v;
            }
        }
        Mutation::Truncate(n) => bytes.truncate(n % len),
        Mutation::Extend(ref tail) => bytes.extend_from_slice(tail),
        Mutation::Fill(i, n, v) => {
            let start = i % len;
            let end = (start + n).min(bytes.len());
            if start < end {
                bytes[start..end].fill(v);
            }
        }
    }
}

/// Recomputes every checksum a mutated file carries (each block's in the block index, the value
/// table and index one, the header's, the trailer) wherever the header still locates them, so
/// the mutation reaches the parsers and the decompressor behind them.
fn reseal(b: &mut [u8]) {
    let n = b.len();
    if n < 260 {
        return;
    }
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let nb = u32_at(b, 48) as usize;
    let symbols = u32_at(b, 236) as usize;
    let index = u64_at(b, 184) as usize;
    let index_end = index.checked_add(64 * nb + 4);
    let supports = u32_at(b, 244) as usize;
    if supports < 1 << 20 && 256 + 32 * supports <= n {
        let crc = crc32fast::hash(&b[256..256 + 32 * supports]);
        b[248..252].copy_from_slice(&crc.to_le_bytes());
    }
    if nb < 1 << 20
        && symbols < 1 << 20
        && index >= 68 * symbols
        && index_end.is_some_and(|e| e <= n)
    {
        for k in 0..4 * nb {
            let e = index + 16 * k;
            let (off, len) = (u64_at(b, e) as usize, u32_at(b, e + 8) as usize);
            if off.checked_add(len).is_some_and(|end| end <= n) {
                let crc = crc32fast::hash(&b[off..off + len]);
                b[e + 12..e + 16].copy_from_slice(&crc.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&b[index - 68 * symbols..n - 4]);
        b[200..204].copy_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&b[..252]);
    b[252..256].copy_from_slice(&crc.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..252]);
    crc.update(&b[256..n - 4]);
    b[n - 4..].copy_from_slice(&crc.finalize().to_le_bytes());
}

/// Each rule set's invariants are checked when a table opens (`formats/table.md` §4, §11): a
/// table of rule set dtc-order0 or dtc-any has order 0 only, dtc-any is recorded exactly for a
/// material the rules cannot change (no side has an attacking piece), and no value has an order above the header's maximum.
/// (A resume under other rules once wrote a dtc-order0 header with max order 1, which `verify`
/// passed.)
#[test]
fn every_rule_sets_invariants_are_checked_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let (krkn, _) = write_table(dir.path(), "KRKN", 1 << 30, |_| 30, (None, None));
    let (knka, _) = write_table(dir.path(), "KNKA", 1 << 30, |_| 30, (None, None));
    let (kabka, _) = write_table(dir.path(), "KABKA", 1 << 30, |_| 30, (None, None));
    let good = |p: &Path| std::fs::read(p).unwrap();
    let open = |mut b: Vec<u8>, path: &Path| {
        reseal(&mut b);
        TableFile::from_reader(b, path, 0)
            .err()
            .map(|e| e.to_string())
    };
    let with = |p: &Path, patches: &[(usize, u32)]| {
        let mut b = good(p);
        for &(at, v) in patches {
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        b
    };
    assert_eq!(open(good(&krkn), &krkn), None);
    assert_eq!(open(good(&knka), &knka), None);
    assert_eq!(open(good(&kabka), &kabka), None);
    // KRKN (max order 1) relabelled dtc-order0, then also its max order set to 0.
    let e = open(with(&krkn, &[(16, 1)]), &krkn).unwrap();
    assert!(
        e.contains("max order 1 in a table of rule set dtc-order0"),
        "{e}"
    );
    // (Its supporting tables' records, KNK's and KRK's at 256 + 32 k, relabelled too: a
    // dtc-order0 table lists dtc-order0 ones.)
    let order0 = [(16, 1), (52, 0), (256 + 16, 1), (256 + 48, 1)];
    let e = open(with(&krkn, &order0), &krkn).unwrap();
    assert!(e.contains("impossible value: order 1"), "{e}");
    // dtc-any for a material the rules change, and another rule set for one they cannot.
    let e = open(with(&krkn, &[(16, 4), (52, 0)]), &krkn).unwrap();
    assert!(e.contains("rule set dtc-any for KRKN"), "{e}");
    let e = open(with(&kabka, &[(16, 3)]), &kabka).unwrap();
    assert!(e.contains("rule set dtc-asian for KABKA"), "{e}");
    // A table with attacking pieces on one side only, as an earlier xqtb wrote it (dtc-any):
    // its values may be wrong (formats/table.md §4.1), and the error says to rebuild it.
    let e = open(with(&knka, &[(16, 4), (52, 0)]), &knka).unwrap();
    assert!(
        e.contains("rule set dtc-any for KNKA") && e.contains("rebuild the table"),
        "{e}"
    );
    // And a table listing such a supporting table (KRKN built from a dtc-any KNK): it may have
    // taken wrong values through its captures.
    let e = open(with(&krkn, &[(256 + 16, 4)]), &krkn).unwrap();
    assert!(
        e.contains("KNK of rule set dtc-any, which that material cannot have")
            && e.contains("rebuild the table"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    /// Any mutation of a valid file: an error or a clean read, never a panic.
    #[test]
    fn mutated_files_never_panic(
        ms in proptest::collection::vec(mutation(), 1..4),
        sealed in any::<bool>(),
    ) {
        thread_local! {
            static GOOD: (tempfile::TempDir, std::path::PathBuf, Vec<u8>) = small_file();
        }
        GOOD.with(|(_, path, good)| {
            let mut bytes = good.clone();
            for m in &ms {
                apply(&mut bytes, m);
            }
            if sealed {
                reseal(&mut bytes);
            }
            let changed = bytes != *good;
            let r = read_all(bytes, path);
            if changed && !sealed {
                prop_assert!(r.is_err(), "{ms:?} not detected");
            }
            Ok(())
        })?;
    }
}

#[test]
fn build_replaces_a_format_1_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KRK.xqtb");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/KRK.format1.xqtb"),
        &path,
    )
    .unwrap();
    let opts = xqtb::builder::BuildOptions {
        memory: 64 << 20,
        ..xqtb::builder::BuildOptions::new(dir.path())
    };
    let notes = Notes::default();
    build_lib_with("KRK", &opts, &notes);
    let t = TableFile::open(&path, 1 << 20).unwrap();
    assert_eq!(t.header().sides[Color::Red].legal, 3834);
    t.verify_checksums().unwrap();
    let notes = notes.into_lines().join("\n");
    assert!(notes.contains("format version 1"), "{notes}");
}

/// A header (with a valid checksum) claiming blocks that are huge or not a multiple of 32
/// entries is refused at open: no reader decompresses a block larger than 8 MiB, and the
/// builder's packing of supporting tables relies on whole 64-bit words.
#[test]
fn odd_block_sizes_are_refused() {
    let (_dir, path, good) = small_file();
    for be in [1u32 << 30, 100, 31] {
        let mut bytes = good.clone();
        bytes[36..40].copy_from_slice(&be.to_le_bytes());
        let nb = 5000u64.div_ceil(be as u64) as u32;
        bytes[48..52].copy_from_slice(&nb.to_le_bytes());
        reseal(&mut bytes);
        let e = TableFile::from_reader(bytes, &path, 1 << 16)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("entries per block"), "{be}: {e}");
    }
}
