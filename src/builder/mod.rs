//! The out-of-core retrograde builder (design: `formats/build.md`): [`build`] a material's table
//! and its supporting tables within a memory budget, resuming from the last checkpoint.
//!
//! Algorithm: retrograde analysis with distances (Fang, Algorithm 8, Section 5.1) in the
//! distance-to-conversion metric (Section 5.3), with children counting (Section 6, remark 3),
//! run as passes over a chunked working state, on the engine of [`crate::retro`]:
//!
//! - `plan`: the memory plan, a pure function of the budget, the sizes and the threads;
//! - `layout`: chunks of `2^k` consecutive indices;
//! - `entry`: the 32-bit working entry (value, or children count);
//! - `pass`: the pass framework (scan a frontier → route updates → apply; resident or
//!   streaming sink);
//! - `dtc`: initialisation and the plies of one order, as passes;
//! - `rules`: the orders of the Asian rules (the order stage of [`crate::retro::orders`]);
//! - `write`: the final table file;
//! - `store`, `work`: chunk files, manifest, checkpoints and resume;
//! - `sub`: the supporting tables captures lead to.
//!
//! When the working state fits the budget the chunks stay resident and updates land directly
//! (atomics); otherwise the build streams: the frontier bitmaps stay in RAM, updates are
//! gathered in a bounded buffer that spills to per-chunk logs, and each destination chunk is
//! read once per pass, updated and written back (a new generation if a checkpoint names the
//! current one). Either way the result is the same bytes.

mod buffers;
mod chunkfile;
mod claim;
mod derived;
mod dtc;
mod dtm;
mod entry;
mod estimate;
mod family;
mod frontier;
mod layout;
mod parked;
mod partial;
mod pass;
mod plan;
mod rules;
mod run;
mod store;
pub use estimate::{estimate, estimate_all, TableEstimate};
pub use partial::{build_partial, partial_dir, withheld_tables, PartialReports};
pub use set::{expand as expand_set, expand_all as expand_sets, SetError};
pub use store::Traffic;
mod set;
mod sub;
mod work;
mod write;

pub use crate::retro::{FamilyStatus, Progress, Silent};
pub use rules::OrderReport;

use crate::fang::Rules;
use crate::index::IndexError;
use crate::material::Material;
use crate::piece::Color;
use crate::table::{metric_table_path, Header, Metric, RuleSet, TableError, TableFile, BUILDER_ID};
use std::path::PathBuf;
use std::time::Duration;
use store::StoreDir;
use thiserror::Error;

/// The rule set a table built under `rules` records in its header (a table of a material the
/// rules cannot change records [`RuleSet::DtcAny`]: [`RuleSet::for_material`]).
pub(crate) fn rule_set(rules: Rules) -> RuleSet {
    match rules {
        Rules::None => RuleSet::DtcOrder0,
        Rules::Check => RuleSet::DtcCheck,
        Rules::Asian => RuleSet::DtcAsian,
    }
}

/// One table file a build makes: a material's table in one metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The material.
    pub material: Material,
    /// The metric.
    pub metric: Metric,
}

impl Target {
    /// The name of its working store under `--tmp`: `KRK` (DTC), `KRK.dtm` (DTM).
    pub fn store_name(self) -> String {
        match self.metric {
            Metric::Dtc => self.material.to_string(),
            Metric::Dtm => format!("{}.dtm", self.material),
        }
    }

    /// Its file in `dir`.
    pub fn path(self, dir: &std::path::Path) -> PathBuf {
        metric_table_path(dir, self.material, self.metric)
    }
}

impl std::fmt::Display for Target {
    /// `KRK` (DTC), `KRK (DTM)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.metric {
            Metric::Dtc => write!(f, "{}", self.material),
            Metric::Dtm => write!(f, "{} (DTM)", self.material),
        }
    }
}

/// Which metrics a build makes (`--metric`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metrics {
    /// Distance to conversion only.
    Dtc,
    /// Distance to mate only.
    Dtm,
    /// Both, each table's DTC file then its DTM file.
    Both,
}

impl Metrics {
    /// The metrics, in the order each table's files are built.
    pub fn list(self) -> &'static [Metric] {
        match self {
            Metrics::Dtc => &[Metric::Dtc],
            Metrics::Dtm => &[Metric::Dtm],
            Metrics::Both => &Metric::ALL,
        }
    }
}

