//! One table's build from start to file: plan, resume or initialise, propagate, write, clean up.

use super::dtc;
use super::layout::Layout;
use super::plan::{chunk_bytes, plan_chunks, Plan, MIN_STREAM_CHUNK, SUB_CACHE};
use super::rules::solve_orders;
use super::store::{Manifest, Provenance, StoreDir};
use super::sub::Subtables;
use super::work::Work;
use super::write::write_table;
use super::BuildError;
use super::{BuildOptions, TableReport};
use crate::fang::{LevelKind, Rules};
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{Color, Role};
use crate::retro::graph::Graph;
use crate::retro::numbering::Numbering;
use crate::retro::Progress;
use crate::table::{table_path, RuleSet, SupportingTable};
use std::time::Instant;

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
    graph: Graph,
    rules: Rules,
    numbering: Numbering,
    plan: Plan,
    layout: Layout,
}

/// Builds `material`'s table; its supporting tables must be present.
pub fn build_table(
    material: Material,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<TableReport, BuildError> {
    let start = Instant::now();
    let store = StoreDir::open(StoreDir::path_for(&opts.tmp, material))?;
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
        if m.provenance.rule_set != rule_set.name() {
            return Err(BuildError::CheckpointRules {
                store: store.dir.clone(),
                material,
                found: m.provenance.rule_set.clone(),
                asked: rule_set.name().into(),
                order: m.order,
                ply: m.ply,
            });
        }
    }
    let table = plan(material, opts, manifest.as_ref())?;
    table.note(&store, progress);
    // Opened before the state takes its memory (the plan counts both).
    let (subs, _) = Subtables::open(
        &opts.dir,
        material,
        rule_set,
        table.plan.pack_budget,
        SUB_CACHE as usize,
    )?;
    let provenance = Provenance::new(rule_set, subs.supports());
    let (mut work, from) =
        resume_or_initialise(&table, opts, store, manifest, (&subs, provenance), progress)?;
    let (plies, max_order) = solve(&mut work, &table, from, opts, progress)?;
    let resident = work.resident();
    let supports = subs.supports().to_vec();
    drop(subs);
    let positions = write(
        work,
        &table,
        opts,
        (rule_set, &supports),
        max_order,
        progress,
    )?;
    Ok(TableReport {
        material,
        entries: table.layout.entries(),
        positions,
        seconds: Some(start.elapsed().as_secs_f64()),
        resident,
        plies,
        max_order,
    })
}

