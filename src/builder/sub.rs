//! Supporting tables as the builder's initialisation pass sees them: for each capture, the
//! win/draw/loss of the resulting position, read from the smaller table's final file. Where the
//! budget allows, a table's results are held as 2 bits per entry of each side to move captures
//! lead to (Wu and Beal's point: a few bits per position in RAM); otherwise probes go through
//! the file's bounded block cache. A DTM build reads each capture's full value instead, its
//! level mapped to the table being built ([`Subtables::dtm_value`]): held as 32-bit codes per
//! entry where the budget allows, else read through the file.

use super::derived::{self, Derived, Hold};
use super::{BuildError, StopFlag, Withheld};
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{Color, Piece, Role};
use crate::position::Position;
use crate::retro::Progress;
use crate::table::{
    is_stand_in, metric_table_path, Levels, Metric, RuleSet, SupportingTable, TableError, TableFile,
};
use crate::tablebase::partial::withheld_stand_in;
use crate::value::{Outcome, Value};
use rayon::prelude::*;
use std::path::Path;

enum Source {
    /// 2 bits per entry of each side captures lead to, by side (`None`: no capture leads to
    /// that side to move): 1 loss, 2 draw, 3 win (0: never filled in, an error).
    Packed([Option<Vec<u64>>; 2]),
    /// DTM: the value code ([`Value::code`]) of every entry of each side captures lead to.
    Codes([Option<Vec<u32>>; 2]),
    File(Box<TableFile>),
    /// A table a partial build withholds: every capture into it is a win for this side
    /// (`formats/partial.md` §2).
    Withheld(Color),
}

struct Sub {
    indexer: Indexer,
    /// The captured material is stored colour-flipped: flip the position before probing.
    flip: bool,
    source: Source,
    /// DTM: the level here of each of its level indices, one capture up.
    levels: Vec<u16>,
    /// DTM: the full values of the table's derived side, if captures lead there
    /// ([`super::derived`]): its file stores only their outcomes.
    derived: Option<(Color, Derived)>,
}

/// The supporting tables of one material, by the piece code captured.
pub struct Subtables {
    by_code: [Option<usize>; 16],
    subs: Vec<Sub>,
    /// What the build records of each (`formats/table.md` §4.1), by material.
    supports: Vec<SupportingTable>,
    /// DTM: the table's keys of phase 0, from the supporting tables' levels.
    levels: Option<Levels>,
}

/// Bytes of one side of a table with `entries` entries per side, packed.
pub fn packed_bytes(entries: u64) -> u64 {
    entries.div_ceil(32) * 8
}

/// Keeps the derived side of `material`'s DTM table in `dir` under `tmp` if the captures reach
/// it (`sides`: the sides they reach), found within `budget` bytes: before any table is packed,
/// so the search through its stand-ins' moves has the room the packed tables take later.
fn keep_derived(
    (dir, tmp): (&Path, &Path),
    (material, partial): (Material, Option<Color>),
    sides: [bool; 2],
    budget: u64,
    (progress, stop): (&dyn Progress, &StopFlag),
) -> Result<(), BuildError> {
    let path = metric_table_path(dir, material, Metric::Dtm);
    let file = TableFile::open(&path, 0)?;
    match file.header().derived {
        Some(d) if sides[d.index()] => {
            derived::keep((dir, tmp), (&file, partial), d, budget, (progress, stop))
        }
        _ => Ok(()),
    }
}

