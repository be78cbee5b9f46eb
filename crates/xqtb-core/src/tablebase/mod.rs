//! The probing API: a directory of tables, as engines and the query commands use it. Probe any
//! legal position whose material (or colour-flipped twin) has a table: its outcome from the WDL
//! stream alone ([`Tablebase::probe_wdl`]), its (order, distance) value
//! ([`Tablebase::probe_dtc`]), every move with its value, the best moves by Fang's Definition 9
//! and the principal line to the next conversion.
//!
//! A [`Tablebase`] is `Send + Sync`: share one (`Arc` or a reference) between search threads.
//! Tables are opened on first use and kept open; each has its own bounded block cache.
//!
//! Tables are only probed together when they belong together (`formats/table.md` §4.1): a
//! directory holds tables of one rule set (besides `dtc-any` tables, which serve every rule
//! set), and a table opens only if each table its captures lead to, where present, is the very
//! file it was built from (and still is when that table is opened). Otherwise probes of it fail with a [`ProbeError::Unusable`] naming
//! both files. [`Tablebase::refresh`] notices tables rebuilt on disk and reopens them.
//!
//! ```
//! use xqtb_core::tablebase::{LineEnd, Tablebase};
//! use xqtb_core::value::{Outcome, Value};
//! use xqtb_core::{parse_fen, Move};
//!
//! // Build the tables of a rook against a lone king (KRK and KK) in a scratch directory (with
//! // the crate `xqtb`, the builder).
//! let dir = tempfile::tempdir()?;
//! xqtb::build("KRK".parse()?, &xqtb::BuildOptions::new(dir.path()), &xqtb::Silent)?;
//!
//! let tb = Tablebase::open(dir.path())?;
//! // Red: king e0, rook g0; Black: king d9. Red to move wins at once with rook to g8: Black's
//! // king may go neither to d8 (the rook's rank) nor to e9 (facing Red's king), and a side
//! // without a move has lost. (Rook to g9 is check, but the king escapes to d8.)
//! let pos = parse_fen("3k5/9/9/9/9/9/9/9/9/4K1R2 w")?;
//! assert_eq!(tb.probe_wdl(&pos)?, Outcome::Win);
//! assert_eq!(tb.probe_dtc(&pos)?, Value::Decided { order: 0, distance: 1 });
//! let best = tb.best_moves(&pos)?;
//! assert_eq!(best.iter().map(|m| m.mv).collect::<Vec<_>>(), [Move::parse("g0g8").unwrap()]);
//! let line = tb.principal_line(&pos)?;
//! assert_eq!((line.moves.len(), line.end), (1, LineEnd::Mate));
//!
//! // A material without a table is a typed error naming the file it would need.
//! let err = tb.probe_wdl(&parse_fen("3k5/9/9/9/9/9/9/9/9/4K1N2 w")?).unwrap_err();
//! assert!(err.to_string().contains("KNK.xqtb"), "{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::index::{IndexError, Indexer};
use crate::material::Material;
use crate::piece::Color;
use crate::position::{Move, Position};
use crate::repetition::{Repetition, RepetitionError};
use crate::table::{metric_table_path, Metric, RuleSet, SupportingTable, TableError, TableFile};
use crate::value::{Outcome, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use thiserror::Error;

mod dtm;
mod game;
pub mod partial;
pub use dtm::{Dtm, DtmLine, DtmMove};

/// Why a position could not be probed.
#[derive(Debug, Error)]
pub enum ProbeError {
    /// The directory has no table file for the position's material.
    #[error("no {}table for material {material}: {} not found (build it with `xqtb build {material} --dir {}{}`)", if *metric == Metric::Dtm { "DTM " } else { "" }, path.display(), dir.display(), if *metric == Metric::Dtm { " --metric dtm" } else { "" })]
    Missing {
        /// The missing table's (canonical) material.
        material: Material,
        /// The metric of the table missing.
        metric: Metric,
        /// The tablebase directory.
        dir: PathBuf,
        /// The file the table would be in.
        path: PathBuf,
    },
    /// Following best moves did not bring the distance down: the tables contradict each other.
    #[error("the principal line reaches {fen}, whose value is no closer to conversion than its parent's (corrupted or wrong table)")]
    Inconsistent {
        /// The position (FEN) where the distance failed to shrink.
        fen: String,
    },
    /// The tablebase directory is missing or not a directory.
    #[error("cannot open the table directory {}: {source}", dir.display())]
    Directory {
        /// The directory given.
        dir: PathBuf,
        /// The OS's error (`ENOTDIR` for a path that is not a directory).
        source: std::io::Error,
    },
    /// The position is illegal (the side not to move is in check): no table holds a value for it.
    #[error("position is illegal: the side not to move is in check")]
    Illegal,
    /// Reading a table file failed (a block that fails its checksum, an I/O error).
    #[error(transparent)]
    Table(#[from] TableError),
    /// A table failed to open, or its checks, when it was first needed: its header, its
    /// material, or (with [`Tablebase::with_file_checksums`]) its whole-file checksum. The
    /// failure is remembered: the table is not opened again, and every probe that needs it
    /// returns this error.
    #[error("{source}")]
    Unusable {
        /// The table's (canonical) material.
        material: Material,
        /// What is wrong with it (the error names the file).
        #[source]
        source: Arc<TableError>,
    },
    /// The position could not be indexed in its table.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A game given with a position has a move that is not legal where it is played.
    #[error(transparent)]
    Game(#[from] RepetitionError),
}

/// An open table.
pub struct OpenTable {
    /// The table file (stored values; [`Tablebase::probe_dtc`] resolves them).
    pub file: TableFile,
    /// The file as it was when opened: a table rebuilt on disk since differs.
    stamp: FileStamp,
}

/// What tells a file rewritten or replaced on disk from the one opened: its inode, length and
/// modification time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
}

impl FileStamp {
    fn of(meta: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
        }
    }

    /// The stamp of the file `path` names now; `None` if there is none.
    fn of_path(path: &Path) -> Option<FileStamp> {
        std::fs::metadata(path).ok().map(|m| FileStamp::of(&m))
    }
}

/// The rule set of the directory's tables that the rules on endless play can change (all but
/// `dtc-any` tables), as a scan of their headers found it.
#[derive(Clone, Debug)]
enum DirRules {
    /// No such table yet: the first one opened sets it.
    Unknown,
    /// Every such table has this rule set (the path is one of them).
    One(RuleSet, PathBuf),
    /// Two tables of different rule sets: none of those tables is probed.
    Mixed((RuleSet, PathBuf), (RuleSet, PathBuf)),
}

/// The rule sets of the tables in `dir` whose values the rules can change (files that cannot
/// be read are left for their own probes to report).
fn scan_rules(dir: &Path) -> DirRules {
    let mut found = DirRules::Unknown;
    for (path, rule_set) in crate::table::rule_sets_in(dir) {
        found = match found {
            _ if rule_set == RuleSet::DtcAny => found,
            DirRules::Unknown => DirRules::One(rule_set, path),
            DirRules::One(r, p) if r != rule_set => DirRules::Mixed((r, p), (rule_set, path)),
            other => other,
        };
    }
    found
}

impl OpenTable {
    /// The index of the table's material (the file's own: it checked the index size at open).
    pub fn indexer(&self) -> &Indexer {
        self.file.indexer()
    }
}

/// Why a table could not be used, and its file as it was then (`None`: there was none).
type Failure = (Arc<TableError>, Option<FileStamp>);

/// Tables in one directory, opened on first use.
pub struct Tablebase {
    dir: PathBuf,
    cache_bytes: usize,
    /// A larger block cache for one table (`with_table_cache`).
    table_cache: Option<((Material, Metric), usize)>,
    /// Check each table's whole-file checksum when it is first opened.
    check_files: bool,
    open: Mutex<OpenTables>,
    /// Tables that failed to open or their checks, with why and the file as it was then.
    failed: Mutex<HashMap<(Material, Metric), Failure>>,
    /// The rule set of the directory's tables (those the rules can change).
    rules: Mutex<DirRules>,
    /// Supporting tables as the tables opened so far found them (and the first such table's
    /// path): each must still be that file when it is opened itself.
    expected: Mutex<HashMap<(Material, Metric), (SupportingTable, PathBuf)>>,
    /// Distinguishes this tablebase, and its tables since the last change on disk, in the
    /// threads' caches of the last table probed.
    id: AtomicU64,
    /// A directory of one of the two builds of partial tables (`formats/partial.md`): tables
    /// built with supporting tables withheld as the best for this side open; `None`: they are
    /// refused ([`TableError::BuiltWithout`]).
    partial_build: Option<Color>,
    /// The tables the partial builds opened so far were built without.
    withheld: Mutex<std::collections::HashSet<Material>>,
}

/// The table a thread probed last: (tablebase id, material and metric, table).
type LastTable = (u64, (Material, Metric), Arc<OpenTable>);

/// Numbers [`Tablebase`]s for [`LAST`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The table this thread probed last: (tablebase id, material, table). Search threads probe
    /// the same few tables over and over; a hit here spares them the shared map's lock and the
    /// table's shared reference count, which many threads would otherwise contend for on every
    /// probe. (It keeps that one table open until the thread probes another or ends, even if
    /// its tablebase is dropped meanwhile.)
    static LAST: RefCell<Option<LastTable>> = const { RefCell::new(None) };
}