/// The `--rules` value that builds tables of the rule set named `name`.
fn rules_option(name: &str) -> &'static str {
    match name {
        "dtc-order0" => "none",
        "dtc-check" => "check",
        _ => "asian",
    }
}

/// Why a build stopped.
#[derive(Debug, Error)]
pub enum BuildError {
    /// An I/O error on a file or directory of the build.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A table file (final or supporting) could not be written, opened or read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The material could not be indexed, or a position not encoded.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A value beyond what the working state holds (DTM: a capture's level or ply).
    #[error("{0}")]
    Limit(String),
    /// A propagation ran past the largest distance the working state holds.
    #[error("table {material}: distance overflow at ply {ply} (the working state holds distances up to {max})")]
    Overflow {
        /// The table being built.
        material: Material,
        /// The ply that overflowed.
        ply: u32,
        /// The largest distance an entry holds (65,535).
        max: u16,
    },
    /// The memory budget is below [`MIN_BUDGET`].
    #[error("memory budget {budget} bytes is below the minimum of 64 MiB")]
    BudgetBelowMinimum {
        /// The budget given, in bytes.
        budget: u64,
    },
    /// No memory plan for the table fits the budget, not even a streaming one.
    #[error("memory budget of {} MiB is too small for table {material}: it needs at least {} MiB", budget >> 20, needed.div_ceil(1 << 20))]
    BudgetTooSmall {
        /// The budget given, in bytes.
        budget: u64,
        /// The smallest budget that fits, in bytes.
        needed: u64,
        /// The table that does not fit.
        material: Material,
    },
    /// A rule stage's loss candidates, or a pattern computed in its slice (a streamed build
    /// whose pattern bitmaps do not fit), need more memory than the plan gives them.
    #[error(
        "the rule stage of {material} after order {order} needs {} MiB for {}, but the memory \
         budget leaves it {} MiB: {}",
        needed.div_ceil(1 << 20),
        what.name(),
        budget >> 20,
        match memory {
            Some(m) => format!("run the build again with --memory {}M or more to resume it", m >> 20),
            None => "no --memory up to 1 TiB gives it that much".to_string(),
        }
    )]
    RuleStageTooLarge {
        /// The table being built.
        material: Material,
        /// The order whose patterns were being computed.
        order: u16,
        /// What needed more.
        what: plan::RuleNeed,
        /// The least `--memory` whose plan gives it that much (None: none found).
        memory: Option<u64>,
        /// Bytes it needed (at least).
        needed: u64,
        /// Bytes the plan gives it.
        budget: u64,
    },
    /// The working directory exists, is not empty and is not an xqtb store.
    #[error("{0} exists and is not an xqtb working directory: refusing to use or delete it (choose another --tmp)")]
    ForeignDir(PathBuf),
    /// The name of a store's checkpoint manifest is taken by something that is not a file.
    #[error("{0} is not a file, but a build's checkpoint manifest has this name: remove it, or choose another --tmp")]
    ManifestNotAFile(PathBuf),
    /// A checkpoint was made under other rules than the build asks for: resuming it would mix
    /// two rule sets' values in one table.
    #[error(
        "{} holds a checkpoint of a build of {material} under rule set {found} (order {order}, \
         ply {ply}), but this build asks for {asked}: run it with --rules {} to resume it, or \
         delete {} to start over",
        store.display(),
        rules_option(found),
        store.display()
    )]
    CheckpointRules {
        /// The store holding the checkpoint.
        store: PathBuf,
        /// The table.
        material: Material,
        /// The checkpoint's rule set.
        found: String,
        /// The rule set asked for.
        asked: String,
        /// Where the checkpoint is.
        order: u16,
        /// Its last ply.
        ply: u32,
    },
    /// Another build of another rule set is building in the table directory.
    #[error(
        "another build is building tables of another rule set in this directory ({holder}), \
         and this one asks for {}: a directory holds tables of one rule set",
        asked.name()
    )]
    RulesAtWork {
        /// The other build's lock stamp.
        holder: String,
        /// The rule set asked for.
        asked: RuleSet,
    },
    /// The table directory holds tables of another rule set: a directory holds one.
    #[error(
        "{} holds rule set {}, but this build asks for {}: a directory holds tables of one rule \
         set (dtc-any tables, which no rule changes, serve all): build into another --dir, or \
         run with --rules {}",
        path.display(),
        found.name(),
        asked.name(),
        rules_option(found.name())
    )]
    DirRules {
        /// A table of the other rule set.
        path: PathBuf,
        /// Its rule set.
        found: RuleSet,
        /// The rule set asked for.
        asked: RuleSet,
    },
    /// A stop was asked for (SIGINT, SIGTERM): the build took a checkpoint and stopped.
    #[error("stopped on request at a checkpoint (the tables finished are kept; the same command goes on)")]
    Stopped,
    /// A build failed but left a checkpoint it can resume from.
    #[error("{source} (its checkpoint is kept in {}: {}, or delete it)", dir.display(), source.how_to_resume())]
    Kept {
        /// Why the build failed.
        source: Box<BuildError>,
        /// The working directory that keeps the checkpoint.
        dir: PathBuf,
    },
    /// A directory (the tables' or a working one) is in use by another build, or its lock could
    /// not be taken.
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    /// Not enough disk space for the build.
    #[error(transparent)]
    Space(#[from] crate::diskspace::SpaceError),
    /// A checkpoint's manifest, chunk files or update logs are missing, damaged or of another
    /// build.
    #[error("damaged checkpoint: {0}")]
    Checkpoint(String),
    /// The Asian rules' passes cannot build the table (its pieces cannot be numbered, or it
    /// has too many orders).
    #[error("Asian rules: {0}")]
    Rules(String),
    /// The builder found its own data inconsistent (a bug, or a damaged supporting table).
    #[error("internal inconsistency: {0}")]
    Inconsistent(String),
    /// The options ask for a build that cannot be made (a partial build withholding nothing,
    /// or its own table, or of distance to mate).
    #[error("{0}")]
    Options(String),
}