impl Subtables {
    /// Opens the tables of `metric` in `dir` that `material`'s captures lead to, packing those
    /// that fit in `pack_budget` bytes (smallest first) and reading the rest through caches of
    /// `cache_bytes` each; DTM derived sides not kept yet are found first, within `budget`
    /// bytes (what the build has not taken yet), under `progress`. Returns them and the bytes
    /// they hold. Each must be of a rule set that combines with `rule_set`, the table's. A DTM
    /// table's derived side is read from its full values kept under `tmp`.
    pub fn open(
        (dir, tmp): (&Path, &Path),
        (material, withheld): (Material, Option<&Withheld>),
        (rule_set, metric): (RuleSet, Metric),
        (pack_budget, budget): (u64, u64),
        cache_bytes: usize,
        (progress, stop): (&dyn Progress, &StopFlag),
    ) -> Result<(Subtables, u64), BuildError> {
        let mut by_code = [None; 16];
        let mut wanted: Vec<(Material, bool)> = Vec::new();
        // The sides to move each table is probed at: after a capture of one of `color`'s
        // pieces, `color` is to move (the other if the table holds the colour-flipped twin).
        // Most tables are reached at one side only, and only that side is packed.
        let mut sides: Vec<[bool; 2]> = Vec::new();
        for color in Color::ALL {
            for role in Role::ALL {
                if let Some(m) = material.captured(color, role) {
                    let key = (m.canonical(), m != m.canonical());
                    let i = wanted.iter().position(|w| *w == key).unwrap_or_else(|| {
                        wanted.push(key);
                        sides.push([false; 2]);
                        wanted.len() - 1
                    });
                    let to_move = if key.1 { !color } else { color };
                    sides[i][to_move.index()] = true;
                    by_code[Piece::new(color, role).code() as usize] = Some(i);
                }
            }
        }
        let mut order: Vec<usize> = (0..wanted.len()).collect();
        let bytes: Vec<u64> = wanted
            .iter()
            .zip(&sides)
            .map(|((m, _), s)| {
                let n = s.iter().filter(|&&x| x).count() as u64;
                Indexer::new(*m).map(|ix| match metric {
                    Metric::Dtc => n * packed_bytes(ix.size()),
                    Metric::Dtm => n * 4 * ix.size(),
                })
            })
            .collect::<Result<_, _>>()?;
        order.sort_by_key(|&i| bytes[i]);
        if metric == Metric::Dtm {
            let unwithheld = |&&i: &&usize| !withheld.is_some_and(|w| w.holds(wanted[i].0));
            for &i in order.iter().filter(unwithheld) {
                let partial = withheld.map(|w| w.best_for);
                keep_derived(
                    (dir, tmp),
                    (wanted[i].0, partial),
                    sides[i],
                    budget,
                    (progress, stop),
                )?;
            }
        }
        let mut slots: Vec<Option<(Sub, Levels)>> = wanted.iter().map(|_| None).collect();
        let mut supports = Vec::new();
        let mut used = 0u64;
        for i in order {
            let (m, flip) = wanted[i];
            if let Some(w) = withheld.filter(|w| w.holds(m)) {
                supports.push(SupportingTable::withheld(m, rule_set, w.best_for));
                let source = Source::Withheld(w.best_for);
                slots[i] = Some((sub(m, flip, source, None)?, Levels::default()));
                continue;
            }
            let path = metric_table_path(dir, m, metric);
            let in_memory = used + bytes[i] <= pack_budget;
            // A DTM table read through its file shares its cache with its kept derived side.
            let file_cache = match metric {
                Metric::Dtm if !in_memory => cache_bytes / 2,
                _ => cache_bytes,
            };
            let file = TableFile::open(&path, file_cache)?;
            check_support(&file, m, (rule_set, metric))?;
            if !supports.iter().any(|s: &SupportingTable| s.material == m) {
                supports.push(file.as_support());
            }
            // DTM: a derived side captures lead to is read from its full values.
            let hold = match in_memory {
                true => Hold::Memory,
                false => Hold::Cache(cache_bytes - file_cache),
            };
            let derived = match file.header().derived {
                Some(d) if metric == Metric::Dtm && sides[i][d.index()] => {
                    Some((d, derived::open(tmp, &file, d, hold)?))
                }
                _ => None,
            };
            let stored_sides = Color::ALL
                .map(|c| sides[i][c.index()] && derived.as_ref().is_none_or(|(d, _)| *d != c));
            let source = if in_memory {
                used += bytes[i];
                match metric {
                    Metric::Dtc => pack(&file, stored_sides)?,
                    Metric::Dtm => codes(&file, stored_sides)?,
                }
            } else {
                used += cache_bytes as u64;
                Source::File(Box::new(file))
            };
            slots[i] = Some((sub(m, flip, source, derived)?, level_table(&path, metric)?));
        }
        supports.sort_by_key(|s| s.material);
        let (mut subs, sub_levels): (Vec<Sub>, Vec<Levels>) = slots
            .into_iter()
            .map(|s| s.expect("every table opened"))
            .unzip();
        let levels = (metric == Metric::Dtm).then(|| Levels::for_table(&sub_levels, 0));
        if let Some(levels) = &levels {
            for (sub, l) in subs.iter_mut().zip(&sub_levels) {
                sub.levels = levels.capture_map(l).expect("built from this table");
            }
        }
        Ok((
            Subtables {
                supports,
                by_code,
                subs,
                levels,
            },
            used,
        ))
    }