/// The tables open, each with when it was last asked for: at most `limit` of them (the least
/// recently used is closed to open another), so a reader of many tables holds the blocks of
/// `limit` tables' caches at most (and the one table each thread probed last, [`LAST`]).
struct OpenTables {
    tables: HashMap<(Material, Metric), (Arc<OpenTable>, u64)>,
    clock: u64,
    limit: usize,
}

impl OpenTables {
    fn new(limit: usize) -> OpenTables {
        OpenTables {
            tables: HashMap::new(),
            clock: 0,
            limit: limit.max(1),
        }
    }

    fn get(&mut self, key: &(Material, Metric)) -> Option<Arc<OpenTable>> {
        self.clock += 1;
        let now = self.clock;
        self.tables.get_mut(key).map(|(t, used)| {
            *used = now;
            t.clone()
        })
    }

    fn insert(&mut self, key: (Material, Metric), table: Arc<OpenTable>) {
        while self.tables.len() >= self.limit && !self.tables.contains_key(&key) {
            let lru = *self
                .tables
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k)
                .expect("not empty");
            self.tables.remove(&lru);
        }
        self.clock += 1;
        self.tables.insert(key, (table, self.clock));
    }
}

/// One legal move and the value of the position it leads to (for the side to move there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Whether it captures (a conversion into a smaller table).
    pub capture: bool,
    /// The value of the position after the move, for the side to move there (the opponent);
    /// [`MoveValue::for_mover`] gives it from the mover's side.
    pub value: Value,
}