impl BuildError {
    /// How a build stopped by this error goes on from its checkpoint.
    fn how_to_resume(&self) -> &'static str {
        match self {
            BuildError::RuleStageTooLarge {
                memory: Some(_), ..
            } => "run the build again with that --memory to resume",
            _ => "run the same command to resume",
        }
    }
}

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Where final tables live (supporting tables are read from here too).
    pub dir: PathBuf,
    /// Where working files live (a subdirectory per table, removed after success).
    pub tmp: PathBuf,
    /// Memory budget in bytes: the builder's own data (working state, supporting tables,
    /// buffers) is planned to stay inside it; the program itself takes a few MiB more.
    pub memory: u64,
    /// At most this many entries per working chunk (rounded down to a power of two; a streamed
    /// build may halve it to keep its unresolved filter, `formats/build.md` §9); fixed when a
    /// table's build starts.
    pub chunk_len: u64,
    /// A checkpoint is taken at a pass boundary once this long has passed since the last one
    /// (and ten times as long as that one took; zero: at every pass boundary).
    pub checkpoint_interval: Duration,
    /// Stream through chunk files even if the table would fit the budget (for tests).
    pub force_streaming: bool,
    /// Stream with frontier lists even if the frontier bitmaps would fit the budget (for tests
    /// and measurements).
    pub frontier_lists: bool,
    /// Stream with frontier lists and the unresolved filter of one side at a time in RAM, the
    /// other parked in the store, even if more would fit (for tests and measurements).
    pub park_filter: bool,
    /// Push every win ply from its frontier, never pull it (for tests and measurements: the
    /// two resolve the same entries).
    pub push_only: bool,
    /// Stream, and compute a rule stage's patterns in slices even if their bitmaps would fit
    /// the budget (for tests and measurements: both give the same seeds).
    pub pattern_slices: bool,
    /// Fail at once if another build holds a table this build needs, instead of building the
    /// other tables meanwhile and waiting for it.
    pub no_wait: bool,
    /// Keep the DTM tables' derived values under `tmp` when the build ends (`derived`): a
    /// later build of a table above reads them instead of finding them again from the moves.
    pub keep_derived: bool,
    /// Which of the Asian rules on endless play decide values (supporting tables are built
    /// under the same rules).
    pub rules: Rules,
    /// Which metrics to build: each table's DTC and/or DTM file.
    pub metrics: Metrics,
    /// Once raised (the command line raises it on SIGINT and SIGTERM), the build takes a
    /// checkpoint at the next pass boundary and stops with [`BuildError::Stopped`].
    pub stop: StopFlag,
    /// One of the two builds of a partial table (`formats/partial.md`): these supporting
    /// tables are not built nor read, their captures valued as the best for one side.
    pub withheld: Option<Withheld>,
}

