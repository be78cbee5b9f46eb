//! The builder's distance-to-mate tables (`xqtb build --metric dtm`) against the naive forward
//! DTM solver of `tests/reference/dtm.rs` position by position, against the builder's own DTC
//! tables (Fang's Theorem 7: the same win/draw/loss everywhere, and the same seeds of each order
//! of the Asian rules), resident against streamed (the same bytes), and Fang's Theorem 8 across
//! table boundaries: the winner following DTM best moves reaches mate, or a position where the
//! loser can only keep checking or chasing, against every defence.

use crate::common::{assert_ok, build_cmd};
use crate::dtm::Dtm;
use crate::reference::{to_fen, Mat, Solver};
use rand::{Rng, SeedableRng};
use std::path::Path;
use xqtb::table::{metric_table_path, Metric, TableFile};
use xqtb::tablebase::{LineEnd, Tablebase};
use xqtb::{Color, Material, Outcome, Position};

/// Materials compared with the reference, each with the `--rules` it is built under: the
/// reference knows no rules on endless play, which change nothing where one side alone can
/// attack (KRK … KNKA); where both can (KPKA, KPKP, KRKN) the build is without them. KPKP and
/// KRKN have long mates through captures (a pawn or a piece taken on the way).
const COMPARED: &[(&str, &str)] = &[
    ("KRK", "asian"),
    ("KNK", "asian"),
    ("KPK", "asian"),
    ("KNKA", "asian"),
    ("KPKA", "none"),
    ("KPKP", "none"),
    ("KRKN", "none"),
];

