//! What a build will need before it starts (`xqtb plan`): the tables in the order `build` takes
//! them, and for each its entries, whether it is present, the memory plan at this budget, the
//! `--tmp` and output bytes, and a time. Memory and disk are the figures the build itself plans
//! and checks; the output bytes and the time are estimates from measured rates (below).

use super::run::planned;
use super::{present, BuildError, BuildOptions, Target};
use crate::index::Indexer;
use crate::material::Material;
use crate::table::Metric;

/// One table of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TableEstimate {
    /// The table.
    pub target: Target,
    /// Index entries per side.
    pub entries: u64,
    /// Already in `--dir`, intact and usable by this build (it will not be built).
    pub present: bool,
    /// Resident at this budget (false: streamed through chunk files).
    pub resident: bool,
    /// Whether the build keeps its unresolved filter (always when resident; streamed, only if
    /// the budget has room: without it every update of a win ply goes through the logs).
    pub unresolved_filter: bool,
    /// Whether the streamed build keeps its frontiers as lists on disk (`formats/build.md`
    /// §7.3), for want of room for their bitmaps.
    pub frontier_lists: bool,
    /// Whether the streamed build keeps one side's unresolved filter in RAM at a time, the
    /// other parked on disk (`formats/build.md` §7.4).
    pub filter_parked: bool,
    /// Whether the streamed build computes its rule stage's patterns in slices, for want of
    /// room for their bitmaps (`formats/rules.md` §7, "Slices").
    pub pattern_slices: bool,
    /// The memory the plan takes, bytes.
    pub memory: u64,
    /// The least `--memory` (within the asked budget, and at least 64 MiB) under which the table
    /// is built in the same mode, resident or streamed, with a quarter more for its caches:
    /// what a job scheduler reserves for it (the table's bytes do not depend on `--memory`).
    pub job_memory: u64,
    /// The most `--tmp` the build asks to have free (`formats/build.md` §10), bytes.
    pub tmp_bytes: u64,
    /// Estimated bytes of the table file.
    pub output_bytes: u64,
    /// Estimated seconds of build time on the reference machine (2 cores).
    pub seconds: f64,
}

/// Bytes a table build asks to have free under `--tmp` for `n` entries per side: two
/// generations of the compressed chunk files and the update logs of a streamed build, half
/// again the most measured (`formats/build.md` §10: 3.2 to 5.3 bytes an entry).
pub fn tmp_need(n: u64) -> u64 {
    8 * n
}

/// Table-file bytes per index entry (both sides): the largest of the tables measured,
/// KCPABKAABB's DTC file (168.8 MB for 1.92 G entries: a pawn and long wins; KRCKR's is 1.64 MB
/// for 65.6 M, KRNKAABB's 1.6 MB for 103 M). DTM files are taken to be as large (KRCKR's: 1.65
/// MB; none of the pawn tables' was measured).
const OUTPUT_BYTES_PER_ENTRY: [f64; 2] = [0.088, 0.088];

/// Entries (both sides) built per second on the reference machine at 2 threads, by metric (DTC,
/// DTM) and by how the plan keeps the working state: resident; streamed with frontier bitmaps;
/// with frontier lists (`formats/build.md` §7.3: no pulled win plies, lists written and read);
/// with lists and one side's filter parked (§7.4: a filter parked and read back each ply). DTC,
/// quiet builds at `--memory 1G` (`docs/performance.md`): resident, KRNKAABB's 103 M entries in
/// 20.4 s; bitmaps, KCPABKAABB's 1.92 G in 670 s; lists, KCPAABBKABB's 5.65 G in 2,807 s and
/// KCPAABBKAAB's 3.35 G in 1,619 s; parked, the record table KCPAABBKAABB's 9.84 G in 6,709 s
/// (two runs, about a quarter hour of it beside other work; 1.9 times what the bitmaps' rate
/// gave). DTM: the DTC rates over the median ratio of CPU
/// seconds, DTM to DTC, of the same tables of the KCPAABKAABB and KCPAABBKAABB families built
/// at `--memory 1G` (1.73 over 47 resident tables, 2.04 over 5 streamed): pawn tables' long
/// mates make DTM's plies many more than DTC's. (A small table without pawns takes about as
/// long in either: KRCKR 14.7 against 14.3 s.)
const ENTRIES_PER_SECOND: [[f64; 4]; 2] =
    [[5.0e6, 2.8e6, 2.0e6, 1.5e6], [2.9e6, 1.4e6, 0.98e6, 0.74e6]];