/// The tables a partial build withholds, and the side their captures are the best for
/// (`formats/partial.md` §2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withheld {
    /// Their canonical materials.
    pub materials: Vec<Material>,
    /// A capture into one is a win for this side, whoever is to move after it.
    pub best_for: Color,
}

impl Withheld {
    /// Is `material`'s table withheld?
    pub fn holds(&self, material: Material) -> bool {
        self.materials.contains(&material.canonical())
    }
}

/// A request to stop a build cleanly: any thread (a signal handler too) may raise it.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(pub std::sync::Arc<std::sync::atomic::AtomicBool>);

impl StopFlag {
    /// Has a stop been asked for?
    pub fn raised(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl BuildOptions {
    /// Options for building into `dir`: working files in `dir/.work`, a 256 MiB budget, default
    /// chunks, a checkpoint a minute, no waiting for another build, the Asian rules.
    pub fn new(dir: impl Into<PathBuf>) -> BuildOptions {
        let dir = dir.into();
        BuildOptions {
            tmp: dir.join(".work"),
            dir,
            memory: 256 << 20,
            chunk_len: DEFAULT_CHUNK_LEN,
            checkpoint_interval: Duration::from_secs(60),
            force_streaming: false,
            frontier_lists: false,
            park_filter: false,
            pattern_slices: false,
            push_only: false,
            no_wait: false,
            keep_derived: false,
            rules: Rules::Asian,
            metrics: Metrics::Dtc,
            stop: StopFlag::default(),
            withheld: None,
        }
    }
}

/// Default entries per working chunk: 1 Mi entries, 4 MiB of working state.
pub const DEFAULT_CHUNK_LEN: u64 = 1 << 20;
/// The smallest budget accepted.
pub const MIN_BUDGET: u64 = 64 << 20;

/// What a build did for one table.
#[derive(Clone, Debug)]
pub struct TableReport {
    /// The table's material.
    pub material: Material,
    /// The table's metric.
    pub metric: Metric,
    /// Index entries per side.
    pub entries: u64,
    /// Legal positions, both sides to move.
    pub positions: u64,
    /// None if the table was already present.
    pub seconds: Option<f64>,
    /// Whether the working state was resident (false: streamed through chunk files).
    pub resident: bool,
    /// The last ply of the first order propagated (order 0, unless the build resumed a
    /// checkpoint past it); 0 if the table was already present.
    pub plies: u32,
    /// The highest order (0 without the Asian rules' orders).
    pub max_order: u16,
    /// Bytes this run wrote to and read from the table's working store (zero if it was
    /// present, or resident and never checkpointed).
    pub traffic: store::Traffic,
}

impl TableReport {
    fn present(t: Target, h: &Header) -> TableReport {
        TableReport {
            material: t.material,
            metric: t.metric,
            entries: h.entries,
            positions: h.sides.iter().map(|(_, s)| s.legal).sum(),
            seconds: None,
            resident: false,
            plies: 0,
            max_order: h.max_order,
            traffic: Default::default(),
        }
    }
}

/// The header of `material`'s table if it is present and usable for this build: intact, of
/// that material, written by this builder, of the build's rule set, and built from the
/// supporting tables present now (`formats/build.md` §11); a note on why not otherwise (`None`
/// if there is no file).
fn present(opts: &BuildOptions, t: Target) -> Result<Header, Option<String>> {
    let (material, path) = (t.material, t.path(&opts.dir));
    if !path.exists() {
        return Err(None);
    }
    let rule_set = rule_set(opts.rules).for_material(material);
    let f = TableFile::open(&path, 0)
        .and_then(|f| f.verify_file_checksum().map(|()| f))
        .map_err(|e| Some(format!("{e}: rebuilding table {t}")))?;
    let h = f.header();
    let why = if h.material != material || h.metric != t.metric {
        format!(
            "{} holds {} ({}), not {t}",
            path.display(),
            h.material,
            h.metric.name()
        )
    } else if h.builder != BUILDER_ID {
        format!(
            "{} was written by {:?}, not by this builder ({BUILDER_ID})",
            path.display(),
            h.builder
        )
    } else if h.rule_set != rule_set {
        format!(
            "{} holds rule set {}, not {}",
            path.display(),
            h.rule_set.name(),
            rule_set.name()
        )
    } else if let Some(why) = changed_support(opts, &f, t.metric) {
        why
    } else {
        return Ok(h.clone());
    };
    Err(Some(format!("{why}: rebuilding")))
}

/// Why `table` no longer belongs with the tables its captures lead to, if it does not: one of
/// them is not the file it was built from.
fn changed_support(opts: &BuildOptions, table: &TableFile, metric: Metric) -> Option<String> {
    table.header().supports.iter().find_map(|record| {
        // A partial build's table belongs only with the same withholding (and the other way).
        let asked = opts
            .withheld
            .as_ref()
            .filter(|w| w.holds(record.material))
            .map(|w| w.best_for);
        if asked != record.withheld_best_for() {
            return Some(format!(
                "{} was built with {} {}, this build {}",
                table.path().display(),
                record.material,
                describe_withheld(record.withheld_best_for()),
                describe_withheld(asked)
            ));
        }
        if record.is_withheld() {
            return None;
        }
        let path = metric_table_path(&opts.dir, record.material, metric);
        let found = match crate::table::read_identity(&path) {
            Ok(found) => found,
            Err(e) => {
                return Some(format!(
                    "{}: its supporting table: {e}",
                    table.path().display()
                ))
            }
        };
        record
            .check(&found, table.path(), &path)
            .err()
            .map(|e| e.to_string())
    })
}

fn describe_withheld(best_for: Option<Color>) -> String {
    match best_for {
        None => "present".into(),
        Some(c) => format!("withheld (its captures the best for {c:?})"),
    }
}

/// Fails if `--dir` holds a table of another rule set than the build's (`dtc-any` tables
/// aside): a directory holds the tables of one rule set, which the probing API relies on.
fn check_dir_rules(opts: &BuildOptions) -> Result<(), BuildError> {
    let asked = rule_set(opts.rules);
    match crate::table::rule_sets_in(&opts.dir)
        .into_iter()
        .find(|(_, r)| !r.combines_with(asked))
    {
        Some((path, found)) => Err(BuildError::DirRules { path, found, asked }),
        None => Ok(()),
    }
}

/// Builds `material`'s table and, first, every table it needs, skipping tables already present
/// and intact. When every table is present (and no working files are left over) nothing is
/// written; otherwise `dir` is locked for the whole build (`formats/build.md` §11).
pub fn build(
    material: Material,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<TableReport>, BuildError> {
    if opts.memory < MIN_BUDGET {
        return Err(BuildError::BudgetBelowMinimum {
            budget: opts.memory,
        });
    }
    let withheld = opts.withheld.as_ref().map_or(&[][..], |w| &w.materials[..]);
    if withheld.contains(&material.canonical()) {
        return Err(BuildError::Options(format!(
            "{material} cannot be built with its own table withheld"
        )));
    }
    let tables: Vec<Target> = material
        .supporting_without(withheld)
        .into_iter()
        .flat_map(|material| {
            opts.metrics
                .list()
                .iter()
                .map(move |&metric| Target { material, metric })
        })
        .collect();
    // Every table the build needs can be built under these rules, and indexed, and each one
    // missing fits the memory budget: refused now, not after the tables before it are built.
    for &t in &tables {
        run::table_rules(t.material, opts.rules)?;
        if !t.path(&opts.dir).exists() {
            run::check_plan(t, opts)?;
        }
    }
    // Nothing to do (and nothing to write) if every table is present and no working files of
    // theirs are left over.
    let mut settled = Vec::new();
    for &t in &tables {
        match present(opts, t) {
            Ok(h) if StoreDir::left(&opts.tmp, t).is_none() => {
                settled.push(TableReport::present(t, &h))
            }
            _ => break,
        }
    }
    if settled.len() == tables.len() {
        tidy_settled(&tables, opts)?;
        return Ok(settled);
    }
    // A checkpoint of other rules first: its error says how to resume it, which a directory of
    // the checkpoint's rules (the tables built before it) would hide.
    for &t in &tables {
        if let Some((store, m)) = StoreDir::checkpoint_left(&opts.tmp, t) {
            let rule_set = rule_set(opts.rules).for_material(t.material);
            run::check_checkpoint_rules(&store, &m, t.material, rule_set)?;
        }
    }
    check_dir_rules(opts)?;
    for d in [&opts.dir, &opts.tmp] {
        std::fs::create_dir_all(d).map_err(|source| BuildError::Io {
            path: d.clone(),
            source,
        })?;
    }
    let reports = build_tables(tables, opts, progress);
    claim::remove_lock_dirs(opts);
    // `--tmp` goes too when the build leaves it empty, whatever the outcome (a kept checkpoint
    // keeps it).
    let _ = std::fs::remove_dir(&opts.tmp);
    reports
}

/// Builds each of `tables` not present (each after those it captures into), claiming each
/// before building it: several builds in one directory share the work (`formats/locks.md`).
fn build_tables(
    tables: Vec<Target>,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<Vec<TableReport>, BuildError> {
    // A build that finished meanwhile removes `--tmp` when it leaves it empty.
    std::fs::create_dir_all(&opts.tmp).map_err(|source| BuildError::Io {
        path: opts.tmp.clone(),
        source,
    })?;
    check_dir_rules(opts)?;
    let readers = derived_readers(opts)?;
    let mut reports = Vec::new();
    let result = build_each(&tables, opts, progress, &mut reports);
    // The derived sides' values kept for the tables above them (`derived`) are needed no more
    // once the build has gone through (unless a build of a table above follows), and no other
    // build reads them; after a failure they speed up the next run.
    drop(readers);
    remove_derived(result.is_ok() && !opts.keep_derived, opts)?;
    result.map(|()| reports)
}

/// With every table present: what builds killed after their last table's rename left goes, if
/// no build holds it: the tables' lock files, the derived values' lock, and the derived values a
/// build sharing the directory could not remove (this one read them then).
fn tidy_settled(tables: &[Target], opts: &BuildOptions) -> Result<(), BuildError> {
    for &t in tables {
        claim::remove_left(opts, t)?;
    }
    let values = !opts.keep_derived && derived::any_kept(&opts.tmp);
    if values || opts.tmp.join(claim::DERIVED_LOCK).exists() {
        remove_derived(values, opts)?;
    }
    claim::remove_lock_dirs(opts);
    let _ = std::fs::remove_dir(&opts.tmp);
    Ok(())
}

/// A shared hold on the derived values under `--tmp`: no build removes them while another may
/// read them.
fn derived_readers(opts: &BuildOptions) -> Result<crate::lock::FileLock, BuildError> {
    let path = opts.tmp.join(claim::DERIVED_LOCK);
    loop {
        // A build that finished may remove `--tmp`, empty, meanwhile.
        let shared = crate::lock::Mode::Shared;
        if let Some(lock) = crate::lock::FileLock::try_take_creating_dir(&path, shared)? {
            return Ok(lock);
        }
        // Held exclusively only while a build removes derived values: a moment.
        std::thread::sleep(POLL);
    }
}

/// Removes the derived values under `--tmp` (with `values`) and their lock file if no other
/// build may read them: the last build of several sharing `--tmp` to end removes them all.
fn remove_derived(values: bool, opts: &BuildOptions) -> Result<(), BuildError> {
    let path = opts.tmp.join(claim::DERIVED_LOCK);
    if let Some(lock) = crate::lock::FileLock::try_take(&path, crate::lock::Mode::Exclusive)? {
        if values {
            derived::remove_all(&opts.tmp);
        }
        lock.remove()?;
    }
    Ok(())
}

/// How often a build looks again at tables other builds hold.
const POLL: Duration = Duration::from_millis(300);

/// Builds each of `tables` not present, in turn: the first whose supporting tables are present
/// and which no other build holds, then looks again from the start; waits while every table
/// left is held by another build or needs one that is. Adds a report of each to `reports`.
fn build_each(
    tables: &[Target],
    opts: &BuildOptions,
    progress: &dyn Progress,
    reports: &mut Vec<TableReport>,
) -> Result<(), BuildError> {
    let mut family = family::Family::new(tables, opts)?;
    let mut left: Vec<Target> = tables.to_vec();
    let mut noted = std::collections::HashSet::new();
    while !left.is_empty() {
        if opts.stop.raised() {
            return Err(BuildError::Stopped);
        }
        match next_claim(&left, opts, progress, &mut noted)? {
            Some((k, claim)) => {
                let t = left.remove(k);
                let supports_more = opts.keep_derived || left.iter().any(|u| u.metric == t.metric);
                let family = (&mut family, supports_more);
                reports.push(build_claimed(t, claim, opts, progress, family)?);
            }
            None => std::thread::sleep(POLL),
        }
    }
    Ok(())
}

/// The first table of `left` whose supporting tables are not in `left` and which this build
/// could claim, with its claim. A table another build holds is noted once (in `noted`), or is
/// an error with `--no-wait`.
fn next_claim(
    left: &[Target],
    opts: &BuildOptions,
    progress: &dyn Progress,
    noted: &mut std::collections::HashSet<Target>,
) -> Result<Option<(usize, claim::Claim)>, BuildError> {
    for (k, &t) in left.iter().enumerate() {
        let waits_for_support = t.material.captures_into().iter().any(|m| {
            left.iter()
                .any(|u| u.metric == t.metric && u.material == *m)
        });
        if waits_for_support {
            continue;
        }
        match claim::try_claim(opts, t)? {
            claim::Claimed::Held(c) => return Ok(Some((k, c))),
            claim::Claimed::Busy(holder) if opts.no_wait => {
                return Err(crate::lock::LockError::TableBusy {
                    table: t.to_string(),
                    holder,
                }
                .into())
            }
            claim::Claimed::Busy(holder) => {
                if noted.insert(t) {
                    progress.note(&format!(
                        "{t} is being built by another build ({holder}): building the tables \
                         that do not need it meanwhile, then waiting for it"
                    ));
                }
            }
        }
    }
    Ok(None)
}

/// Builds `t` under `claim` unless it is present by now (another build may have finished it:
/// then its report says present).
fn build_claimed(
    t: Target,
    claim: claim::Claim,
    opts: &BuildOptions,
    progress: &dyn Progress,
    (family, supports_more): (&mut family::Family, bool),
) -> Result<TableReport, BuildError> {
    // Claimed: a build of another rule set that started with this one is caught now.
    if let Some(holder) = claim::other_rules_at_work(opts) {
        return Err(BuildError::RulesAtWork {
            holder,
            asked: rule_set(opts.rules),
        });
    }
    check_dir_rules(opts)?;
    match present(opts, t) {
        Ok(h) => {
            // A kill after the table's rename but before its working files went leaves them
            // behind; nothing needs them now.
            StoreDir::remove_left(&opts.tmp, t)?;
            claim.finish()?;
            return Ok(TableReport::present(t, &h));
        }
        Err(Some(note)) => progress.note(&note),
        Err(None) => {}
    }
    if let Some(previous) = &claim.previous {
        progress.note(&format!(
            "{t}: its last builder ({}) stopped without finishing it; this build takes it over",
            claim::describe(previous)
        ));
    }
    family.starting(t, progress);
    // A build that finished may have removed `--tmp`, empty.
    std::fs::create_dir_all(&opts.tmp).map_err(|source| BuildError::Io {
        path: opts.tmp.clone(),
        source,
    })?;
    let result =
        check_space(opts, t).and_then(|()| run::build_table(t, opts, progress, supports_more));
    match result {
        Ok(r) => {
            family.built(t, r.seconds.unwrap_or(0.0));
            claim.finish()?;
            Ok(r)
        }
        // Still claimed: no other build resumes the store while it is judged. The lock files
        // stay with a checkpoint (their stamp tells the next build whose it was).
        Err(e) => match clean_up_after(e, opts, t) {
            kept @ BuildError::Kept { .. } => Err(kept),
            e => {
                claim.finish()?;
                Err(e)
            }
        },
    }
}

/// Fails unless `--tmp` and `--dir` have room for `material`'s build (`formats/build.md` §10).
/// The files an interrupted build of it left in its store count as room: a resumed build keeps
/// them within the same need, or deletes them.
fn check_space(opts: &BuildOptions, t: Target) -> Result<(), BuildError> {
    let material = t.material;
    let n = crate::index::Indexer::new(material)?.size();
    let kept = StoreDir::bytes_left(&opts.tmp, t);
    crate::diskspace::check_space(
        &opts.tmp,
        estimate::tmp_need(n).saturating_sub(kept),
        &format!("building table {material}"),
    )?;
    crate::diskspace::check_space(&opts.dir, n, &format!("table {material}"))?;
    Ok(())
}

/// After a failed build of `material`: a checkpoint it can resume from is kept (and the error
/// says so); otherwise its working files go.
fn clean_up_after(e: BuildError, opts: &BuildOptions, t: Target) -> BuildError {
    if let BuildError::CheckpointRules { .. } | BuildError::ManifestNotAFile(_) = e {
        // The store is left as it is; the error says what to do with it.
        return e;
    }
    match StoreDir::keep_checkpoint(&opts.tmp, t) {
        Some(dir) => BuildError::Kept {
            source: Box::new(e),
            dir,
        },
        None => e,
    }
}