/// The block cache per open table that [`Tablebase::open`] gives: 16 MiB.
pub const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// How a principal line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The last move captures: play goes on in a smaller table.
    Conversion,
    /// The side to move after the last move has no legal move (checkmate or stalemate: a loss).
    Mate,
    /// The position is a draw: there is no line to follow.
    Draw,
    /// The side to move has lost at distance 0 of an order above 0: all it can do is check or
    /// chase forever, which the Asian rules forbid (Fang, Theorem 8).
    Perpetual,
    /// A position of the game stands again ([`Tablebase::line_in_game`]): the cycle and its
    /// ruling under the Asian rules.
    Repetition(Repetition),
}

/// The principal line from a position to its next conversion: best moves for both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrincipalLine {
    /// The moves played, each with the value of the position it leads to.
    pub moves: Vec<MoveValue>,
    /// Why the line stops where it does.
    pub end: LineEnd,
}

impl Tablebase {
    /// Opens a directory of tables with a [`DEFAULT_CACHE_BYTES`] block cache per table. Tables
    /// are opened when first probed.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        Tablebase::open_with_cache(dir, DEFAULT_CACHE_BYTES)
    }

    /// [`Tablebase::open`] with a block cache of `cache_bytes` of decompressed blocks per open
    /// table (at least one block): an engine probing spread-out positions of large tables wants
    /// more than the default.
    pub fn open_with_cache(
        dir: impl AsRef<Path>,
        cache_bytes: usize,
    ) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref();
        // Listing the directory checks it the way the OS reports it: a file gives ENOTDIR.
        match std::fs::read_dir(dir) {
            Ok(_) => Ok(Tablebase::new(dir, cache_bytes)),
            Err(source) => Err(ProbeError::Directory {
                dir: dir.to_owned(),
                source,
            }),
        }
    }

    /// `cache_bytes`: block cache per open table.
    pub fn new(dir: &Path, cache_bytes: usize) -> Tablebase {
        Tablebase {
            dir: dir.to_owned(),
            cache_bytes,
            table_cache: None,
            check_files: false,
            open: Mutex::new(OpenTables::new(usize::MAX)),
            failed: Mutex::new(HashMap::new()),
            rules: Mutex::new(scan_rules(dir)),
            expected: Mutex::new(HashMap::new()),
            id: AtomicU64::new(NEXT_ID.fetch_add(1, Relaxed)),
            partial_build: None,
            withheld: Mutex::new(Default::default()),
        }
    }

    /// A directory of the build of partial tables whose withheld tables' captures were valued
    /// as the best for `best_for` (`formats/partial.md` §2): its tables open, their values being
    /// that build's ([`partial::PartialTablebase`] pairs two).
    pub fn of_partial_build(dir: &Path, cache_bytes: usize, best_for: Color) -> Tablebase {
        Tablebase {
            partial_build: Some(best_for),
            ..Tablebase::new(dir, cache_bytes)
        }
    }

    /// Notices tables changed on disk since they were opened (rewritten, replaced, removed,
    /// truncated) or since they failed: if any did, every table is closed, every remembered
    /// failure forgotten and the directory's rule set read again, so the next probes open the
    /// files as they are now (a table opened again checks its supporting tables again). One
    /// `stat` per table opened or failed. Returns whether anything changed. A probe under way
    /// keeps reading the table it started with.
    pub fn refresh(&self) -> bool {
        let path = |&(m, metric): &(Material, Metric)| metric_table_path(&self.dir, m, metric);
        let open_changed = self
            .open
            .lock()
            .unwrap()
            .tables
            .iter()
            .any(|(m, (t, _))| FileStamp::of_path(&path(m)) != Some(t.stamp));
        let failed_changed = || {
            self.failed
                .lock()
                .unwrap()
                .iter()
                .any(|(m, (_, stamp))| FileStamp::of_path(&path(m)) != *stamp)
        };
        if !open_changed && !failed_changed() {
            return false;
        }
        self.open.lock().unwrap().tables.clear();
        self.failed.lock().unwrap().clear();
        self.expected.lock().unwrap().clear();
        *self.rules.lock().unwrap() = scan_rules(&self.dir);
        self.id.store(NEXT_ID.fetch_add(1, Relaxed), Relaxed);
        true
    }

    /// Checks each table's whole-file checksum when it is first opened (one read of the whole
    /// file), besides the checksums of its header, value table and block index (always checked
    /// on opening) and of each block (checked when it is read). For a server that must never
    /// answer from a damaged file; an engine's search usually leaves it off (`xqtb verify`
    /// checks files ahead of time).
    pub fn with_file_checksums(mut self) -> Tablebase {
        self.check_files = true;
        self
    }

    /// At most `limit` tables open at once (at least one): to open another, the least recently
    /// used is closed. Bounds the memory of a reader of many tables (each table's cache, plus
    /// the one table each thread probed last); unbounded by default.
    pub fn with_open_limit(self, limit: usize) -> Tablebase {
        *self.open.lock().unwrap() = OpenTables::new(limit);
        self
    }

    /// A block cache of `bytes` for `material`'s `metric` table instead of the tables' own: for
    /// a reader that probes one table far more than the others (finding a DTM table's derived
    /// side probes its stored side for every stand-in).
    pub fn with_table_cache(
        mut self,
        material: Material,
        metric: Metric,
        bytes: usize,
    ) -> Tablebase {
        self.table_cache = Some(((material.canonical(), metric), bytes));
        self
    }

    /// How many tables are open now.
    pub fn open_count(&self) -> usize {
        self.open.lock().unwrap().tables.len()
    }

    /// Bytes of decompressed blocks the open tables' caches hold now: at most the cache size
    /// given at opening for each open table.
    pub fn cached_bytes(&self) -> usize {
        let open = self.open.lock().unwrap();
        open.tables
            .values()
            .map(|(t, _)| t.file.cached_bytes())
            .sum()
    }

    /// Why the (DTC) table of `material` could not be used, if it failed to open or its
    /// checks.
    pub fn failure(&self, material: Material) -> Option<Arc<TableError>> {
        self.failure_of(material, Metric::Dtc)
    }

    /// Why the `metric` table of `material` could not be used, if it failed.
    pub fn failure_of(&self, material: Material, metric: Metric) -> Option<Arc<TableError>> {
        self.failed
            .lock()
            .unwrap()
            .get(&(material.canonical(), metric))
            .map(|(e, _)| e.clone())
    }

    /// The directory the tables are read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The pieces (kings included) of the largest table in the directory, of either metric, as
    /// it is now (0 if none): a search need not probe positions with more (Fathom's
    /// `TB_LARGEST`).
    pub fn largest(&self) -> Result<u32, ProbeError> {
        let mut largest = 0;
        for metric in [Metric::Dtc, Metric::Dtm] {
            let materials = crate::table::materials_in(&self.dir, metric).map_err(|source| {
                ProbeError::Directory {
                    dir: self.dir.clone(),
                    source,
                }
            })?;
            largest = materials
                .iter()
                .map(Material::piece_count)
                .fold(largest, u32::max);
        }
        Ok(largest)
    }

    /// The (DTC) table of a material.
    pub fn table(&self, material: Material) -> Result<Arc<OpenTable>, ProbeError> {
        self.table_of(material, Metric::Dtc)
    }

    /// The `metric` table of a material.
    pub fn table_of(
        &self,
        material: Material,
        metric: Metric,
    ) -> Result<Arc<OpenTable>, ProbeError> {
        let material = material.canonical();
        if let Some(t) = self.open.lock().unwrap().get(&(material, metric)) {
            return Ok(t.clone());
        }
        if let Some(source) = self.failure_of(material, metric) {
            return Err(ProbeError::Unusable { material, source });
        }
        let path = metric_table_path(&self.dir, material, metric);
        if !path.exists() {
            return Err(ProbeError::Missing {
                material,
                metric,
                dir: self.dir.clone(),
                path,
            });
        }
        let stamp = FileStamp::of_path(&path);
        match self.open_checked((material, metric), path) {
            Ok(t) => {
                let t = Arc::new(t);
                self.open
                    .lock()
                    .unwrap()
                    .insert((material, metric), t.clone());
                Ok(t)
            }
            Err(e) => {
                let source = Arc::new(e);
                self.failed
                    .lock()
                    .unwrap()
                    .insert((material, metric), (source.clone(), stamp));
                Err(ProbeError::Unusable { material, source })
            }
        }
    }

    /// Opens the table file of `material` at `path` and checks it: its material, its rule set
    /// against the directory's, the tables it was built from against those present, and (with
    /// [`Tablebase::with_file_checksums`]) its whole-file checksum.
    fn open_checked(
        &self,
        (material, metric): (Material, Metric),
        path: PathBuf,
    ) -> Result<OpenTable, TableError> {
        let cache = match self.table_cache {
            Some((key, bytes)) if key == (material, metric) => bytes,
            _ => self.cache_bytes,
        };
        let file = TableFile::open(&path, cache)?;
        // The stamp of the file opened (not of the path, which may have changed meanwhile).
        let stamp = FileStamp::of(&file.metadata().map_err(TableError::io(&path))?);
        if file.header().material != material {
            return Err(TableError::WrongMaterial {
                path,
                expected: material,
                found: file.header().material,
            });
        }
        if file.header().metric != metric {
            return Err(TableError::BadHeader {
                path,
                what: format!(
                    "a {} table under the name of a {} table",
                    file.header().metric.name(),
                    metric.name()
                ),
            });
        }
        self.check_rule_set(&file)?;
        for record in &file.header().supports {
            self.check_support(record, metric, &path)?;
        }
        self.check_expected(&file)?;
        if self.check_files {
            file.verify_file_checksum()?;
        }
        Ok(OpenTable { file, stamp })
    }

    /// Fails unless the supporting table `record` names, if present, is the file the table at
    /// `table` was built from. Its identity is read from its header and trailer (opening it
    /// for probes, with its index, would open the whole chain below at once); it must still be
    /// that file when it is opened ([`Tablebase::check_expected`]). A supporting table that is
    /// absent or unreadable fails the probes that need it, with its own error.
    fn check_support(
        &self,
        record: &SupportingTable,
        metric: Metric,
        table: &Path,
    ) -> Result<(), TableError> {
        if let Some(best_for) = record.withheld_best_for() {
            if self.partial_build == Some(best_for) {
                self.withheld.lock().unwrap().insert(record.material);
                return Ok(());
            }
            return Err(TableError::BuiltWithout {
                path: table.to_owned(),
                withheld: record.material,
            });
        }
        let path = metric_table_path(&self.dir, record.material, metric);
        let open = self.open.lock().unwrap().get(&(record.material, metric));
        let found = match open {
            Some(t) => t.file.as_support(),
            None => match crate::table::read_identity(&path) {
                Ok(found) => found,
                Err(_) => return Ok(()),
            },
        };
        record.check(&found, table, &path)?;
        self.expected
            .lock()
            .unwrap()
            .insert((record.material, metric), (*record, table.to_owned()));
        Ok(())
    }

    /// Fails if `file` is not the file a table opened before it found as its supporting table
    /// (it was replaced in between).
    fn check_expected(&self, file: &TableFile) -> Result<(), TableError> {
        let key = (file.header().material, file.header().metric);
        match self.expected.lock().unwrap().get(&key) {
            Some((record, table)) => record.check(&file.as_support(), table, file.path()),
            None => Ok(()),
        }
    }

    /// Fails unless `file`'s rule set combines with the directory's (the first table of rules
    /// opened sets it when the scan found none).
    fn check_rule_set(&self, file: &TableFile) -> Result<(), TableError> {
        let rule_set = file.header().rule_set;
        if rule_set == RuleSet::DtcAny {
            return Ok(());
        }
        let mut rules = self.rules.lock().unwrap();
        let mismatch = |(other_rule_set, other): &(RuleSet, PathBuf)| TableError::RuleSetMismatch {
            path: file.path().to_owned(),
            rule_set,
            other: other.clone(),
            other_rule_set: *other_rule_set,
        };
        match &*rules {
            DirRules::Unknown => {
                *rules = DirRules::One(rule_set, file.path().to_owned());
                Ok(())
            }
            DirRules::One(r, _) if *r == rule_set => Ok(()),
            DirRules::One(r, p) => Err(mismatch(&(*r, p.clone()))),
            // Which rule set is meant cannot be told: every table of either is refused, naming
            // one of the other.
            DirRules::Mixed(a, b) => Err(mismatch(if a.0 == rule_set { b } else { a })),
        }
    }

    /// The value of a legal position for its side to move: draw, or order and distance to
    /// conversion. A win at once (distance 1) and a loss at once (distance 0) are not stored
    /// in the file: they are found by a look at the moves ([`crate::table::resolve`]), which
    /// costs a WDL probe of the children that could be lost at once (for a capture, in the
    /// smaller table, which must be present). Nor are the distances of a table's derived side
    /// ([`Tablebase::derive`]): its positions' values come from their children's.
    pub fn probe_dtc(&self, pos: &Position) -> Result<Value, ProbeError> {
        if let Some(v) = self.withheld_value(pos) {
            return Ok(v);
        }
        let stored = self.locate(pos, |t, side, index| t.file.stored_legal(side, index))?;
        self.resolve(pos, stored)
    }

    /// A legal position's value from what its entry stores ([`crate::table::resolve`]).
    fn resolve(&self, pos: &Position, stored: Value) -> Result<Value, ProbeError> {
        crate::table::resolve(
            stored,
            || self.wins_at_once(pos),
            || pos.has_legal_quiet(),
            || self.derive(pos, stored.outcome()),
        )
    }

    /// The value of a legal position of a derived side (`formats/table.md` §5) whose outcome
    /// is `outcome`: the best value its moves give the mover (Fang's Definition 9). A win
    /// looks only at the moves into lost positions (a capture among them wins at once), a loss
    /// only at its quiet moves (a capture into a won position gives the least loss, `(0, 0)`).
    /// The quiet moves reach the other side of the same table, whose values are stored.
    pub fn derive(&self, pos: &Position, outcome: Outcome) -> Result<Value, ProbeError> {
        if outcome == Outcome::Draw {
            return Ok(Value::Draw);
        }
        let mut considered = Vec::new();
        for mv in pos.legal_moves() {
            let capture = pos.is_capture(mv);
            let mut child = pos.clone();
            child.play(mv);
            let value = if outcome == Outcome::Win {
                if self.probe_wdl(&child)? != Outcome::Loss {
                    continue;
                }
                if capture {
                    return Ok(crate::table::WIN_AT_ONCE);
                }
                self.probe_dtc(&child)?
            } else if capture {
                continue;
            } else {
                self.probe_dtc(&child)?
            };
            considered.push(MoveValue { mv, capture, value });
        }
        Ok(derived_value(outcome, &considered))
    }

    /// A legal position's value and every legal move's, each child probed once: the position's
    /// value is resolved from its moves' where the file leaves it out (as
    /// [`Tablebase::probe_dtc`] resolves it).
    pub fn probe_with_moves(&self, pos: &Position) -> Result<(Value, Vec<MoveValue>), ProbeError> {
        let stored = self.locate(pos, |t, side, index| t.file.stored_legal(side, index))?;
        let moves = self.probe_moves(pos)?;
        let value = crate::table::resolve(
            stored,
            || Ok::<_, ProbeError>(moves.iter().any(MoveValue::wins_at_once)),
            || pos.has_legal_quiet(),
            || Ok(derived_value(stored.outcome(), &moves)),
        )?;
        Ok((value, moves))
    }

    /// The values of one block of `side`'s entries of a table (to move in them), in index
    /// order, as [`Value::code`]s ([`crate::value::CODE_NONE`] for entries that are not legal
    /// positions): the stored values resolved as [`Tablebase::probe_dtc`] resolves them. For
    /// tools that read a whole table (a dump, a comparison with another solver).
    pub fn block_values(
        &self,
        material: Material,
        side: Color,
        block: u64,
    ) -> Result<Vec<u32>, ProbeError> {
        let t = self.table(material)?;
        let be = t.file.header().block_entries as u64;
        let mut codes = t.file.read_stored(side, block)?;
        for (k, c) in codes.iter_mut().enumerate() {
            let Some(stored @ Value::Decided { .. }) = Value::from_code(*c) else {
                continue;
            };
            let index = block * be + k as u64;
            let pos = t
                .indexer()
                .decode(index, side)
                .expect("a legal entry decodes");
            *c = self.resolve(&pos, stored)?.code();
        }
        Ok(codes)
    }

    /// Does the side to move of a legal position win at distance 1: a capture into a position
    /// lost for the opponent (in the smaller table), or a quiet move into a position lost at
    /// once (lost, and without a legal quiet move)?
    pub fn wins_at_once(&self, pos: &Position) -> Result<bool, ProbeError> {
        let moves = pos.legal_moves();
        // Captures first: they are the usual wins at once, and need no second look.
        for &m in moves.iter().filter(|&&m| pos.is_capture(m)) {
            let mut child = pos.clone();
            child.play(m);
            if self.probe_wdl(&child)? == Outcome::Loss {
                return Ok(true);
            }
        }
        for &m in moves.iter().filter(|&&m| !pos.is_capture(m)) {
            let mut child = pos.clone();
            child.play(m);
            if !child.has_legal_quiet() && self.probe_wdl(&child)? == Outcome::Loss {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The outcome of a legal position for its side to move, read from the WDL stream alone
    /// (a few percent of a table's bytes; no distance is decompressed).
    pub fn probe_wdl(&self, pos: &Position) -> Result<Outcome, ProbeError> {
        if let Some(v) = self.withheld_value(pos) {
            return Ok(v.outcome());
        }
        self.locate(pos, |t, side, index| t.file.outcome_legal(side, index))
    }

    /// In a directory of partial builds, the value a position of a withheld table stands in
    /// with ([`partial::withheld_stand_in`]).
    fn withheld_value(&self, pos: &Position) -> Option<Value> {
        let best_for = self.partial_build?;
        let material = Material::of(pos).canonical();
        if !self.withheld.lock().unwrap().contains(&material) {
            return None;
        }
        Some(partial::withheld_stand_in(pos.turn() == best_for))
    }

    /// Where a legal position's value is stored: its table's material (canonical), the side to
    /// move and the index of its entry there (colours flipped if its material is not
    /// canonical). Two positions with the same entry have the same value.
    pub fn entry_of(&self, pos: &Position) -> Result<(Material, Color, u64), ProbeError> {
        self.locate(pos, |t, side, index| {
            Ok((t.file.header().material, side, index))
        })
    }

    /// Finds a legal position's table and entry and reads it with `read`.
    fn locate<T, R: FnOnce(&OpenTable, Color, u64) -> Result<T, TableError>>(
        &self,
        pos: &Position,
        read: R,
    ) -> Result<T, ProbeError> {
        self.locate_in(Metric::Dtc, pos, read)
    }

    /// [`Tablebase::locate`] in the `metric` table.
    pub(crate) fn locate_in<T, R: FnOnce(&OpenTable, Color, u64) -> Result<T, TableError>>(
        &self,
        metric: Metric,
        pos: &Position,
        read: R,
    ) -> Result<T, ProbeError> {
        if pos.opponent_in_check() {
            return Err(ProbeError::Illegal);
        }
        let material = Material::of(pos);
        let flipped;
        let p = if material.is_canonical() {
            pos
        } else {
            flipped = pos.flip_colors();
            &flipped
        };
        // `p` is legal (checked above): its entry holds its value.
        let entry = |t: &OpenTable, read: R| -> Result<T, ProbeError> {
            Ok(read(t, p.turn(), t.indexer().encode(p)?)?)
        };
        let mut read = Some(read);
        let id = self.id.load(Relaxed);
        let hit = LAST.with_borrow(|last| match last {
            Some((last_id, m, t)) if *last_id == id && *m == (material, metric) => {
                Some(entry(t, read.take().expect("unused")))
            }
            _ => None,
        });
        if let Some(r) = hit {
            return r;
        }
        let t = self.table_of(material, metric)?;
        LAST.with_borrow_mut(|last| *last = Some((id, (material, metric), t.clone())));
        entry(&t, read.take().expect("unused"))
    }

    /// The best moves of a legal position by Fang's Definition 9, as the query system marks them
    /// with `*`: the shortest win of the lowest order, else a draw, else the longest loss of the
    /// highest order (counted to the next conversion). In move order; empty without a legal move.
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let moves = self.probe_moves(pos)?;
        let best = moves.iter().map(|m| m.for_mover().rank()).max();
        Ok(moves
            .into_iter()
            .filter(|m| Some(m.for_mover().rank()) == best)
            .collect())
    }

    /// The principal line from a legal position to its next conversion: both sides play a best
    /// move (the smallest [`Move`] where several are best), until a capture or a position
    /// without a legal move. Each move shortens the distance by one, so the line has as many
    /// moves as the position's distance; a drawn position has none.
    pub fn principal_line(&self, pos: &Position) -> Result<PrincipalLine, ProbeError> {
        let mut line = PrincipalLine {
            moves: Vec::new(),
            end: LineEnd::Draw,
        };
        let mut value = self.probe_dtc(pos)?;
        let mut cur = pos.clone();
        while let Value::Decided { order, distance } = value {
            if distance == 0 && order > 0 {
                line.end = LineEnd::Perpetual;
                break;
            }
            let Some(step) = self.best_moves(&cur)?.into_iter().min_by_key(|m| m.mv) else {
                line.end = LineEnd::Mate;
                break;
            };
            line.moves.push(step);
            if step.capture {
                line.end = LineEnd::Conversion;
                break;
            }
            cur.play(step.mv);
            // Values shrink along best moves; a table where they do not would loop.
            match step.value {
                Value::Decided { distance: d, .. } if d < distance => value = step.value,
                _ => {
                    return Err(ProbeError::Inconsistent {
                        fen: crate::fen::to_fen(&cur),
                    })
                }
            }
        }
        Ok(line)
    }

    /// Every legal move with the value of its resulting position.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let capture = pos.piece_at(m.to).is_some();
            let mut child = pos.clone();
            child.play(m);
            out.push(MoveValue {
                mv: m,
                capture,
                value: self.probe_dtc(&child)?,
            });
        }
        Ok(out)
    }
}