/// Every position of the reference's tables of `COMPARED`, probed in the builder's DTM tables
/// through the probing API: the same result and distance, and the mates' level `()` (there are
/// no rules on endless play in the reference).
#[test]
fn builder_dtm_matches_the_reference() {
    let mut solver = Solver::<Dtm>::new();
    let mut report = Vec::new();
    for &(material, rules) in COMPARED {
        let mat = Mat::parse(material);
        solver.solve(&mat);
        let table = &solver.tables[&mat];
        let dir = tempfile::tempdir().unwrap();
        let args = ["--quiet", "--rules", rules, "--metric", "dtm"];
        assert_ok(
            material,
            &build_cmd(material, dir.path(), &args).output().unwrap(),
        );
        let tb = Tablebase::open(dir.path()).unwrap();
        let mut bad = Vec::new();
        for (pos, want) in table.positions().zip(&table.values) {
            let fen = to_fen(&pos);
            let got = tb.probe_dtm(&xqtb::parse_fen(&fen).unwrap()).unwrap();
            let level_ok = got.level().is_none_or(|l| l.is_mate());
            let same = got.outcome().name() == want.result()
                && got.distance().map(u32::from) == want.distance();
            if !same || !level_ok {
                bad.push(format!("  {fen}: builder {got}, reference {want:?}"));
            }
        }
        println!(
            "{material}: {} positions, {} differ",
            table.values.len(),
            bad.len()
        );
        if !bad.is_empty() {
            let n = bad.len();
            bad.truncate(6);
            report.push(format!("{material}: {n} differ, e.g.\n{}", bad.join("\n")));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// Builds `material` in both metrics under the Asian rules into `dir`, with `extra` options.
fn build_both(material: &str, dir: &Path, extra: &[&str]) {
    let mut args = vec!["--quiet", "--metric", "both", "--rules", "asian"];
    args.extend_from_slice(extra);
    assert_ok(material, &build_cmd(material, dir, &args).output().unwrap());
}

/// Every table in `dir` of both metrics (by the DTC files present).
fn materials_in(dir: &Path) -> Vec<Material> {
    let mut v: Vec<Material> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            name.strip_suffix(".xqtb")?.parse().ok()
        })
        .collect();
    v.sort();
    v
}

/// Theorem 7 (Fang 2005) on the built tables, including a table whose captures lead into
/// positions of orders above 0 (KRAKN takes the advisor into KRKN, which has two orders): the
/// WDL of every DTM file equals the DTC file's at every legal entry, and the seeds of each
/// order (losses at distance 0 above order 0) are the same entries.
#[test]
fn dtm_tables_keep_the_dtc_results_and_seeds() {
    let dir = tempfile::tempdir().unwrap();
    build_both("KRAKN", dir.path(), &[]);
    let mut orders_seen = 0;
    for m in materials_in(dir.path()) {
        let dtc = TableFile::open(&metric_table_path(dir.path(), m, Metric::Dtc), 1 << 20).unwrap();
        let dtm = TableFile::open(&metric_table_path(dir.path(), m, Metric::Dtm), 1 << 20).unwrap();
        let (hc, hm) = (dtc.header(), dtm.header());
        assert_eq!(hc.max_order, hm.max_order, "{m}: orders");
        for side in Color::ALL {
            let (c, d) = (hc.sides[side], hm.sides[side]);
            let wdl = |s: xqtb::table::SideCounts| (s.legal, s.win, s.draw, s.loss);
            assert_eq!(wdl(c), wdl(d), "{m}: counts of {side:?}");
        }
        for side in Color::ALL {
            for b in 0..hc.blocks_per_side() {
                // Legal entries only: a DTM file's folded side fills illegal entries from its
                // own stream, whose first block starts from a draw.
                let legal = |f: &TableFile| -> Vec<u8> {
                    let base = b * hc.block_entries as u64;
                    let w = f.read_wdl_block(side, b).unwrap();
                    (0..w.len())
                        .filter(|&k| f.is_legal(side, base + k as u64))
                        .map(|k| w[k])
                        .collect()
                };
                assert!(
                    legal(&dtc) == legal(&dtm),
                    "{m}: WDL of {side:?} block {b} differs"
                );
                let seeds = |f: &TableFile, phase0: u16| -> Vec<(usize, u16)> {
                    f.read_stored(side, b)
                        .unwrap()
                        .iter()
                        .enumerate()
                        .filter_map(|(k, &c)| match xqtb::Value::from_code(c) {
                            // Not the stand-ins of a derived side.
                            Some(xqtb::Value::Decided { order, distance: 0 })
                                if order >= phase0 && order != xqtb::value::DERIVED_ORDER =>
                            {
                                Some((k, order + 1 - phase0))
                            }
                            _ => None,
                        })
                        .collect()
                };
                let dtm_seeds = seeds(&dtm, hm.levels.phase0() as u16);
                let dtc_seeds = seeds(&dtc, 1);
                assert!(
                    dtc_seeds == dtm_seeds,
                    "{m}: seeds of {side:?} block {b}: {} in DTC, {} in DTM",
                    dtc_seeds.len(),
                    dtm_seeds.len()
                );
                orders_seen += dtm_seeds.len();
            }
        }
    }
    assert!(orders_seen > 0, "the family has seeds of orders above 0");
}

/// Resident and streamed DTM builds write the same bytes, at one and two threads, with the
/// frontiers as bitmaps or as lists, with one side's unresolved filter parked or not (KRAKN has
/// Asian-rule orders: its tables with a rule stage keep bitmaps, the others take lists).
#[test]
fn streamed_dtm_builds_are_byte_identical() {
    let resident = tempfile::tempdir().unwrap();
    build_both("KRAKN", resident.path(), &["--threads", "2"]);
    let lists = [
        "--frontier-lists",
        "--memory",
        "64M",
        "--chunk-len",
        "65536",
    ];
    let parked = ["--park-filter", "--memory", "64M", "--chunk-len", "65536"];
    let runs = [
        ("1", &["--stream", "--chunk-len", "65536"][..]),
        ("2", &["--stream", "--chunk-len", "65536"][..]),
        ("1", &lists[..]),
        ("2", &parked[..]),
    ];
    for (threads, how) in runs {
        let streamed = tempfile::tempdir().unwrap();
        let extra = [how, &["--threads", threads]].concat();
        build_both("KRAKN", streamed.path(), &extra);
        for m in materials_in(resident.path()) {
            let a = std::fs::read(metric_table_path(resident.path(), m, Metric::Dtm)).unwrap();
            let b = std::fs::read(metric_table_path(streamed.path(), m, Metric::Dtm)).unwrap();
            assert!(
                a == b,
                "{m}: streamed DTM file differs at {threads} thread(s), {how:?}"
            );
        }
    }
}

/// Theorem 8 (Fang 2005) across tables: from sampled wins of every level, the winner plays a
/// DTM best move and the loser any move (each one in turn at the first ply, then random ones):
/// after every ply the position stays won for the winner, its distance falls, and the game ends
/// in mate, or in a loss at distance 0 of a level other than `()` (the loser can only check or
/// chase forever). KRAKN's wins pass through captures into KRKN, KRK and KAKN.
#[test]
fn dtm_best_moves_mate_against_every_defence() {
    let dir = tempfile::tempdir().unwrap();
    build_both("KRAKN", dir.path(), &[]);
    let tb = Tablebase::open(dir.path()).unwrap();
    let m: Material = "KRAKN".parse().unwrap();
    let file = tb.table_of(m, Metric::Dtm).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    let (mut games, mut ended) = (0, [0usize; 2]);
    let mut levels_seen = std::collections::BTreeSet::new();
    while games < 300 {
        let index = rng.gen_range(0..file.indexer().size());
        let side = Color::ALL[rng.gen_range(0..2)];
        let Some(pos) = file.indexer().decode(index, side) else {
            continue;
        };
        if pos.opponent_in_check() || tb.probe_wdl(&pos).unwrap() != Outcome::Win {
            continue;
        }
        let start = tb.probe_dtm(&pos).unwrap();
        levels_seen.insert(start.level().unwrap().clone());
        let best = tb.best_dtm_moves(&pos).unwrap();
        let mut after = pos.clone();
        after.play(best[0].mv);
        // The winner's best move may already leave the loser only perpetual checks.
        for defence in after.legal_moves() {
            let end = play_out(&tb, &after, defence, &mut rng);
            ended[(end == LineEnd::Perpetual) as usize] += 1;
        }
        games += 1;
    }
    println!(
        "{games} wins, {} games ending in mate, {} in a ruling; levels {levels_seen:?}",
        ended[0], ended[1]
    );
    assert!(
        levels_seen.len() > 1,
        "wins of several levels sampled: {levels_seen:?}"
    );
}

/// Plays `defence` from `pos` (lost for its side to move), then the winner's first best move
/// and random defences until the game ends; checks every ply and returns how it ended.
fn play_out(tb: &Tablebase, pos: &Position, defence: xqtb::Move, rng: &mut impl Rng) -> LineEnd {
    let mut cur = pos.clone();
    let mut last: Option<u16> = None;
    let mut mv = Some(defence);
    loop {
        let v = tb.probe_dtm(&cur).unwrap();
        let d = v.distance().expect("stays decided");
        if let Some(before) = last {
            assert!(d < before, "{}: the distance grew to {d}", to_fen_x(&cur));
        }
        last = Some(d);
        if cur.legal_moves().is_empty() {
            return LineEnd::Mate;
        }
        let next = match v.outcome() {
            Outcome::Win => {
                let best = tb.best_dtm_moves(&cur).unwrap();
                assert_eq!(
                    best[0].for_mover().distance(),
                    Some(d),
                    "{}",
                    to_fen_x(&cur)
                );
                best[0].mv
            }
            Outcome::Loss if d == 0 => {
                let ruling = !v.level().unwrap().is_mate();
                assert!(ruling, "{}: lost at 0 with moves", to_fen_x(&cur));
                return LineEnd::Perpetual;
            }
            Outcome::Loss => mv.take().unwrap_or_else(|| {
                let moves = cur.legal_moves();
                moves[rng.gen_range(0..moves.len())]
            }),
            Outcome::Draw => panic!("{}: a won game reached a draw", to_fen_x(&cur)),
        };
        cur.play(next);
    }
}

fn to_fen_x(p: &Position) -> String {
    xqtb::fen::to_fen(p)
}

/// A DTM build killed in phase 0 (in the level a capture into KRKN's order 1 brings, after a
/// checkpoint) and one killed in its own order 1 resume to the bytes of an uninterrupted build.
#[test]
fn killed_dtm_builds_resume_to_identical_bytes() {
    let clean = tempfile::tempdir().unwrap();
    build_both("KRAKN", clean.path(), &[]);
    let want = std::fs::read(metric_table_path(
        clean.path(),
        "KRAKN".parse().unwrap(),
        Metric::Dtm,
    ));
    // KRAKN's levels: () and (0, 1) of phase 0, then (1): its order 1.
    for at in ["KRAKN:1:3", "KRAKN:2:2"] {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            "--stream",
            "--chunk-len",
            "262144",
            "--checkpoint-secs",
            "0",
        ];
        // DTM only: the DTC build of KRAKN would stop at the same order and ply.
        let mut killed = build_cmd("KRAKN", dir.path(), &["--quiet", "--metric", "dtm"]);
        killed.args(args).env("XQTB_TEST_ABORT_AT", at);
        let out = killed.output().unwrap();
        assert!(!out.status.success(), "the build stopped at {at}");
        let resumed = build_cmd("KRAKN", dir.path(), &["--metric", "both"])
            .args(args)
            .output()
            .unwrap();
        assert_ok("resumed", &resumed);
        let notes = String::from_utf8_lossy(&resumed.stderr);
        let (level, ply) = at[6..].split_once(':').unwrap();
        assert!(
            notes.contains(&format!("resuming after level {level} ply {ply}")),
            "{notes}"
        );
        let got = std::fs::read(metric_table_path(
            dir.path(),
            "KRAKN".parse().unwrap(),
            Metric::Dtm,
        ));
        assert!(
            got.unwrap() == *want.as_ref().unwrap(),
            "killed at {at}: other bytes"
        );
    }
}

