//! Verification of a distance-to-mate table (`<M>.xqdtm`; Fang, "The Nature of Retrograde
//! Analysis for Chinese Chess", 2005, Section 5.1, Definitions 8 and 9, Theorems 7 and 8; the
//! levels across captures: `formats/dtm.md`). Like syzygy's `rtbver`, it reads every entry's
//! children forward, from this file and the supporting DTM files, and shares no code with the
//! builder's propagation: a check that ran the same code as the build would miss its bugs.
//!
//! A DTM file implies no distance; on its derived side (`formats/table.md` §5) it stores only the
//! outcome (and the seeds of its own phases). Each legal entry is checked against the best value
//! its moves give the mover (Definition 9 on level indices, which are sorted as their keys): a
//! quiet move into a value `(L, d)` gives `(L, d + 1)`, a capture into a value `(L', d)` of the
//! smaller table gives `(capture_map[L'], d + 1)`, and no move gives `(0, 0)` (mate or
//! stalemate). So a win `(L, d)` has a move into a loss at `(L, d − 1)` and none into a smaller
//! loss, a loss `(L, d)`, `d > 0`, only moves into wins with the largest at `(L, d − 1)`, and a
//! draw no move into a loss and one into a draw. The one exception is the seed of an own phase
//! `k` (Fang's perpetual-check and chase patterns), a loss at `(phase_index(k), 0)`: its moves
//! all reach wins, the largest at `(phase_index(k), 1)`, as `verify` checks DTC's order seeds.
//! A derived entry takes the value its moves give (its quiet moves reach the stored side), which
//! must have its stored outcome; the stored side is then checked against those values. The
//! header's counts, longest wins, value-table histogram and level table are recomputed.
//!
//! Theorem 7: when the DTC file of the material is present, every legal entry's win, draw or loss
//! is the DTC file's, and the seeds of own phase `k` are exactly its seeds of order `k` (the DTC
//! verifier re-derives those from Fang's patterns: `src/verify/orders.rs`). Without it the seeds
//! are checked against their moves only ([`DtcCheck::Absent`]).
//!
//! Memory: every entry's value code of the table and of its supporting tables, 4 bytes an entry
//! and side, in RAM (children are read at random, a block cache would thrash). A supporting
//! table's derived side is read through the probing API (`Tablebase::dtm_block_codes`), which
//! finds each value from the moves as a probe does.

use super::{Failure, Report, KEEP};
use crate::fen::to_fen;
use crate::index::{Decoder, IndexError};
use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::position::{Move, Position};
use crate::retro::Bitmap;
use crate::table::{
    is_order_seed, is_stand_in, merge_tallies, metric_table_path, side_char, Firsts, Histogram,
    Levels, Metric, SideCounts, TableError, TableFile, Tally,
};
use crate::tablebase::{ProbeError, Tablebase};
use crate::value::{Value, CODE_NONE};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use thiserror::Error;

/// What verifying a DTM table found: its entries' checks (and the comparison with the DTC
/// table, whose mismatches count as failures too), and whether that comparison was made.
#[derive(Debug)]
pub struct DtmReport {
    /// Entries checked and failures, as [`super::verify_table`] reports them.
    pub report: Report,
    /// Whether the W/D/L and the seeds were compared with the DTC file (Theorem 7).
    pub dtc: DtcCheck,
}

/// Whether a DTM table was compared with the DTC table of its material (Fang's Theorem 7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DtcCheck {
    /// Compared, entry by entry, with this file.
    Compared(PathBuf),
    /// No DTC file at this path: not compared, and the seeds of the table's own phases were
    /// checked against their moves only, not re-derived from Fang's patterns.
    Absent(PathBuf),
}