    /// DTM: the table's keys of phase 0 (the mates' and one up from each supporting table's).
    pub fn levels(&self) -> Option<&Levels> {
        self.levels.as_ref()
    }

    /// The tables as read, by material: what the table built from them records.
    pub fn supports(&self) -> &[SupportingTable] {
        &self.supports
    }

    /// The table a capture of a piece of code `captured` leads to, and where `child`, the
    /// position after it, is there (side to move, index).
    #[inline]
    fn locate(&self, captured: u8, child: &Position) -> Result<(&Sub, Color, u64), BuildError> {
        let sub = &self.subs[self.by_code[captured as usize].expect("a capturable piece")];
        if sub.flip {
            let flipped = child.flip_colors();
            return Ok((sub, flipped.turn(), sub.indexer.encode(&flipped)?));
        }
        Ok((sub, child.turn(), sub.indexer.encode(child)?))
    }

    /// DTM: the value of `child`, a position reached by capturing a piece of code `captured`,
    /// for its side to move, its level one capture up (an index of [`Subtables::levels`]).
    #[inline]
    pub fn dtm_value(&self, captured: u8, child: &Position) -> Result<Value, BuildError> {
        let sub = &self.subs[self.by_code[captured as usize].expect("a capturable piece")];
        if let Source::Withheld(best_for) = sub.source {
            return Ok(withheld_stand_in(child.turn() == best_for));
        }
        let (sub, side, index) = self.locate(captured, child)?;
        let value = match (&sub.source, &sub.derived) {
            (_, Some((d, derived))) if *d == side => Value::from_code(derived.code(index)?),
            (Source::Codes(sides), _) => sides[side.index()]
                .as_ref()
                .and_then(|codes| Value::from_code(codes[index as usize])),
            // `child` is legal (reached by a legal move): its entry holds its value.
            (Source::File(f), _) => Some(f.stored_legal(side, index)?),
            (Source::Packed(_) | Source::Withheld(_), _) => None,
        };
        match value {
            Some(v @ Value::Decided { order, distance }) if !is_stand_in(v) => Ok(Value::Decided {
                order: sub.levels[order as usize],
                distance,
            }),
            Some(Value::Draw) => Ok(Value::Draw),
            _ => Err(BuildError::Inconsistent(format!(
                "supporting table {} has no distance-to-mate value for {}",
                sub.indexer.material(),
                crate::fen::to_fen(child)
            ))),
        }
    }

    /// The outcome, for its side to move, of `child`, a position reached by capturing a piece
    /// of code `captured`.
    #[inline]
    pub fn outcome(&self, captured: u8, child: &Position) -> Result<Outcome, BuildError> {
        let sub = &self.subs[self.by_code[captured as usize].expect("a capturable piece")];
        if let Source::Withheld(best_for) = sub.source {
            return Ok(withheld_stand_in(child.turn() == best_for).outcome());
        }
        let (sub, side, index) = self.locate(captured, child)?;
        let pos = child;
        match &sub.source {
            Source::Packed(sides) => {
                let Some(bits) = &sides[side.index()] else {
                    return Err(BuildError::Inconsistent(format!(
                        "supporting table {} is probed at a side to move no capture leads to: {}",
                        sub.indexer.material(),
                        crate::fen::to_fen(pos)
                    )));
                };
                match (bits[(index / 32) as usize] >> (2 * (index % 32))) & 3 {
                    1 => Ok(Outcome::Loss),
                    2 => Ok(Outcome::Draw),
                    3 => Ok(Outcome::Win),
                    _ => Err(BuildError::Inconsistent(format!(
                        "supporting table {} has no value for {}",
                        sub.indexer.material(),
                        crate::fen::to_fen(pos)
                    ))),
                }
            }
            // `child` is legal (reached by a legal move): its entry holds its outcome.
            Source::File(f) => Ok(f.outcome_legal(side, index)?),
            Source::Codes(_) => Err(BuildError::Inconsistent(
                "a DTM supporting table asked for an outcome".into(),
            )),
            Source::Withheld(_) => unreachable!("answered above"),
        }
    }
}

