//! Verification of a table (Fang, Section 5.4): every checksum, then every entry against the
//! values of its children. A legal position without moves must be a loss at 0; otherwise its
//! value must be the best value its moves give the mover (a quiet move into a position lost
//! or won at d gives a win or loss at d + 1, a capture into a lost position a win at 1 and into
//! a won one a loss at 0; a drawn child gives a draw). This checks the seeds (terminal
//! positions and conversions, read from the supporting tables), every propagated win and loss
//! (its distance is one more than the best child's: Theorem 8) and every draw (no winning move
//! and some drawing one). Under the Asian rules (orders above 0) the same holds at every order,
//! and a seed of order `r > 0` (a loss at `(r, 0)`) must have its best move reach `(r, 1)`; that
//! the seeds are exactly the losses of the maximum patterns is checked by the builder's tests
//! against the in-memory solver, not re-derived here. Entries that are not legal positions are skipped (the file stores
//! nothing for them), and the header's counts must match the entries. Streaming: blocks in parallel, children read through
//! bounded block caches.

use crate::fen::to_fen;
use crate::material::Material;
use crate::piece::Color;
use crate::table::{side_char, SideStats};
use crate::tablebase::{ProbeError, Tablebase};
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// One entry whose value its children contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub fen: String,
    pub what: String,
}

/// What verifying one table found.
#[derive(Debug, Default)]
pub struct Report {
    pub entries_checked: u64,
    /// Total failures (only the first few are kept in `failures`).
    pub failure_count: u64,
    pub failures: Vec<Failure>,
}

/// Failures kept for printing.
const KEEP: usize = 20;

/// A loss at `(r, 0)`, `r > 0`, is a seed of order `r`: a loss of a maximum pattern of
/// perpetual checking or chasing, whose moves inside the pattern reach wins at `(r, 1)` and
/// whose other moves reach wins of lower orders (Theorem 8), so its best move gives `(r, 2)`.
fn order_seed(value: Value, expected: Value) -> bool {
    matches!(
        (value, expected),
        (Value::Decided { order: r, distance: 0 }, Value::Decided { order, distance: 2 })
            if r > 0 && order == r
    )
}

/// Checks every checksum of `material`'s table (a typed error on the first bad one), then
/// verifies every entry. `progress` is called with entries done.
pub fn verify_table(
    tb: &Tablebase,
    material: Material,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Report, ProbeError> {
    let t = tb.table(material)?;
    t.file.verify_checksums()?;
    let h = t.file.header().clone();
    let failures = Mutex::new(Vec::new());
    let failure_count = AtomicU64::new(0);
    let fail = |fen: String, what: String| {
        failure_count.fetch_add(1, Relaxed);
        let mut f = failures.lock().unwrap();
        if f.len() < KEEP {
            f.push(Failure { fen, what });
        }
    };
    let be = h.block_entries as u64;
    let mut sides = [SideStats::default(); 2];
    for (side, stats) in sides.iter_mut().enumerate() {
        let turn = Color::ALL[side];
        let side_stats = (0..h.blocks_per_side())
            .into_par_iter()
            .map(|block| -> Result<SideStats, ProbeError> {
                // Raw codes: this pass decides legality itself (the file stores nothing for
                // illegal entries).
                let codes = t.file.read_block_raw(side, block)?;
                let mut st = SideStats::default();
                for (k, &code) in codes.iter().enumerate() {
                    let index = block * be + k as u64;
                    let pos = t
                        .indexer
                        .decode(index, turn)
                        .filter(|p| !p.opponent_in_check());
                    let Some(pos) = pos else {
                        continue;
                    };
                    let Some(value) = Value::from_code(code) else {
                        fail(
                            to_fen(&pos),
                            format!("legal position without a value (code {code:#x})"),
                        );
                        continue;
                    };
                    st.count(value, t.indexer.multiplicity(index) as u64, index);
                    let moves = tb.probe_moves(&pos)?;
                    let expected = moves
                        .iter()
                        .map(|m| m.for_mover())
                        .max_by_key(|v| v.rank())
                        .unwrap_or(Value::Decided {
                            order: 0,
                            distance: 0,
                        });
                    if value != expected && !order_seed(value, expected) {
                        fail(
                            to_fen(&pos),
                            format!("holds {value}, its moves give {expected}"),
                        );
                    }
                }
                progress(codes.len() as u64);
                Ok(st)
            })
            .try_reduce(SideStats::default, |a, b| Ok(a.merge(b)))?;
        *stats = side_stats;
        if *stats != h.sides[side] {
            fail(
                format!("header of {}", t.file.path().display()),
                format!(
                    "side {} counts {:?} but the entries give {:?}",
                    side_char(side),
                    h.sides[side],
                    stats
                ),
            );
        }
    }
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by(|a, b| a.fen.cmp(&b.fen));
    Ok(Report {
        entries_checked: 2 * h.entries,
        failure_count: failure_count.into_inner(),
        failures,
    })
}
