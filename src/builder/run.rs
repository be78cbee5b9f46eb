//! One table's build from start to file: plan, resume or initialise, propagate, write, clean up.

use super::dtc;
use super::dtm::{self, Events};
use super::layout::Layout;
use super::plan::{chunk_bytes, plan_chunks, Force, Plan, MIN_STREAM_CHUNK, SUB_CACHE};
use super::rules::solve_orders;
use super::store::{Manifest, Provenance, StoreDir, Traffic};
use super::sub::Subtables;
use super::work::Work;
use super::write::write_table;
use super::BuildError;
use super::{BuildOptions, TableReport, Target};
use crate::fang::{LevelKind, Rules};
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{Color, Role};
use crate::retro::graph::Graph;
use crate::retro::numbering::Numbering;
use crate::retro::Progress;
use crate::table::{Levels, Metric, RuleSet, SupportingTable};
use std::time::{Duration, Instant};

/// Entries per side of each table `material`'s captures lead to.
fn supporting_sizes(material: Material) -> Result<Vec<u64>, BuildError> {
    let mut seen = Vec::new();
    for color in Color::ALL {
        for role in Role::ALL {
            if let Some(sub) = material.captured(color, role) {
                let c = sub.canonical();
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
        }
    }
    seen.into_iter()
        .map(|m| Ok(Indexer::new(m)?.size()))
        .collect()
}

/// What one table's build is: its graph, the rules on endless play that apply to it (with its
/// pieces' numbering), the memory plan and the chunks.
struct TablePlan {
    material: Material,
    metric: Metric,
    graph: Graph,
    rules: Rules,
    numbering: Numbering,
    plan: Plan,
    layout: Layout,
    /// The plans at another budget: with the same chunks (a resumed build's), and with the
    /// chunks a new build would take.
    replan: Box<dyn Fn(u64) -> [Option<Plan>; 2]>,
}

/// Builds table `t`; its supporting tables (of its metric) must be present. A DTM table that
/// supports tables still to be built (`supports_more`) leaves its derived side's full values
/// under `--tmp` for them ([`super::derived`]).
pub fn build_table(
    t: Target,
    opts: &BuildOptions,
    progress: &dyn Progress,
    supports_more: bool,
) -> Result<TableReport, BuildError> {
    let start = Instant::now();
    let material = t.material;
    let store = StoreDir::open(StoreDir::path_for(&opts.tmp, t))?;
    let rule_set = super::rule_set(opts.rules).for_material(material);
    // A checkpoint fixes the chunk length; an unreadable one is reported and ignored, one of
    // other rules refused.
    let manifest = match store.read_manifest() {
        Err(e @ BuildError::ManifestNotAFile(_)) => return Err(e),
        Err(e) => {
            progress.note(&format!(
                "{material}: {e}; restarting this table from scratch"
            ));
            None
        }
        Ok(m) => m,
    };
    if let Some(m) = manifest.as_ref() {
        check_checkpoint_rules(&store.dir, m, material, rule_set)?;
    }
    let table = plan(t, opts, manifest.as_ref())?;
    table.note(&store, progress);
    // Opened before the state takes its memory (the plan counts both).
    let (subs, _) = Subtables::open(
        (&opts.dir, &opts.tmp),
        (material, opts.withheld.as_ref()),
        (rule_set, t.metric),
        (
            table.plan.pack_budget,
            table.plan.total.saturating_sub(super::plan::RESERVE),
        ),
        SUB_CACHE as usize,
        (progress, &opts.stop),
    )?;
    let provenance = Provenance::new(rule_set, t.metric, subs.supports());
    let (mut work, from, mut events) =
        resume_or_initialise(&table, opts, store, manifest, (&subs, provenance), progress)?;
    let levels = subs.levels().cloned();
    let supports = subs.supports().to_vec();
    // Only initialisation probes them: their packed tables' and caches' memory goes to the
    // plies and the rule stage (the plan lends it to the rule phases, `Plan::lent`).
    drop(subs);
    let (plies, max_order) = solve(
        &mut work,
        &table,
        (from, levels.as_ref(), &mut events),
        opts,
        progress,
    )
    .map_err(|e| table.with_memory_needed(e))?;
    let resident = work.resident();
    let keep_derived =
        (supports_more && levels.is_some()).then(|| super::derived::path(&opts.tmp, material));
    let (positions, traffic) = write(
        (work, keep_derived),
        &table,
        opts,
        (rule_set, &supports, levels.as_ref()),
        max_order,
        progress,
    )?;
    Ok(TableReport {
        material,
        metric: t.metric,
        entries: table.layout.entries(),
        positions,
        seconds: Some(start.elapsed().as_secs_f64()),
        resident,
        plies,
        max_order,
        traffic,
    })
}

/// Fails if the checkpoint `m` (in `store`) of `material`'s build was made under another rule
/// set than `rule_set`: a build resumes only under its own rules.
pub(super) fn check_checkpoint_rules(
    store: &std::path::Path,
    m: &Manifest,
    material: Material,
    rule_set: RuleSet,
) -> Result<(), BuildError> {
    if m.provenance.rule_set == rule_set.name() {
        return Ok(());
    }
    Err(BuildError::CheckpointRules {
        store: store.to_owned(),
        material,
        found: m.provenance.rule_set.clone(),
        asked: rule_set.name().into(),
        order: m.order,
        ply: m.ply,
    })
}

/// The rules on endless play that apply to `material`'s table built under `rules` (none where
/// no side has an attacking piece; perpetual check alone under the Asian rules where no piece
/// can be chased: [`Material::chases_possible`]), with its pieces' numbering for chases; an
/// error if its pieces cannot be numbered or indexed.
pub(super) fn table_rules(
    material: Material,
    rules: Rules,
) -> Result<(Rules, Numbering), BuildError> {
    Indexer::new(material)?;
    let rules = match rules {
        _ if !material.rules_apply() => Rules::None,
        Rules::Asian if !material.chases_possible() => Rules::Check,
        _ => rules,
    };
    let numbering = match rules {
        Rules::Asian => Numbering::new(material).map_err(|e| {
            BuildError::Rules(format!(
                "table {material}: {e} (build it with --rules check or none)"
            ))
        })?,
        _ => Numbering::kings_only(),
    };
    Ok((rules, numbering))
}

/// The build's plan: which rules apply ([`table_rules`]), the memory plan within `--memory`,
/// and the chunks (a resumed build keeps its checkpoint's).
/// Fails if a new build of `material` has no memory plan within `--memory` (a build resuming a
/// checkpoint keeps its chunks, and is planned again when it starts).
pub(super) fn check_plan(t: Target, opts: &BuildOptions) -> Result<(), BuildError> {
    planned(t, opts).map(|_| ())
}

/// The memory plan of a fresh build of `t` under `opts`; an error if none fits.
pub(super) fn planned(t: Target, opts: &BuildOptions) -> Result<Plan, BuildError> {
    plan(t, opts, None).map(|p| p.plan)
}

fn plan(
    t: Target,
    opts: &BuildOptions,
    manifest: Option<&Manifest>,
) -> Result<TablePlan, BuildError> {
    let material = t.material;
    let graph = Graph::new(Indexer::new(material)?);
    let n = graph.indexer().size();
    let (rules, numbering) = table_rules(material, opts.rules)?;
    // A resumed build keeps its checkpoint's chunks; a new one may take shorter chunks than
    // asked to keep the unresolved filter.
    let (asked, shortest) = match manifest.filter(|m| m.entries == n) {
        Some(m) => {
            let len = Layout::new(n, m.chunk_shift).chunk_len() as u64;
            (len, len)
        }
        None => (
            Layout::with_len(n, opts.chunk_len).chunk_len() as u64,
            MIN_STREAM_CHUNK,
        ),
    };
    let subs = supporting_sizes(material)?;
    let threads = rayon::current_num_threads();
    let force = if opts.park_filter {
        Force::ParkedFilter
    } else if opts.frontier_lists {
        Force::FrontierLists
    } else if opts.pattern_slices {
        Force::PatternSlices
    } else if opts.force_streaming {
        Force::Streaming
    } else {
        Force::Nothing
    };
    let rule = crate::retro::orders::bitmaps(material, rules);
    let (len, plan) = plan_chunks(
        opts.memory,
        n,
        (asked, shortest),
        &subs,
        threads,
        force,
        rule,
    )
    .map_err(|e| BuildError::BudgetTooSmall {
        budget: opts.memory,
        needed: e.needed,
        material,
    })?;
    Ok(TablePlan {
        material,
        metric: t.metric,
        graph,
        rules,
        numbering,
        plan,
        layout: Layout::with_len(n, len),
        replan: Box::new(move |budget| {
            let fresh = plan_chunks(budget, n, (asked, shortest), &subs, threads, force, rule);
            [
                super::plan::plan(budget, n, len, &subs, threads, force, rule).ok(),
                fresh.ok().map(|(_, p)| p),
            ]
        }),
    })
}

impl TablePlan {
    /// `e`, with the least `--memory` (in MiB steps, up to 1 TiB) whose plans, resumed or new,
    /// give what a rule stage outgrew the bytes it needed (the plan's shares of a larger budget
    /// are fractions of it, so that is found by planning, not by adding the shortfall).
    fn with_memory_needed(&self, e: BuildError) -> BuildError {
        let BuildError::RuleStageTooLarge {
            material,
            order,
            what,
            needed,
            budget,
            memory: None,
        } = e
        else {
            return e;
        };
        let from = self.plan.total >> 20;
        let memory = (from..=1 << 20).map(|mib| mib << 20).find(|&m| {
            (self.replan)(m)
                .iter()
                .all(|p| p.as_ref().is_some_and(|p| what.given(p) >= needed))
        });
        BuildError::RuleStageTooLarge {
            material,
            order,
            what,
            needed,
            budget,
            memory,
        }
    }

    /// Says how the table will be built: resident, or streaming through `store`.
    fn note(&self, store: &StoreDir, progress: &dyn Progress) {
        let (p, n) = (&self.plan, self.layout.entries());
        let slices = p.pattern_slices.map_or(String::new(), |b| {
            format!(", rule patterns in slices of at most {} MiB", b >> 20)
        });
        let how = if p.resident {
            format!(
                "resident ({} MiB working state)",
                (2 * chunk_bytes(n)) >> 20
            )
        } else {
            format!(
                "streaming through {} ({} MiB of update buffer{}{slices})",
                store.dir.display(),
                p.update_buffer >> 20,
                match (p.unresolved_filter, p.frontier_lists, p.filter_parked) {
                    (true, false, _) => "",
                    (true, true, false) => ", frontier lists",
                    (true, true, true) => ", frontier lists, unresolved filter parked by side",
                    (false, false, _) => ", no unresolved filter",
                    (false, true, _) => ", frontier lists, no unresolved filter",
                }
            )
        };
        progress.detail(&format!(
            "{}: {n} entries per side, {how} ({} chunks of {} per side)",
            self.material,
            self.layout.chunks(),
            self.layout.chunk_len()
        ));
    }

    /// An empty working state in `store`, as planned, of a build of that provenance.
    fn work(&self, store: StoreDir, opts: &BuildOptions, provenance: Provenance) -> Work {
        Work::new(
            self.material,
            self.layout,
            store,
            &self.plan,
            !opts.push_only,
            provenance,
        )
    }
}

/// The working state to go on from, the level and ply its propagation goes on at, and (DTM)
/// the capture events still pending: the checkpoint's if every file it names checks out, else a
/// new state initialised from the supporting tables (nothing loaded from a damaged checkpoint
/// survives).
fn resume_or_initialise(
    table: &TablePlan,
    opts: &BuildOptions,
    store: StoreDir,
    manifest: Option<Manifest>,
    (subs, provenance): (&Subtables, Provenance),
    progress: &dyn Progress,
) -> Result<(Work, (u16, u32), Events), BuildError> {
    let material = table.material;
    let mut work = table.work(store, opts, provenance.clone());
    if let Some(m) = manifest {
        let loaded = match m.provenance.differs_from(&provenance) {
            Some(why) => Err(BuildError::Checkpoint(why)),
            None => work.load(&m, &dtc::select(m.order, m.ply)),
        };
        let events = match (loaded, table.metric) {
            (Ok(()), Metric::Dtc) => Ok(Events::new(0)),
            (Ok(()), Metric::Dtm) => Events::scan(&work),
            (Err(e), _) => Err(e),
        };
        match events {
            Ok(events) => {
                let at = match table.metric {
                    Metric::Dtc => "order",
                    Metric::Dtm => "level",
                };
                progress.note(&format!(
                    "{material}: resuming after {at} {} ply {}",
                    m.order, m.ply
                ));
                return Ok((work, (m.order, m.ply), events));
            }
            Err(e) => {
                progress.note(&format!(
                    "{material}: {e}; restarting this table from scratch"
                ));
                work = table.work(work.into_store(), opts, provenance);
            }
        }
    }
    work.remove_unreferenced_files()?;
    let graph = &table.graph;
    let mut events = Events::new(table.layout.chunks());
    match table.metric {
        Metric::Dtc => dtc::initialise(
            &mut work,
            graph,
            |pos, check| dtc::initial(pos, check, subs),
            |_, _, _| {},
            progress,
        )?,
        Metric::Dtm => dtc::initialise(
            &mut work,
            graph,
            |pos, check| dtm::initial(material, pos, check, subs),
            |side, c, chunk| events.note(side, c, chunk),
            progress,
        )?,
    }
    Ok((work, (0, 0), events))
}

/// A checkpoint costs at most about this share of a build: the next one waits at least this
/// many times as long as the last one took. A streamed build's checkpoint writes every chunk
/// whose resolution log is not empty (nearly all, after a deferred win ply) and syncs every
/// file it names: tens of seconds for a table of billions of entries.
const CHECKPOINT_SHARE: u32 = 10;

/// Is a checkpoint due, `since` after the last one, which took `cost`? At every pass boundary
/// when `interval` is zero; otherwise once `interval` and [`CHECKPOINT_SHARE`] times `cost`
/// have passed.
fn checkpoint_due(interval: Duration, since: Duration, cost: Duration) -> bool {
    interval.is_zero() || since >= interval.max(cost.saturating_mul(CHECKPOINT_SHARE))
}

/// Takes a checkpoint after `ply` of `level` (a phase of its own in `build --verbose`);
/// returns how long it took.
fn checkpoint(
    work: &mut Work,
    (level, ply): (u16, u32),
    progress: &dyn Progress,
) -> Result<Duration, BuildError> {
    let start = Instant::now();
    let both = 2 * work.layout().entries();
    progress.start(&format!("{} checkpoint", work.material()), both);
    work.checkpoint(work.manifest(level, ply))?;
    progress.advance(both);
    progress.finish();
    Ok(start.elapsed())
}

/// Propagates from `from` (level, ply) to the end of phase 0 and, under rules on endless play,
/// through every later order, checkpointing at pass boundaries; returns the plies of the level
/// it started in and the highest order. A DTM build (`levels`: its keys of phase 0) runs phase
/// 0 a level at a time, firing its capture `events` ([`dtm::propagate_phase0`]), and stores
/// order `r` at level [`Levels::phase_index`].
fn solve(
    work: &mut Work,
    table: &TablePlan,
    ((first_level, first_ply), levels, events): ((u16, u32), Option<&Levels>, &mut Events),
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<(u32, u16), BuildError> {
    let material = table.material;
    let (mut last_checkpoint, mut last_cost) = (Instant::now(), Duration::ZERO);
    // The last pass boundary, and whether a checkpoint was taken there.
    let mut boundary: Option<((u16, u32), bool)> = None;
    let abort_at = test_point("XQTB_TEST_ABORT_AT", material);
    let pause_at = test_point("XQTB_TEST_PAUSE_AT", material);
    let mut after_ply = |work: &mut Work, level: u16, ply: u32| -> Result<(), BuildError> {
        boundary = Some(((level, ply), false));
        if checkpoint_due(
            opts.checkpoint_interval,
            last_checkpoint.elapsed(),
            last_cost,
        ) {
            last_cost = checkpoint(work, (level, ply), progress)?;
            last_checkpoint = Instant::now();
            boundary = Some(((level, ply), true));
        }
        if abort_at == Some((level, ply)) {
            // A crash at a pass boundary, for the resume tests: no clean-up runs.
            std::process::abort();
        }
        if pause_at == Some((level, ply)) {
            // Stopped as by a SIGSTOP, for the full-disk tests: they fill the disk, then
            // continue the build with a SIGCONT.
            // Safety: `raise` only sends this process a signal; SIGSTOP cannot be caught.
            unsafe { libc::raise(libc::SIGSTOP) };
        }
        if opts.stop.raised() {
            checkpoint(work, (level, ply), progress)?;
            return Err(BuildError::Stopped);
        }
        Ok(())
    };
    let graph = &table.graph;
    // Levels below `phase0` are phase 0's; level `phase0 + r - 1` is order `r`'s.
    let phase0 = levels.map_or(1, |l| l.phase0() as u16);
    let first_order = first_level.saturating_sub(phase0 - 1);
    let plies = if first_level < phase0 && levels.is_some() {
        dtm::propagate_phase0(
            work,
            graph,
            events,
            phase0,
            (first_level, first_ply),
            progress,
            &mut after_ply,
        )?
    } else {
        dtc::propagate(
            work,
            graph,
            (first_level, first_ply),
            progress,
            None,
            &mut dtc::Unscheduled,
            |w, ply| after_ply(w, first_level, ply),
        )?
    };
    if table.rules == Rules::None {
        return Ok((plies, first_order));
    }
    let numbering = table.numbering.clone();
    let level_of = |order: u16| match levels {
        Some(l) => l.phase_index(order),
        None => order,
    };
    let orders = solve_orders(
        work,
        graph,
        table.rules,
        numbering,
        first_order,
        &level_of,
        progress,
        &mut after_ply,
    );
    // A rule stage short of memory stops at a pass boundary: checkpointed there, a run with
    // more memory goes on from it.
    if let (Err(BuildError::RuleStageTooLarge { .. }), Some((at, false))) = (&orders, boundary) {
        checkpoint(work, at, progress)?;
    }
    let orders = orders?;
    for o in &orders {
        let warm = match o.warm_exclusions {
            0 => String::new(),
            n => format!(" ({n} exclusion{} warm)", if n > 1 { "s" } else { "" }),
        };
        let kind = match o.kind {
            LevelKind::Check => "perpetual-check",
            LevelKind::Chase => "perpetual-chase",
        };
        progress.note(&format!(
            "{material}: order {} seeded by {} {kind} losses{warm}",
            o.order, o.seeds
        ));
    }
    Ok((plies, orders.last().map_or(first_order, |o| o.order)))
}

/// Writes the table file from the solved state and removes the working store; returns the
/// legal positions written and the store's traffic in this run.
fn write(
    (mut work, keep_derived): (Work, Option<std::path::PathBuf>),
    table: &TablePlan,
    opts: &BuildOptions,
    (rule_set, supports, levels): (RuleSet, &[SupportingTable], Option<&Levels>),
    max_order: u16,
    progress: &dyn Progress,
) -> Result<(u64, Traffic), BuildError> {
    work.release_pass_memory();
    let target = Target {
        material: table.material,
        metric: table.metric,
    };
    let positions = write_table(
        &work,
        table.graph.indexer(),
        (&target.path(&opts.dir), keep_derived),
        (rule_set, supports, levels),
        max_order,
        progress,
    )?;
    let store = work.into_store();
    let traffic = store.traffic();
    store.remove()?;
    Ok((positions, traffic))
}

/// For tests only, `<material>:<order>:<ply>` in the environment variable `var`: the pass
/// boundary of that table's build where, after its checkpoint, the build dies
/// (`XQTB_TEST_ABORT_AT`: an abort, as a kill would leave it) or stops until continued
/// (`XQTB_TEST_PAUSE_AT`: a SIGSTOP).
fn test_point(var: &str, material: Material) -> Option<(u16, u32)> {
    let v = std::env::var(var).ok()?;
    let mut parts = v.split(':');
    let m: Material = parts.next()?.parse().ok()?;
    let order = parts.next()?.parse().ok()?;
    let ply = parts.next()?.parse().ok()?;
    (m == material).then_some((order, ply))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_wait_ten_times_the_last_ones_cost() {
        let s = Duration::from_secs;
        // Every pass boundary when asked for.
        assert!(checkpoint_due(Duration::ZERO, s(0), s(100)));
        // The interval alone while checkpoints are cheap.
        assert!(!checkpoint_due(s(60), s(59), s(1)));
        assert!(checkpoint_due(s(60), s(60), s(1)));
        // A 35-second checkpoint: the next one after 350 s, not 60.
        assert!(!checkpoint_due(s(60), s(349), s(35)));
        assert!(checkpoint_due(s(60), s(350), s(35)));
        // None at all with an endless interval.
        assert!(!checkpoint_due(Duration::MAX, s(1 << 40), s(1)));
    }
}