/// The rules on endless play that apply to `material`'s table built under `rules` (none to a
/// table where one side alone has attacking pieces: Fang, Section 1), with its pieces'
/// numbering for chases; an error if its pieces cannot be numbered or indexed.
pub(super) fn table_rules(
    material: Material,
    rules: Rules,
) -> Result<(Rules, Numbering), BuildError> {
    Indexer::new(material)?;
    let rules = if material.rules_apply() {
        rules
    } else {
        Rules::None
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

/// The build's plan: which rules apply (one-sided tables are not affected by the rules on
/// endless play: Fang, Section 1), the memory plan within `--memory`, and the chunks (a resumed
/// build keeps its checkpoint's).
/// Fails if a new build of `material` has no memory plan within `--memory` (a build resuming a
/// checkpoint keeps its chunks, and is planned again when it starts).
pub(super) fn check_plan(material: Material, opts: &BuildOptions) -> Result<(), BuildError> {
    plan(material, opts, None).map(|_| ())
}

fn plan(
    material: Material,
    opts: &BuildOptions,
    manifest: Option<&Manifest>,
) -> Result<TablePlan, BuildError> {
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
    let (len, plan) = plan_chunks(
        opts.memory,
        n,
        (asked, shortest),
        &supporting_sizes(material)?,
        rayon::current_num_threads(),
        opts.force_streaming,
        crate::retro::orders::bitmaps(material, rules),
    )
    .map_err(|e| BuildError::BudgetTooSmall {
        budget: opts.memory,
        needed: e.needed,
        material,
    })?;
    Ok(TablePlan {
        material,
        graph,
        rules,
        numbering,
        plan,
        layout: Layout::with_len(n, len),
    })
}

impl TablePlan {
    /// Says how the table will be built: resident, or streaming through `store`.
    fn note(&self, store: &StoreDir, progress: &dyn Progress) {
        let (p, n) = (&self.plan, self.layout.entries());
        let how = if p.resident {
            format!(
                "resident ({} MiB working state)",
                (2 * chunk_bytes(n)) >> 20
            )
        } else {
            format!(
                "streaming through {} ({} MiB of update buffer{})",
                store.dir.display(),
                p.update_buffer >> 20,
                if p.unresolved_filter {
                    ""
                } else {
                    ", no unresolved filter"
                }
            )
        };
        progress.note(&format!(
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

/// The working state to go on from, and the order and ply its propagation goes on at: the
/// checkpoint's if every file it names checks out, else a new state initialised from the
/// supporting tables (nothing loaded from a damaged checkpoint survives).
fn resume_or_initialise(
    table: &TablePlan,
    opts: &BuildOptions,
    store: StoreDir,
    manifest: Option<Manifest>,
    (subs, provenance): (&Subtables, Provenance),
    progress: &dyn Progress,
) -> Result<(Work, (u16, u32)), BuildError> {
    let material = table.material;
    let mut work = table.work(store, opts, provenance.clone());
    if let Some(m) = manifest {
        let loaded = match m.provenance.differs_from(&provenance) {
            Some(why) => Err(BuildError::Checkpoint(why)),
            None => work.load(&m, &dtc::select(m.order, m.ply)),
        };
        match loaded {
            Ok(()) => {
                progress.note(&format!(
                    "{material}: resuming after order {} ply {}",
                    m.order, m.ply
                ));
                return Ok((work, (m.order, m.ply)));
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
    dtc::initialise(&mut work, &table.graph, subs, progress)?;
    Ok((work, (0, 0)))
}

/// Propagates from `from` (order, ply) to the end of order 0 and, under rules on endless play,
/// through every later order, checkpointing at pass boundaries; returns the plies of the order
/// it started in and the highest order.
fn solve(
    work: &mut Work,
    table: &TablePlan,
    (first_order, first_ply): (u16, u32),
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<(u32, u16), BuildError> {
    let material = table.material;
    let mut last_checkpoint = Instant::now();
    let abort_at = test_point("XQTB_TEST_ABORT_AT", material);
    let pause_at = test_point("XQTB_TEST_PAUSE_AT", material);
    let mut after_ply = |work: &mut Work, order: u16, ply: u32| -> Result<(), BuildError> {
        if last_checkpoint.elapsed() >= opts.checkpoint_interval {
            let m = work.manifest(order, ply);
            work.checkpoint(m)?;
            last_checkpoint = Instant::now();
        }
        if abort_at == Some((order, ply)) {
            // A crash at a pass boundary, for the resume tests: no clean-up runs.
            std::process::abort();
        }
        if pause_at == Some((order, ply)) {
            // Stopped as by a SIGSTOP, for the full-disk tests: they fill the disk, then
            // continue the build with a SIGCONT.
            // Safety: `raise` only sends this process a signal; SIGSTOP cannot be caught.
            unsafe { libc::raise(libc::SIGSTOP) };
        }
        Ok(())
    };
    let graph = &table.graph;
    let plies = dtc::propagate(
        work,
        graph,
        first_order,
        first_ply,
        progress,
        None,
        |w, ply| after_ply(w, first_order, ply),
    )?;
    if table.rules == Rules::None {
        return Ok((plies, first_order));
    }
    let numbering = table.numbering.clone();
    let orders = solve_orders(
        work,
        graph,
        table.rules,
        numbering,
        first_order,
        progress,
        &mut after_ply,
    )?;
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
/// legal positions written.
fn write(
    mut work: Work,
    table: &TablePlan,
    opts: &BuildOptions,
    (rule_set, supports): (RuleSet, &[SupportingTable]),
    max_order: u16,
    progress: &dyn Progress,
) -> Result<u64, BuildError> {
    work.release_pass_memory();
    let positions = write_table(
        &work,
        table.graph.indexer(),
        &table_path(&opts.dir, table.material),
        (rule_set, supports),
        max_order,
        progress,
    )?;
    work.into_store().remove()?;
    Ok(positions)
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
