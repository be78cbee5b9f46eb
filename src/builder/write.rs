//! The final write: working entries → table codes and the header's counts, chunk by chunk, side
//! by side, into the table writer (which compresses blocks in parallel and checksums as it goes).

use super::work::{Work, WINDOW};
use super::BuildError;
use super::{derived, entry};
use crate::index::Indexer;
use crate::piece::{ByColor, Color};
use crate::retro::Progress;
use crate::table::{
    distance_implied, merge_tallies, Firsts, Histogram, Levels, RuleSet, SideCounts,
    SupportingTable, TableFile, TableWriter, Tally,
};
use crate::value::{Value, CODE_NONE};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

/// Counts of one run of entries. Multiplicities change only between pairs, so they are looked
/// up once per pair, not per entry.
fn stats_of(indexer: &Indexer, first: u64, codes: &[u32]) -> (SideCounts, (Histogram, Firsts)) {
    let others = indexer.others_size();
    let mut st = SideCounts::default();
    let mut tally = Tally::new();
    let mut boundary = first;
    let mut mult = 0u64;
    for (k, &code) in codes.iter().enumerate() {
        let index = first + k as u64;
        if index >= boundary {
            mult = indexer.multiplicity(index) as u64;
            boundary = (index / others + 1) * others;
        }
        if let Some(v) = Value::from_code(code) {
            st.count(v, mult, index);
            tally.add(v, mult, index);
        }
    }
    (st, tally.finish())
}

/// The side whose distances the file leaves to be found from its moves (`formats/table.md`
/// §5): the one with more distances to store (decided values but, in a DTC table, those at
/// once). The count stands in for the compressed bytes (and the time compressing them): it
/// picks the larger stream in KRNKAABB, KRCKR and KRKNN, not in KRKR (`formats/table.md` §5).
/// Black on a tie.
fn derived_side(work: &Work, dtm: bool) -> Result<Color, BuildError> {
    let mut stored = ByColor([0usize; 2]);
    for side in Color::ALL {
        for c in 0..work.layout().chunks() {
            stored[side] += work.with_chunk(side, c, |chunk| {
                chunk
                    .entries
                    .par_iter()
                    .filter(|e| match entry::value(e.load(Relaxed)) {
                        Some(v @ Value::Decided { .. }) => dtm || !distance_implied(v),
                        _ => false,
                    })
                    .count()
            })?;
        }
    }
    Ok(if stored[Color::Red] > stored[Color::Black] {
        Color::Red
    } else {
        Color::Black
    })
}

/// Writes the table file at `path` (DTM with `levels`, its keys of phase 0), and the full values
/// of its derived side at `keep_derived` if given ([`super::derived`]); returns the legal
/// positions of both sides.
pub fn write_table(
    work: &Work,
    indexer: &Indexer,
    (path, keep_derived): (&Path, Option<PathBuf>),
    (rule_set, supports, levels): (RuleSet, &[SupportingTable], Option<&Levels>),
    max_order: u16,
    progress: &dyn Progress,
) -> Result<u64, BuildError> {
    let layout = work.layout();
    let derived = derived_side(work, levels.is_some())?;
    let mut kept = match keep_derived {
        Some(at) => Some(derived::Writer::create(at, derived)?),
        None => None,
    };
    let derived = Some(derived);
    let mut w = TableWriter::create(
        path,
        work.material(),
        layout.entries(),
        (derived, levels),
        supports,
    )?;
    let mut sides = ByColor::<SideCounts>::default();
    let mut tallies: ByColor<(Histogram, Firsts)> = Default::default();
    progress.start(&format!("{} write", work.material()), 2 * layout.entries());
    // One buffer serves every chunk: a fresh one per chunk (megabytes) was mapped, faulted in
    // page by page and unmapped each time.
    let mut codes: Vec<u32> = Vec::new();
    for side in Color::ALL {
        for c in 0..layout.chunks() {
            let base = layout.base(c);
            codes.clear();
            work.with_chunk(side, c, |chunk| {
                codes.par_extend(chunk.entries.par_iter().map(|e| {
                    match entry::value(e.load(Relaxed)) {
                        None => CODE_NONE,
                        Some(v) => v.code(),
                    }
                }))
            })?;
            let (st, hist) = codes
                .par_chunks(WINDOW)
                .enumerate()
                .map(|(k, run)| stats_of(indexer, base + (k * WINDOW) as u64, run))
                .reduce(Default::default, |(a, ta), (b, tb)| {
                    (a.merge(b), merge_tallies(ta, tb))
                });
            sides[side] = sides[side].merge(st);
            let t = std::mem::take(&mut tallies[side]);
            tallies[side] = merge_tallies(t, hist);
            w.write(side, &codes)?;
            if let Some(k) = kept.as_mut().filter(|k| k.side() == side) {
                k.write(&codes)?;
            }
            progress.advance(codes.len() as u64);
        }
    }
    progress.finish();
    let written = w.finish(rule_set, sides, &tallies, max_order)?;
    if let Some(k) = kept {
        k.finish(&TableFile::open(&written, 0)?.as_support())?;
    }
    Ok(sides[Color::Red].legal + sides[Color::Black].legal)
}
