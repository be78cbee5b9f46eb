//! One table's build from start to file: plan, resume or initialise, propagate, write, clean up.

use super::dtc;
use super::layout::Layout;
use super::plan::{plan_chunks, MIN_STREAM_CHUNK};
use super::store::StoreDir;
use super::sub::Subtables;
use super::work::Work;
use super::write::write_table;
use super::BuildError;
use super::{BuildOptions, TableReport};
use crate::fang::Rules;
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{Color, Role};
use crate::retro::graph::Graph;
use crate::retro::Progress;
use crate::table::table_path;
use std::time::Instant;

/// The store directory of `material`'s build under `tmp`.
pub fn store_path(tmp: &std::path::Path, material: Material) -> std::path::PathBuf {
    tmp.join(material.to_string())
}

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

/// Builds `material`'s table; its supporting tables must be present.
pub fn build_table(
    material: Material,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<TableReport, BuildError> {
    let start = Instant::now();
    let graph = Graph::new(Indexer::new(material)?);
    let n = graph.indexer().size();
    let store = StoreDir::open(store_path(&opts.tmp, material))?;
    // A checkpoint fixes the chunk length; an unreadable one is reported and ignored.
    let manifest = store.read_manifest().unwrap_or_else(|e| {
        progress.note(&format!(
            "{material}: {e}; restarting this table from scratch"
        ));
        None
    });
    let resumed_layout = match &manifest {
        Some(m) if m.entries == n => Some(Layout::new(n, m.chunk_shift)),
        _ => None,
    };
    let sizes = supporting_sizes(material)?;
    let threads = rayon::current_num_threads();
    // One-sided tables are not affected by the rules on endless play (Fang, Section 1).
    let rules = if crate::retro::affected(material) {
        opts.rules
    } else {
        Rules::None
    };
    if rules == Rules::Asian {
        // Refused before any work, not after order 0.
        crate::retro::numbering::Numbering::new(material)
            .map_err(|e| BuildError::Rules(format!("{e} (build it with --rules check or none)")))?;
    }
    let too_small = |e: super::plan::TooSmall| BuildError::BudgetTooSmall {
        budget: opts.memory,
        needed: e.needed,
        material,
    };
    let rule_bitmaps = crate::retro::orders::bitmaps(material, rules);
    // A resumed build keeps its checkpoint's chunks; a new one may take shorter chunks than
    // asked to keep the unresolved filter.
    let (asked, shortest) = match resumed_layout {
        Some(l) => (l.chunk_len() as u64, l.chunk_len() as u64),
        None => (
            Layout::with_len(n, opts.chunk_len).chunk_len() as u64,
            MIN_STREAM_CHUNK,
        ),
    };
    let (len, p) = plan_chunks(
        opts.memory,
        n,
        (asked, shortest),
        &sizes,
        threads,
        opts.force_streaming,
        rule_bitmaps,
    )
    .map_err(too_small)?;
    let layout = Layout::with_len(n, len);
    let (subs, _) = Subtables::open(
        &opts.dir,
        material,
        p.pack_budget,
        super::plan::SUB_CACHE as usize,
    )?;
    progress.note(&format!(
        "{material}: {n} entries per side, {} ({} chunks of {} per side)",
        if p.resident {
            format!(
                "resident ({} MiB working state)",
                (2 * super::plan::chunk_bytes(n)) >> 20
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
        },
        layout.chunks(),
        layout.chunk_len()
    ));
    let new_work = |store: StoreDir| {
        let mut work = Work::new(
            material,
            layout,
            store,
            p.resident,
            p.unresolved_filter,
            (p.update_buffer / super::buffers::Buffers::RECORD_BYTES) as usize,
            p.chunk_buffers,
        );
        work.pull = !opts.push_only;
        work
    };
    let mut work = new_work(store);

    // Resume from a checkpoint whose every file checks out, or start afresh with a new state:
    // nothing loaded from a damaged checkpoint survives.
    let mut resumed = None;
    if let Some(m) = manifest {
        match work.load(&m, &dtc::select(m.order, m.ply)) {
            Ok(()) => {
                progress.note(&format!(
                    "{material}: resuming after order {} ply {}",
                    m.order, m.ply
                ));
                resumed = Some((m.order, m.ply));
            }
            Err(e) => {
                progress.note(&format!(
                    "{material}: {e}; restarting this table from scratch"
                ));
                let store = work.into_store();
                store.remove_unreferenced(None)?;
                work = new_work(store);
            }
        }
    }
    let (first_order, first_ply) = match resumed {
        Some(at) => at,
        None => {
            work.store.remove_unreferenced(None)?;
            dtc::initialise(&mut work, &graph, &subs, progress)?;
            (0, 0)
        }
    };
    drop(subs);
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
    let plies = dtc::propagate(
        &mut work,
        &graph,
        first_order,
        first_ply,
        progress,
        None,
        |work, ply| after_ply(work, first_order, ply),
    )?;
    let mut max_order = first_order;
    if rules != Rules::None {
        let orders = super::rules::solve_orders(
            &mut work,
            &graph,
            rules,
            first_order,
            progress,
            &mut after_ply,
        )?;
        for o in &orders {
            let warm = match o.warm_exclusions {
                0 => String::new(),
                n => format!(" ({n} exclusion{} warm)", if n > 1 { "s" } else { "" }),
            };
            progress.note(&format!(
                "{material}: order {} seeded by {} {} losses{warm}",
                o.order,
                o.seeds,
                match o.kind {
                    crate::fang::LevelKind::Check => "perpetual-check",
                    crate::fang::LevelKind::Chase => "perpetual-chase",
                }
            ));
        }
        max_order = orders.last().map_or(max_order, |o| o.order);
    }
    work.release_pass_memory();
    let path = table_path(&opts.dir, material);
    let positions = write_table(
        &work,
        graph.indexer(),
        &path,
        super::rule_set(opts.rules),
        max_order,
        progress,
    )?;
    let resident = work.resident();
    work.store.remove()?;
    Ok(TableReport {
        material,
        entries: n,
        positions,
        seconds: Some(start.elapsed().as_secs_f64()),
        resident,
        plies,
        max_order,
    })
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
