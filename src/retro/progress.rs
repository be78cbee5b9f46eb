//! How a build reports what it is doing, kept out of the library core: the command line draws
//! progress bars, an embedder (the server, a test) may show nothing.

/// Where a build of several tables stands when it starts one.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyStatus {
    /// The table starting (its name: material, and ` dtm` for a DTM table).
    pub table: String,
    /// Its place among the tables this run builds, from 1.
    pub number: usize,
    /// The tables this run builds (those not yet in the directory when it started).
    pub count: usize,
    /// Seconds since the run started.
    pub elapsed: f64,
    /// Estimated seconds until the last table is written, this one included: the planned
    /// estimates of the tables left, scaled by how the tables built so far compared with
    /// theirs.
    pub left: f64,
}

/// Receives a build's progress. Called from worker threads.
pub trait Progress: Sync {
    /// A build of several tables starts one of them.
    fn table(&self, _status: &FamilyStatus) {}
    /// A phase begins with `total` units of work (entries or positions).
    fn start(&self, _label: &str, _total: u64) {}
    /// `done` more units of the current phase are done.
    fn advance(&self, _done: u64) {}
    /// The current phase is over.
    fn finish(&self) {}
    /// A notable event, one line: the plan chosen, a resume, a restart and why.
    fn note(&self, _line: &str) {}
    /// How the builder lays a table out (its chunks, its store), one line: for a reader tuning
    /// a build (`--verbose`), not for every user.
    fn detail(&self, _line: &str) {}
    /// Whether [`Progress::detail`] shows its lines: figures that cost work to gather (the
    /// rule stage's set sizes) are gathered only then.
    fn wants_detail(&self) -> bool {
        false
    }
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {}