/// KNKA's longest mate, 37 plies with Red to move in the C++ generator's tables
/// (`tests/engine/dtm_reference.rs`): the principal line to mate has 37 moves and ends in mate,
/// and `probe` and `stats --metric dtm` say so.
#[test]
fn the_longest_knka_mate_through_api_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    build_both("KNKA", dir.path(), &[]);
    let fen = "9/9/4ka3/9/9/9/9/9/9/5K2N w";
    let tb = Tablebase::open(dir.path()).unwrap();
    let line = tb.dtm_line(&xqtb::parse_fen(fen).unwrap()).unwrap();
    assert_eq!((line.moves.len(), line.end), (37, LineEnd::Mate));
    let distances: Vec<u16> = line
        .moves
        .iter()
        .map(|m| m.value.distance().unwrap())
        .collect();
    assert_eq!(distances, (0..37).rev().collect::<Vec<u16>>());

    let probe = crate::common::xqtb()
        .args(["probe", "--dir"])
        .arg(dir.path())
        .arg(fen)
        .output()
        .unwrap();
    assert_ok("probe", &probe);
    let text = String::from_utf8_lossy(&probe.stdout);
    assert!(text.contains("distance to mate: win 37"), "{text}");
    assert!(text.contains("dtm loss 36 *"), "{text}");

    let stats = crate::common::xqtb()
        .args(["stats", "KNKA", "--metric", "dtm", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_ok("stats", &stats);
    let j: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(j["metric"], "dtm");
    assert_eq!(j["file"], "KNKA.xqdtm");
    assert_eq!(j["levels"], serde_json::json!([[]]));
    assert_eq!(j["sides"]["w"]["longest_win"]["distance"], 37);
}

/// A DTM file stores one side's distances and derives the other's from its moves
/// (`formats/table.md` §5); the builder of a table above reads that side from full values a
/// build leaves under `--tmp` (`formats/build.md` §2.2), or finds them from the moves where no
/// sound ones are there. KRAKN built in one run, built over supporting tables of earlier runs
/// (nothing kept, or kept by `--keep-derived`), and resumed after a kill with a kept file damaged: the same bytes, and
/// nothing left under `--tmp`.
#[test]
fn derived_sides_are_read_from_kept_values_or_found_again() {
    let krakn: Material = "KRAKN".parse().unwrap();
    let one_run = tempfile::tempdir().unwrap();
    build_both("KRAKN", one_run.path(), &[]);
    let want = std::fs::read(metric_table_path(one_run.path(), krakn, Metric::Dtm)).unwrap();
    for m in materials_in(one_run.path()) {
        let f = TableFile::open(&metric_table_path(one_run.path(), m, Metric::Dtm), 0).unwrap();
        assert!(f.header().derived.is_some(), "{m}: no derived side");
    }
    assert!(!one_run.path().join(".work").exists(), "--tmp left behind");

    // Each supporting table by its own run: KRAKN's build finds their derived sides again.
    let runs = tempfile::tempdir().unwrap();
    for m in ["KRKN", "KAKN", "KRAK", "KRAKN"] {
        build_both(m, runs.path(), &[]);
    }
    let got = std::fs::read(metric_table_path(runs.path(), krakn, Metric::Dtm)).unwrap();
    assert!(got == want, "KRAKN over earlier runs' tables: other bytes");

    // Each by its own run with `--keep-derived` and one `--tmp`: each side is found once, kept
    // by the run that built its table and read, unchanged, by the run above.
    let kept_runs = tempfile::tempdir().unwrap();
    let kept_tmp = tempfile::tempdir().unwrap();
    let keep = ["--keep-derived", "--tmp", kept_tmp.path().to_str().unwrap()];
    for m in ["KRKN", "KAKN", "KRAK"] {
        build_both(m, kept_runs.path(), &keep);
    }
    let krkn_kept = kept_tmp.path().join("KRKN.xqdtm-derived");
    let before = std::fs::metadata(&krkn_kept).expect("KRKN's derived side kept");
    build_both("KRAKN", kept_runs.path(), &keep);
    let after = std::fs::metadata(&krkn_kept).expect("still kept");
    assert_eq!(
        (before.modified().unwrap(), before.len()),
        (after.modified().unwrap(), after.len()),
        "KRKN's kept derived side was found again"
    );
    assert!(kept_tmp.path().join("KRAKN.xqdtm-derived").exists());
    let got = std::fs::read(metric_table_path(kept_runs.path(), krakn, Metric::Dtm)).unwrap();
    assert!(got == want, "KRAKN over kept derived sides: other bytes");

    // Killed in KRAKN: the supporting tables' values are kept; one of them damaged (every value
    // zeroed: trusted, it would change KRAKN) is found again.
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let tmp_arg = tmp.path().to_str().unwrap();
    let args = ["--quiet", "--metric", "dtm", "--tmp", tmp_arg];
    let mut killed = build_cmd("KRAKN", dir.path(), &args);
    let out = killed
        .env("XQTB_TEST_ABORT_AT", "KRAKN:1:3")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the build stopped");
    let kept = tmp.path().join("KRKN.xqdtm-derived");
    let mut bytes = std::fs::read(&kept).expect("KRKN's derived side kept");
    check_kept_layout(
        &bytes,
        &metric_table_path(dir.path(), "KRKN".parse().unwrap(), Metric::Dtm),
    );
    bytes[64..].fill(0);
    std::fs::write(&kept, bytes).unwrap();
    assert_ok(
        "resumed",
        &build_cmd("KRAKN", dir.path(), &args).output().unwrap(),
    );
    let got = std::fs::read(metric_table_path(dir.path(), krakn, Metric::Dtm)).unwrap();
    assert!(
        got == want,
        "KRAKN resumed over a damaged kept file: other bytes"
    );
    // `--tmp` left empty goes with its last file (a build removes it, formats/build.md §11).
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left under --tmp: {left:?}");
}

/// A kept derived side (`bytes`, of the DTM table at `table`) has the layout of
/// `formats/build.md` §2.2: the fields at the offsets its table gives, the codes those the
/// probing API finds from the moves.
fn check_kept_layout(bytes: &[u8], table: &Path) {
    use byteorder::{ByteOrder, LE};
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/formats/build.md")).unwrap();
    let section = doc
        .split("### 2.2")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let offsets: Vec<usize> = section
        .lines()
        .filter_map(|l| {
            l.strip_prefix("| ")?
                .split(" |")
                .next()?
                .trim()
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(offsets, [0, 8, 12, 16, 32, 36, 40, 48, 56, 60, 64]);
    let f = TableFile::open(table, 1 << 20).unwrap();
    let (h, id) = (f.header(), f.as_support());
    let side = h.derived.unwrap();
    assert_eq!(&bytes[..8], b"XQTBDRV\0");
    assert_eq!(LE::read_u32(&bytes[8..]), 1);
    assert_eq!(LE::read_u32(&bytes[12..]), side.index() as u32);
    assert_eq!(&bytes[16..20], b"KRKN");
    assert!(bytes[20..32].iter().all(|&b| b == 0));
    assert_eq!(LE::read_u32(&bytes[32..]), id.rule_set as u32);
    assert_eq!(LE::read_u32(&bytes[36..]), id.file_crc);
    let trailer = std::fs::read(table).unwrap();
    assert_eq!(id.file_crc, LE::read_u32(&trailer[trailer.len() - 4..]));
    assert_eq!(LE::read_u64(&bytes[40..]), trailer.len() as u64);
    assert_eq!(LE::read_u64(&bytes[48..]), h.entries);
    assert_eq!(LE::read_u32(&bytes[56..]), crc32fast::hash(&bytes[64..]));
    assert_eq!(LE::read_u32(&bytes[60..]), crc32fast::hash(&bytes[..60]));
    let tb = Tablebase::open(table.parent().unwrap()).unwrap();
    let want: Vec<u32> = (0..h.blocks_per_side())
        .flat_map(|b| tb.dtm_block_codes(h.material, side, b).unwrap())
        .collect();
    let mut got = vec![0u32; h.entries as usize];
    LE::read_u32_into(&bytes[64..], &mut got);
    assert!(
        got == want[..h.entries as usize],
        "the kept codes differ from the derived ones"
    );
}