/// Why a DTM table could not be verified at all (every variant names the file).
#[derive(Debug, Error)]
pub enum DtmError {
    /// A table file cannot be read or is corrupted (checksums, blocks, header).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A DTM file the verification needs is not there.
    #[error(
        "{0}: no such distance-to-mate table (`xqtb build {1} --metric dtm` builds it and the \
         tables below it)"
    )]
    Missing(PathBuf, Material),
    /// A file named as a DTM table holds another metric.
    #[error("{path}: a {found} table, where a distance-to-mate table was expected")]
    WrongMetric {
        /// The file.
        path: PathBuf,
        /// Its metric's name.
        found: &'static str,
    },
    /// A supporting table's level key has no level one capture up in the table's level table.
    #[error("{path}: its level table has no key {key}, where captures into {support} lead")]
    Levels {
        /// The table.
        path: PathBuf,
        /// The supporting table.
        support: PathBuf,
        /// The missing key.
        key: String,
    },
    /// A supporting table's derived side could not be found from its moves.
    #[error("{path}: finding its derived side's values from the moves: {why}")]
    Derived {
        /// The supporting table.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A position of the table's material could not be indexed (a bug, not a corruption).
    #[error("{path}: {source}")]
    Index {
        /// The table.
        path: PathBuf,
        /// Why.
        #[source]
        source: IndexError,
    },
}

/// Entries checked in one run of a side, in index order (a unit of parallel work).
const RUN: u64 = 1 << 14;