/// The column of [`ENTRIES_PER_SECOND`] of a plan.
fn rate_column(plan: &super::plan::Plan) -> usize {
    match (plan.resident, plan.frontier_lists, plan.filter_parked) {
        (true, _, _) => 0,
        (false, false, _) => 1,
        (false, true, false) => 2,
        (false, true, true) => 3,
    }
}

/// The tables a build of `material` takes, in order, with what each will need under `opts`.
pub fn estimate(material: Material, opts: &BuildOptions) -> Result<Vec<TableEstimate>, BuildError> {
    let mut out = Vec::new();
    for m in material.supporting() {
        for &metric in opts.metrics.list() {
            let target = Target {
                material: m,
                metric,
            };
            out.push(estimate_table(target, opts)?);
        }
    }
    Ok(out)
}

/// The tables builds of `materials` take, one after the other, each table once (its first
/// place: every table still comes after those it captures into).
pub fn estimate_all(
    materials: &[Material],
    opts: &BuildOptions,
) -> Result<Vec<TableEstimate>, BuildError> {
    let mut out: Vec<TableEstimate> = Vec::new();
    for &m in materials {
        for t in estimate(m, opts)? {
            if !out.iter().any(|o| o.target == t.target) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

/// [`TableEstimate::job_memory`]: the least budget at which `t` is planned `resident` (found
/// by bisection: a larger budget never turns a resident plan into a streamed one), a quarter
/// more, within `opts.memory`. A streamed table keeps the whole budget: its plan uses it all.
fn job_memory(t: Target, opts: &BuildOptions, resident: bool) -> Result<u64, BuildError> {
    if !resident {
        return Ok(opts.memory);
    }
    let resident_at = |memory: u64| -> Result<bool, BuildError> {
        let o = BuildOptions {
            memory,
            ..opts.clone()
        };
        match planned(t, &o) {
            Ok(p) => Ok(p.resident),
            Err(BuildError::BudgetTooSmall { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    };
    let (mut lo, mut hi) = (super::MIN_BUDGET, opts.memory);
    if resident_at(lo)? {
        return Ok(lo.max(lo + lo / 4).min(opts.memory));
    }
    // resident_at(hi), not resident_at(lo).
    while hi - lo > 1 << 20 {
        let mid = lo + (hi - lo) / 2;
        match resident_at(mid)? {
            true => hi = mid,
            false => lo = mid,
        }
    }
    Ok((hi + hi / 4).min(opts.memory))
}

/// What building `t` under `opts` needs.
pub(super) fn estimate_table(t: Target, opts: &BuildOptions) -> Result<TableEstimate, BuildError> {
    let entries = Indexer::new(t.material)?.size();
    let plan = planned(t, opts)?;
    let metric = match t.metric {
        Metric::Dtc => 0,
        Metric::Dtm => 1,
    };
    let both = 2.0 * entries as f64;
    Ok(TableEstimate {
        target: t,
        entries,
        present: present(opts, t).is_ok(),
        resident: plan.resident,
        unresolved_filter: plan.unresolved_filter,
        frontier_lists: plan.frontier_lists,
        filter_parked: plan.filter_parked,
        pattern_slices: plan.pattern_slices.is_some(),
        memory: plan.total,
        job_memory: job_memory(t, opts, plan.resident)?,
        tmp_bytes: tmp_need(entries),
        output_bytes: (both * OUTPUT_BYTES_PER_ENTRY[metric]).ceil() as u64,
        seconds: both / ENTRIES_PER_SECOND[metric][rate_column(&plan)],
    })
}