fn sub(
    m: Material,
    flip: bool,
    source: Source,
    derived: Option<(Color, Derived)>,
) -> Result<Sub, BuildError> {
    Ok(Sub {
        indexer: Indexer::new(m)?,
        flip,
        source,
        levels: Vec::new(),
        derived,
    })
}

/// The level table of the table at `path` (read again: the file's header holds it).
fn level_table(path: &Path, metric: Metric) -> Result<Levels, BuildError> {
    Ok(match metric {
        Metric::Dtc => Levels::default(),
        Metric::Dtm => crate::table::read_header(path)?.levels,
    })
}

/// Fails unless `file` holds `material` in `metric` under a rule set that combines with
/// `rule_set`.
fn check_support(
    file: &TableFile,
    material: Material,
    (rule_set, metric): (RuleSet, Metric),
) -> Result<(), BuildError> {
    let h = file.header();
    if h.metric != metric {
        return Err(BuildError::Inconsistent(format!(
            "{} holds a {} table where a {} table was expected",
            file.path().display(),
            h.metric.name(),
            metric.name()
        )));
    }
    if h.material != material {
        return Err(TableError::WrongMaterial {
            path: file.path().to_owned(),
            expected: material,
            found: h.material,
        }
        .into());
    }
    if !h.rule_set.combines_with(rule_set) {
        return Err(BuildError::DirRules {
            path: file.path().to_owned(),
            found: h.rule_set,
            asked: rule_set,
        });
    }
    Ok(())
}

/// Reads the value codes of the sides `sides` of `file` (a DTM table).
fn codes(file: &TableFile, sides: [bool; 2]) -> Result<Source, BuildError> {
    let h = file.header();
    let mut out = [None, None];
    for side in Color::ALL.into_iter().filter(|s| sides[s.index()]) {
        let blocks: Vec<Vec<u32>> = (0..h.blocks_per_side())
            .into_par_iter()
            .map(|b| file.read_stored_raw(side, b))
            .collect::<Result<_, _>>()?;
        out[side.index()] = Some(blocks.concat());
    }
    Ok(Source::Codes(out))
}

/// Packs the sides `sides` of `file` (its WDL stream only).
fn pack(file: &TableFile, sides: [bool; 2]) -> Result<Source, BuildError> {
    let h = file.header();
    let be = h.block_entries as u64;
    // Blocks are a multiple of 32 entries, so each block fills whole words.
    debug_assert_eq!(be % 32, 0);
    let words_per_block = (be / 32) as usize;
    let mut packed = [None, None];
    for side in Color::ALL.into_iter().filter(|s| sides[s.index()]) {
        let mut bits = vec![0u64; h.blocks_per_side() as usize * words_per_block];
        bits.par_chunks_mut(words_per_block)
            .enumerate()
            .try_for_each(|(block, words)| -> Result<(), BuildError> {
                // Entries that are not legal positions hold some outcome there; they are never
                // probed (only legal children are).
                let wdl = file.read_wdl_block(side, block as u64)?;
                for (k, &w) in wdl.iter().enumerate() {
                    words[k / 32] |= (w as u64 + 1) << (2 * (k % 32));
                }
                Ok(())
            })?;
        // The last block's words past the side's end hold nothing.
        bits.truncate((packed_bytes(h.entries) / 8) as usize);
        packed[side.index()] = Some(bits);
    }
    Ok(Source::Packed(packed))
}