/// Verifies the DTM table of `material` in `dir` (see the module): checksums (a typed error on the
/// first bad one), every legal entry against its children, the header's counts, and the W/D/L
/// and seeds against the DTC table if present. `progress` is called with entries done, `2 ×
/// entries` in all.
pub fn verify_dtm(
    dir: &Path,
    material: Material,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<DtmReport, DtmError> {
    let mut family = Family::open(dir, material.canonical())?;
    let failures = Failures::default();
    if let Some(side) = family.top.file.header().derived {
        // Filled in place: a derived entry's moves reach the other side and smaller tables.
        let mut codes = std::mem::take(&mut family.top.codes[side]);
        let checker = Checker {
            family: &family,
            failures: &failures,
        };
        checker.derive_side(side, &mut codes)?;
        family.top.codes[side] = codes;
    }
    let checker = Checker {
        family: &family,
        failures: &failures,
    };
    checker.header();
    let entries = family.top.file.header().entries;
    let legal = ByColor::new(|_| Bitmap::new(entries));
    for side in Color::ALL {
        let (counts, tally) = checker.side(side, &legal[side], progress)?;
        checker.counts(side, counts, tally);
    }
    let dtc = checker.against_dtc(dir, &legal)?;
    Ok(DtmReport {
        report: failures.report(2 * entries),
        dtc,
    })
}

/// A DTM file with every entry's stored value code ([`Value::code`]; entries that are not
/// legal positions hold a code meaning nothing).
struct Loaded {
    file: TableFile,
    codes: ByColor<Vec<u32>>,
}

impl Loaded {
    /// Opens `material`'s DTM file in `dir`, checks its whole-file checksum and reads every
    /// block (each block's checksum checked as it is read).
    fn open(dir: &Path, material: Material) -> Result<Loaded, DtmError> {
        let path = metric_table_path(dir, material, Metric::Dtm);
        // The values are read once, block by block: a small cache is enough.
        let file = match TableFile::open(&path, 1 << 20) {
            Err(TableError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Err(DtmError::Missing(path, material));
            }
            other => other?,
        };
        let h = file.header();
        if h.metric != Metric::Dtm {
            let found = h.metric.name();
            return Err(DtmError::WrongMetric { path, found });
        }
        if h.material != material {
            let (expected, found) = (material, h.material);
            return Err(TableError::WrongMaterial {
                path,
                expected,
                found,
            }
            .into());
        }
        file.verify_file_checksum()?;
        let codes = ByColor([
            read_side(&file, Color::Red)?,
            read_side(&file, Color::Black)?,
        ]);
        Ok(Loaded { file, codes })
    }

    /// Replaces the stand-ins of the derived side, if any, by the values their moves give (read
    /// through the probing API: the tables below are checked on their own).
    fn resolve_derived(&mut self, tb: &Tablebase) -> Result<(), DtmError> {
        let h = self.file.header();
        let Some(side) = h.derived else {
            return Ok(());
        };
        let be = h.block_entries as usize;
        self.codes[side]
            .par_chunks_mut(be)
            .enumerate()
            .try_for_each(|(block, out)| -> Result<(), DtmError> {
                let codes = tb
                    .dtm_block_codes(h.material, side, block as u64)
                    .map_err(|e| derived_error(&self.file, e))?;
                out.copy_from_slice(&codes[..out.len()]);
                Ok(())
            })
    }

    /// The value of `side`'s entry `index` (`None` if it holds none).
    fn value(&self, side: Color, index: u64) -> Option<Value> {
        Value::from_code(self.codes[side][index as usize])
    }

    /// The side to move and entry of `pos`, a position of this table's material or its
    /// colour-flipped twin (which shares the table, stored in canonical orientation).
    fn entry_of(&self, pos: &Position) -> Result<(Color, u64), DtmError> {
        let index = |p: &Position| {
            let path = self.file.path().to_owned();
            let i = self.file.indexer().encode(p);
            i.map_err(|source| DtmError::Index { path, source })
        };
        if Material::of(pos).is_canonical() {
            return Ok((pos.turn(), index(pos)?));
        }
        let flipped = pos.flip_colors();
        Ok((flipped.turn(), index(&flipped)?))
    }
}

/// A supporting table's derived side could not be read through the probing API.
fn derived_error(file: &TableFile, e: ProbeError) -> DtmError {
    DtmError::Derived {
        path: file.path().to_owned(),
        why: e.to_string(),
    }
}

/// Every stored code of one side of `file`, blocks read in parallel.
fn read_side(file: &TableFile, side: Color) -> Result<Vec<u32>, TableError> {
    let h = file.header();
    let mut codes = vec![CODE_NONE; h.entries as usize];
    codes
        .par_chunks_mut(h.block_entries as usize)
        .enumerate()
        .try_for_each(|(block, out)| -> Result<(), TableError> {
            out.copy_from_slice(&file.read_stored_raw(side, block as u64)?);
            Ok(())
        })?;
    Ok(codes)
}

/// A supporting table, and where its level indices land in the table above, one capture up.
struct Support {
    material: Material,
    table: Loaded,
    map: Vec<u16>,
}

/// The table verified and the supporting tables its captures lead to.
struct Family {
    top: Loaded,
    subs: Vec<Support>,
}

impl Family {
    /// Opens `material`'s DTM table and each supporting table its header records, which must be
    /// the very file it was built from (a capture's value read from another file would prove
    /// nothing).
    fn open(dir: &Path, material: Material) -> Result<Family, DtmError> {
        let top = Loaded::open(dir, material)?;
        let tb = Tablebase::open(dir).map_err(|e| derived_error(&top.file, e))?;
        let mut subs = Vec::new();
        for record in &top.file.header().supports {
            let mut table = Loaded::open(dir, record.material)?;
            table.resolve_derived(&tb)?;
            record.check(&table.file.as_support(), top.file.path(), table.file.path())?;
            let map = capture_map(&top.file, &table.file)?;
            let material = record.material;
            subs.push(Support {
                material,
                table,
                map,
            });
        }
        Ok(Family { top, subs })
    }

    fn levels(&self) -> &Levels {
        &self.top.file.header().levels
    }

    /// The supporting table of a canonical material.
    fn support(&self, material: Material) -> Option<&Support> {
        self.subs.iter().find(|s| s.material == material)
    }
}

/// Where each level of `sub` lands in `top`'s level table, one capture up.
fn capture_map(top: &TableFile, sub: &TableFile) -> Result<Vec<u16>, DtmError> {
    let (levels, sub_levels) = (&top.header().levels, &sub.header().levels);
    levels.capture_map(sub_levels).ok_or_else(|| {
        let missing = (0..sub_levels.len() as u16)
            .filter_map(|i| sub_levels.key(i))
            .map(|k| k.through_capture())
            .find(|k| levels.index_of(k).is_none());
        DtmError::Levels {
            path: top.path().to_owned(),
            support: sub.path().to_owned(),
            key: missing.map_or_else(String::new, |k| k.to_string()),
        }
    })
}

/// Failures found by parallel checks: all counted, the first [`KEEP`] kept.
#[derive(Default)]
struct Failures {
    kept: Mutex<Vec<Failure>>,
    count: AtomicU64,
}

impl Failures {
    fn add(&self, fen: String, what: String) {
        self.count.fetch_add(1, Relaxed);
        let mut kept = self.kept.lock().unwrap();
        if kept.len() < KEEP {
            kept.push(Failure { fen, what });
        }
    }

    /// The report of `entries_checked` entries, failures sorted by FEN.
    fn report(self, entries_checked: u64) -> Report {
        let mut failures = self.kept.into_inner().unwrap();
        failures.sort_by(|a, b| a.fen.cmp(&b.fen));
        Report {
            entries_checked,
            failure_count: self.count.into_inner(),
            failures,
        }
    }
}

/// A value with its level's key: `win 5 (level 2, key (0, 1))`.
fn show(levels: &Levels, v: Value) -> String {
    match v {
        Value::Draw => "draw".into(),
        Value::Decided { order, distance } => {
            let key = levels
                .key(order)
                .map_or_else(|| "no such level".into(), |k| format!("key {k}"));
            format!("{} {distance} (level {order}, {key})", v.outcome().name())
        }
    }
}

/// The value a move into a position of value `child` gives the mover (Definition 8: one ply
/// more, the level kept); `None` past the largest distance a file holds.
fn for_mover(child: Value) -> Option<Value> {
    match child {
        Value::Draw => Some(Value::Draw),
        Value::Decided { order, distance } => Some(Value::Decided {
            order,
            distance: distance.checked_add(1)?,
        }),
    }
}

/// Where the value table (`held`) and the entries (`found`) differ: `(0, 3): 52149 held, 52147
/// in the entries; …` (empty if nowhere; a value missing from one side is none there).
fn differences(held: &Histogram, found: &Histogram) -> String {
    let keys: std::collections::BTreeSet<_> = held.keys().chain(found.keys()).collect();
    let show = |m: &Histogram, k| m.get(k).map_or_else(|| "none".into(), u64::to_string);
    keys.into_iter()
        .filter(|k| held.get(k) != found.get(k))
        .map(|k| {
            format!(
                "{k:?}: {} held, {} in the entries",
                show(held, k),
                show(found, k)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The own phase `k` a value is a seed of: a loss at `(phase_index(k), 0)`.
fn seed_phase(levels: &Levels, v: Value) -> Option<u16> {
    match v {
        Value::Decided { order, distance: 0 }
            if (levels.phase0()..levels.len()).contains(&(order as usize)) =>
        {
            Some((order as usize - levels.phase0() + 1) as u16)
        }
        _ => None,
    }
}

/// Checks a family's top table, reporting to `failures`.
struct Checker<'a> {
    family: &'a Family,
    failures: &'a Failures,
}

impl Checker<'_> {
    fn path(&self) -> &Path {
        self.family.top.file.path()
    }

    fn fail_header(&self, what: String) {
        let at = format!("header of {}", self.path().display());
        self.failures.add(at, what);
    }

    /// The header's field the entries do not give: the level table the supporting tables and
    /// the own phases make.
    fn header(&self) {
        let h = self.family.top.file.header();
        let subs = self
            .family
            .subs
            .iter()
            .map(|s| &s.table.file.header().levels);
        let want = Levels::for_table(subs, h.max_order);
        if want != h.levels {
            self.fail_header(format!(
                "level table {:?}, but its supporting tables and {} own phases give {want:?}",
                h.levels, h.max_order
            ));
        }
    }

    /// Replaces each stand-in in `codes`, the derived side `side`'s (taken out of the table while
    /// they are filled), by the value its moves give (a failure where that value is not of the
    /// stored outcome).
    fn derive_side(&self, side: Color, codes: &mut [u32]) -> Result<(), DtmError> {
        let indexer = self.family.top.file.indexer();
        codes.par_chunks_mut(RUN as usize).enumerate().try_for_each(
            |(run, out)| -> Result<(), DtmError> {
                let mut decoder = Decoder::new(indexer);
                for (k, code) in out.iter_mut().enumerate() {
                    let Some(stand_in) = Value::from_code(*code).filter(|&v| is_stand_in(v)) else {
                        continue;
                    };
                    let index = run as u64 * RUN + k as u64;
                    let Some(pos) = decoder.decode_mut(index, side) else {
                        continue;
                    };
                    if pos.opponent_in_check() {
                        continue;
                    }
                    // A child without a usable value is reported when the entry is checked.
                    let Ok(best) = self.best(pos)? else {
                        continue;
                    };
                    if best.outcome() != stand_in.outcome() {
                        let what = format!(
                            "holds a {} (derived side), its moves give {}",
                            stand_in.outcome().name(),
                            show(self.family.levels(), best)
                        );
                        self.failures.add(to_fen(pos), what);
                    }
                    *code = best.code();
                }
                Ok(())
            },
        )
    }

    /// Checks every entry of `side`, marking the legal ones in `legal`; returns their counts.
    fn side(
        &self,
        side: Color,
        legal: &Bitmap,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(SideCounts, (Histogram, Firsts)), DtmError> {
        let entries = self.family.top.file.header().entries;
        (0..entries.div_ceil(RUN))
            .into_par_iter()
            .map(|run| {
                let range = run * RUN..entries.min((run + 1) * RUN);
                let len = range.end - range.start;
                let counts = self.run(side, range, legal);
                progress(len);
                counts
            })
            .try_reduce(Default::default, |(a, ta), (b, tb)| {
                Ok((a.merge(b), merge_tallies(ta, tb)))
            })
    }

    /// Checks the entries `range` of `side` in index order (as the counts need them).
    fn run(
        &self,
        side: Color,
        range: std::ops::Range<u64>,
        legal: &Bitmap,
    ) -> Result<(SideCounts, (Histogram, Firsts)), DtmError> {
        let indexer = self.family.top.file.indexer();
        let mut decoder = Decoder::new(indexer);
        let (mut counts, mut tally) = (SideCounts::default(), Tally::new());
        for index in range {
            let Some(pos) = decoder.decode_mut(index, side) else {
                continue;
            };
            if pos.opponent_in_check() {
                continue;
            }
            legal.set(index);
            let Some(value) = self.entry(pos, index)? else {
                continue;
            };
            let mult = indexer.multiplicity(index) as u64;
            counts.count(value, mult, index);
            tally.add(value, mult, index);
        }
        Ok((counts, tally.finish()))
    }

    /// Checks the legal entry `index` of `pos` against its moves; returns its value (`None`
    /// if it holds none, a failure). `pos` is left as it was.
    fn entry(&self, pos: &mut Position, index: u64) -> Result<Option<Value>, DtmError> {
        let levels = self.family.levels();
        let Some(stored) = self.family.top.value(pos.turn(), index) else {
            let what = "legal position without a value".to_string();
            self.failures.add(to_fen(pos), what);
            return Ok(None);
        };
        let problem = match self.best(pos)? {
            _ if stored.order().is_some_and(|o| o as usize >= levels.len()) => Some(format!(
                "holds {}, beyond its level table of {} levels",
                show(levels, stored),
                levels.len()
            )),
            Err(why) => Some(why),
            Ok(best) if best == stored || self.seed_holds(stored, best) => None,
            Ok(best) => Some(self.contradiction(stored, best)),
        };
        if let Some(what) = problem {
            self.failures.add(to_fen(pos), what);
        }
        Ok(Some(stored))
    }

    /// A seed of an own phase (a loss at `(P, 0)`) is a loss of one of Fang's patterns, whose
    /// moves inside the pattern reach wins at `(P, 1)` and whose other moves reach wins found
    /// earlier: the best value its moves give is `(P, 2)`, not `(P, 0)` (as DTC's order seeds).
    fn seed_holds(&self, stored: Value, best: Value) -> bool {
        let levels = self.family.levels();
        seed_phase(levels, stored).is_some()
            && best
                == Value::Decided {
                    order: stored.order().unwrap_or(0),
                    distance: 2,
                }
    }

    /// What is wrong with an entry holding `stored` whose moves give `best`.
    fn contradiction(&self, stored: Value, best: Value) -> String {
        let levels = self.family.levels();
        let (held, given) = (show(levels, stored), show(levels, best));
        match seed_phase(levels, stored) {
            Some(k) => format!(
                "holds {held}, a seed of own phase {k}, but its moves give {given} (a seed's \
                 moves all reach wins, the largest at distance 1 of its level)"
            ),
            None => format!("holds {held}, its moves give {given}"),
        }
    }

    /// The best value the moves of `pos` give the mover (Definition 9: the order of
    /// [`Value::rank`], level indices sorted as their keys); a loss at `(0, 0)` without a move.
    /// `Ok(Err(why))` if a child holds no usable value.
    fn best(&self, pos: &mut Position) -> Result<Result<Value, String>, DtmError> {
        let mut best = Value::Decided {
            order: 0,
            distance: 0,
        };
        for (k, mv) in pos.legal_moves().into_iter().enumerate() {
            let v = match self.child(pos, mv)? {
                Ok(v) => v,
                Err(why) => return Ok(Err(why)),
            };
            if k == 0 || v.rank() > best.rank() {
                best = v;
            }
        }
        Ok(Ok(best))
    }

    /// The value `mv` gives the mover of `pos`, read from the child's table (`Ok(Err(why))` if
    /// it holds none). `pos` is left as it was.
    fn child(&self, pos: &mut Position, mv: Move) -> Result<Result<Value, String>, DtmError> {
        let capture = pos.is_capture(mv);
        let undo = pos.play(mv);
        let got = match capture {
            true => self.capture_child(pos),
            false => self.quiet_child(pos),
        };
        let got = got.map(|r| {
            r.and_then(|v| for_mover(v).ok_or_else(|| "a distance beyond 65535".to_string()))
                .map_err(|why| format!("its move to {}: {why}", to_fen(pos)))
        });
        pos.undo(mv, undo);
        got
    }

    /// The value of `child`, reached by a quiet move: an entry of this table.
    fn quiet_child(&self, child: &Position) -> Result<Result<Value, String>, DtmError> {
        let top = &self.family.top;
        let (side, index) = top.entry_of(child)?;
        Ok(top.value(side, index).ok_or_else(|| "no value".into()))
    }

    /// The value of `child`, reached by a capture: an entry of a supporting table, its level
    /// mapped to this table's (one capture up).
    fn capture_child(&self, child: &Position) -> Result<Result<Value, String>, DtmError> {
        let material = Material::of(child).canonical();
        let Some(sub) = self.family.support(material) else {
            return Ok(Err(format!("no supporting table {material} in the header")));
        };
        let (side, index) = sub.table.entry_of(child)?;
        let file = sub.table.file.path().display();
        Ok(match sub.table.value(side, index) {
            None => Err(format!("no value in {file}")),
            Some(Value::Draw) => Ok(Value::Draw),
            Some(Value::Decided { order, distance }) => match sub.map.get(order as usize) {
                Some(&order) => Ok(Value::Decided { order, distance }),
                None => Err(format!("level {order} beyond the level table of {file}")),
            },
        })
    }

    /// Compares `side`'s counts from the entries with the header's and the value table's.
    fn counts(&self, side: Color, counts: SideCounts, (hist, firsts): (Histogram, Firsts)) {
        let file = &self.family.top.file;
        let c = side_char(side);
        let differ = [
            ("positions", differences(&file.histogram(side), &hist)),
            ("first index", differences(&file.firsts(side), &firsts)),
        ];
        for (what, diff) in differ.iter().filter(|(_, d)| !d.is_empty()) {
            self.failures.add(
                format!("value table of {}", file.path().display()),
                format!("side {c}, {what} per (level, distance): {diff}"),
            );
        }
        if counts != file.header().sides[side] {
            let held = file.header().sides[side];
            self.fail_header(format!(
                "side {c} counts {held:?} but the entries give {counts:?}"
            ));
        }
    }

    /// Theorem 7 against the DTC file of the material, if present: the same W/D/L at every
    /// legal entry, and the seeds of own phase `k` exactly the DTC file's seeds of order `k`.
    fn against_dtc(&self, dir: &Path, legal: &ByColor<Bitmap>) -> Result<DtcCheck, DtmError> {
        let h = self.family.top.file.header();
        let path = metric_table_path(dir, h.material, Metric::Dtc);
        if !path.exists() {
            return Ok(DtcCheck::Absent(path));
        }
        let dtc = TableFile::open(&path, 1 << 20)?;
        if self.comparable(&dtc) {
            for side in Color::ALL {
                let blocks = dtc.header().blocks_per_side();
                (0..blocks)
                    .into_par_iter()
                    .try_for_each(|block| self.compare_block(&dtc, side, block, &legal[side]))?;
            }
        }
        Ok(DtcCheck::Compared(path))
    }

    /// Whether `dtc`'s header allows an entry-by-entry comparison (a failure says why not), and
    /// whether it has as many orders as this table has own phases (a failure if not).
    fn comparable(&self, dtc: &TableFile) -> bool {
        let (h, d) = (self.family.top.file.header(), dtc.header());
        let dtc_path = dtc.path().display();
        let differ = if d.metric != Metric::Dtc {
            Some(format!("{dtc_path} is a {} table", d.metric.name()))
        } else if (d.material, d.entries) != (h.material, h.entries) {
            Some(format!(
                "{dtc_path} holds {} ({} entries)",
                d.material, d.entries
            ))
        } else if d.rule_set != h.rule_set {
            Some(format!("{dtc_path} holds rule set {}", d.rule_set.name()))
        } else {
            None
        };
        if let Some(why) = differ {
            self.fail_header(format!("{why}: not compared (Theorem 7)"));
            return false;
        }
        if d.max_order != h.max_order {
            self.fail_header(format!(
                "own phases up to {}, but {dtc_path} has orders up to {} (Theorem 7)",
                h.max_order, d.max_order
            ));
        }
        true
    }

    /// Compares one block of `dtc`'s entries of `side` with this table's.
    fn compare_block(
        &self,
        dtc: &TableFile,
        side: Color,
        block: u64,
        legal: &Bitmap,
    ) -> Result<(), DtmError> {
        let first = block * dtc.header().block_entries as u64;
        for (k, &code) in dtc.read_stored_raw(side, block)?.iter().enumerate() {
            let index = first + k as u64;
            // An entry without a value failed its own check.
            let dtm = self.family.top.value(side, index);
            if let (true, Some(dtm), Some(dtc_value)) =
                (legal.get(index), dtm, Value::from_code(code))
            {
                self.compare_entry(dtc, side, index, dtm, dtc_value);
            }
        }
        Ok(())
    }

    /// One legal entry against the DTC file's (`dtc`: the value it stores, the stand-in of a
    /// derived side holding the outcome).
    fn compare_entry(&self, file: &TableFile, side: Color, index: u64, dtm: Value, dtc: Value) {
        let levels = self.family.levels();
        let decode = || self.family.top.file.indexer().decode(index, side);
        // A DTC loss at once stores any distance, so `(r, 0)` is a seed only with a quiet move
        // (a seed is in a pattern, which it leaves by quiet moves).
        let dtc_seed = match is_order_seed(dtc) {
            true => decode()
                .filter(|p| p.has_legal_quiet())
                .and_then(|_| dtc.order()),
            false => None,
        };
        let dtm_seed = seed_phase(levels, dtm);
        let dtc_path = file.path().display();
        let what = if dtm.outcome() != dtc.outcome() {
            format!(
                "holds {} but {dtc_path} holds a {} (Theorem 7: the same win, draw or loss)",
                show(levels, dtm),
                dtc.outcome().name()
            )
        } else if dtm_seed != dtc_seed {
            let seed = |s: Option<u16>, of: &str| match s {
                Some(k) => format!("a seed of {of} {k}"),
                None => "no seed".to_string(),
            };
            format!(
                "is {} here but {} in {dtc_path} (Theorem 7: the seeds of own phase k are the \
                 DTC table's of order k)",
                seed(dtm_seed, "own phase"),
                seed(dtc_seed, "order")
            )
        } else {
            return;
        };
        let fen = decode().map(|p| to_fen(&p)).unwrap_or_default();
        self.failures.add(fen, what);
    }
}
