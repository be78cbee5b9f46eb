//! The Asian rules in a build: after the order-0 propagation, the order stage
//! ([`crate::retro::orders`]) finds the next order's seeds, they are resolved as losses at
//! distance 0 and the propagation passes ([`super::dtc::propagate`]) run again, until no
//! pattern is left; what is never resolved is a draw (Fang's Algorithm 8).

use super::buffers::runs;
use super::dtc;
use super::entry::{self, NEVER};
use super::plan::RuleNeed;
use super::work::Work;
use super::BuildError;
use crate::fang::{LevelKind, Rules};
use crate::piece::{ByColor, Color};
use crate::retro::candidates::Budget;
use crate::retro::numbering::Numbering;
use crate::retro::orders::Seeds;
use crate::retro::{Bitmap, Graph, Progress, RuleState};
use crate::value::MAX_ORDER;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// The unresolved entries with a capture into a drawn position (never loss candidates), read
/// from the chunks once.
fn drawn_captures(work: &Work) -> Result<ByColor<Bitmap>, BuildError> {
    let n = work.layout().entries();
    let drawn = ByColor::new(|_| Bitmap::new(n));
    for side in Color::ALL {
        for c in 0..work.layout().chunks() {
            let base = work.layout().base(c);
            work.with_chunk(side, c, |chunk| {
                chunk.entries.par_iter().enumerate().for_each(|(k, e)| {
                    let e = e.load(Relaxed);
                    if entry::is_unresolved(e) && e as u8 == NEVER {
                        drawn[side].set(base + k as u64);
                    }
                })
            })?;
        }
    }
    Ok(drawn)
}

/// The unresolved filter of `side` (a rule build always keeps it).
fn unresolved(work: &Work, side: Color) -> &Bitmap {
    work.unresolved[side]
        .as_ref()
        .expect("a build under the Asian rules keeps the unresolved filter")
}

/// Resolves the new order's seeds (`seeds`, sorted, by side) as losses at `(level, 0)`, and
/// makes them the frontier the order's propagation starts from.
fn seed(work: &mut Work, level: u16, seeds: &ByColor<Vec<u64>>) -> Result<(), BuildError> {
    let to = entry::resolved(level, 0);
    let layout = work.layout();
    for side in Color::ALL {
        for (_, run) in runs(&seeds[side], |i| layout.chunk(i)) {
            work.resolve_entries(side, &mut run.to_vec(), to)?;
        }
        work.frontiers
            .note(&work.store, layout, side, &seeds[side], true)?;
    }
    Ok(())
}

/// A test hook: `XQTB_TEST_CANDIDATE_BUDGET` (bytes) in place of the plan's budget for the
/// loss candidates, to reach the error a budget too small for them gives.
fn test_candidate_budget() -> Option<Budget> {
    let bytes = std::env::var("XQTB_TEST_CANDIDATE_BUDGET")
        .ok()?
        .parse()
        .ok()?;
    Some(Budget {
        kept: bytes,
        refresh: bytes,
    })
}

/// The seeds of the order after `order` (`None`: no pattern is left): the candidates brought
/// up to date, then the patterns; an error if either needs more memory than the plan gives it.
fn next_seeds(
    state: &mut RuleState,
    work: &Work,
    graph: &Graph,
    order: u16,
    progress: &dyn Progress,
) -> Result<Option<Seeds>, BuildError> {
    let too_large = |what, needed, budget| BuildError::RuleStageTooLarge {
        material: work.material(),
        order,
        what,
        memory: None,
        needed,
        budget,
    };
    let open = ByColor::new(|side| unresolved(work, side));
    state.refresh(&open, graph, progress).map_err(|e| {
        let what = match e.during_refresh {
            true => RuleNeed::RefreshedCandidates,
            false => RuleNeed::Candidates,
        };
        too_large(what, e.needed, e.budget)
    })?;
    progress.start(
        &format!("{} patterns after order {order}", work.material()),
        1,
    );
    let next = state
        .next_seeds(&open, graph, progress)
        .map_err(|e| too_large(RuleNeed::Slice, e.needed, e.budget))?;
    progress.advance(1);
    progress.finish();
    Ok(next)
}

/// One order's kind and the positions that seeded it.
#[derive(Clone, Debug)]
pub struct OrderReport {
    /// The order (1 and up).
    pub order: u16,
    /// Whether checking or chasing patterns seeded it.
    pub kind: LevelKind,
    /// Entries (both sides) its patterns' losses seeded as losses at distance 0.
    pub seeds: u64,
    /// Chasing patterns found for it whose first exclusion started from the previous
    /// computation's ([`crate::retro::pattern::Exclusion`]).
    pub warm_exclusions: u32,
}

/// Algorithm 8 from `order` (whose propagation is complete): orders until no pattern is left.
/// Order `r`'s values are stored at level `level_of(r)` (DTC: `r`; DTM: its index in the
/// table's levels). `after_ply(work, level, ply)` runs after each ply and after each seeding
/// (checkpoints). Returns the orders found.
#[allow(clippy::too_many_arguments)]
pub fn solve_orders(
    work: &mut Work,
    graph: &Graph,
    rules: Rules,
    numbering: Numbering,
    mut order: u16,
    level_of: &dyn Fn(u16) -> u16,
    progress: &dyn Progress,
    after_ply: &mut dyn FnMut(&mut Work, u16, u32) -> Result<(), BuildError>,
) -> Result<Vec<OrderReport>, BuildError> {
    let drawn = drawn_captures(work)?;
    let budget = test_candidate_budget().unwrap_or(Budget {
        kept: work.candidates,
        refresh: work.candidates + work.lent,
    });
    let mut state = RuleState::new(graph, rules, numbering, drawn, budget);
    if let Some(budget) = work.pattern_slices {
        state.use_slices(budget);
    }
    let mut reports = Vec::new();
    loop {
        // The pattern phase runs in the memory the propagation passes leave idle.
        work.lend_pass_memory();
        let next = next_seeds(&mut state, work, graph, order, progress);
        work.restore_pass_memory();
        let next = next?;
        let Some(Seeds {
            kind,
            entries: seeds,
        }) = next
        else {
            return Ok(reports);
        };
        let seed_count = Color::ALL.iter().map(|&s| seeds[s].len() as u64).sum();
        order = order
            .checked_add(1)
            .filter(|&o| o <= MAX_ORDER)
            .ok_or_else(|| BuildError::Rules(format!("more than {MAX_ORDER} orders")))?;
        reports.push(OrderReport {
            order,
            kind,
            seeds: seed_count,
            warm_exclusions: state.warm_exclusions,
        });
        let level = level_of(order);
        seed(work, level, &seeds)?;
        after_ply(work, level, 0)?;
        dtc::propagate(
            work,
            graph,
            (level, 0),
            progress,
            Some(&state.dirty),
            &mut dtc::Unscheduled,
            |w, ply| after_ply(w, level, ply),
        )?;
    }
}
