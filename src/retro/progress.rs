//! How a build reports what it is doing, kept out of the library core: the command line draws
//! progress bars, an embedder (the server, a test) may show nothing.

/// Receives a build's progress. Called from worker threads.
pub trait Progress: Sync {
    /// A phase begins with `total` units of work (entries or positions).
    fn start(&self, _label: &str, _total: u64) {}
    /// `done` more units of the current phase are done.
    fn advance(&self, _done: u64) {}
    /// The current phase is over.
    fn finish(&self) {}
    /// A notable event, one line: the plan chosen, a resume, a restart and why.
    fn note(&self, _line: &str) {}
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {}