impl MoveValue {
    /// Does the move win at once: a capture into a lost position, or a quiet move into a
    /// position lost at once (`(0, 0)`: lost without a legal quiet move)?
    fn wins_at_once(&self) -> bool {
        if self.capture {
            self.value.outcome() == Outcome::Loss
        } else {
            self.value == crate::table::LOST_AT_ONCE
        }
    }

    /// What the move is worth to the mover in distance to conversion: a quiet move into a
    /// position lost (won) at distance d wins (loses) at d + 1; a capture converts, so a capture
    /// into a lost position wins at 1 and one into a won position loses at 0.
    pub fn for_mover(&self) -> Value {
        match self.value {
            Value::Draw => Value::Draw,
            // A capture converts: the line starts afresh in this table, at order 0 (Fang
            // §5.3), whatever the order of the position it reaches.
            Value::Decided { distance, .. } if self.capture => Value::Decided {
                order: 0,
                distance: if distance % 2 == 0 { 1 } else { 0 },
            },
            Value::Decided { order, distance } => Value::Decided {
                order,
                distance: distance.saturating_add(1),
            },
        }
    }
}

/// The value of a position of `outcome` whose moves are `moves` (all of them, or at least those
/// a position of that outcome takes its value from): the best value they give the mover
/// (Fang's Definition 9). A win takes it from the moves into lost positions (a capture among
/// them wins at once), a loss from its quiet moves (captures into won positions give the least
/// loss, `(0, 0)`).
fn derived_value(outcome: Outcome, moves: &[MoveValue]) -> Value {
    let considered = moves.iter().filter(|m| match outcome {
        Outcome::Win => m.value.outcome() == Outcome::Loss,
        Outcome::Loss => !m.capture,
        Outcome::Draw => false,
    });
    match outcome {
        Outcome::Draw => Value::Draw,
        _ => considered
            .map(MoveValue::for_mover)
            .max_by_key(|v| v.rank())
            .unwrap_or(crate::table::LOST_AT_ONCE),
    }
}
