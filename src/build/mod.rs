//! The out-of-core retrograde builder (design: `formats/build.md`).
//!
//! Algorithm: retrograde analysis with distances (Fang, Algorithm 8, Section 5.1) in the
//! distance-to-conversion metric (Section 5.3), order 0 only, with children counting (Section 6,
//! remark 3). Initialisation marks illegal entries, positions without
//! a legal move (loss, d = 0), captures into positions lost for the opponent (win, d = 1) and
//! positions whose every move is a capture won by the opponent (loss, d = 0), and counts the
//! remaining children. Ply p then takes every position of distance p − 1 (the frontier), finds
//! its predecessors by retro moves, and marks them won (child lost) or decrements their count
//! (child won), a count reaching zero making a loss at distance p. Unresolved positions are
//! draws.
//!
//! Out of core: each side's entries are split into chunks ([`store`]). When the whole working
//! state fits the memory budget the chunks stay resident and updates land directly (atomics);
//! otherwise the build streams: each frontier chunk is read, its predecessors' updates are
//! bucketed by destination chunk in a bounded buffer that spills to per-chunk update logs, and
//! each destination chunk is then read once, updated and written as a new generation. Either
//! way the result is the same bytes.

mod engine;
pub mod store;
mod sub;

pub use engine::TableReport;

use crate::index::IndexError;
use crate::material::Material;
use crate::table::{table_path, TableError, TableFile};
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// Why a build stopped.
#[derive(Debug, Error)]
pub enum BuildError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("table {material}: distance overflow at ply {ply} (the working state holds distances up to {max})")]
    Overflow {
        material: Material,
        ply: u32,
        max: u16,
    },
    #[error("memory budget {budget} bytes is below the minimum of 64 MiB")]
    BudgetTooSmall { budget: u64 },
    #[error("damaged checkpoint: {0}")]
    Checkpoint(String),
    #[error("internal inconsistency: {0}")]
    Inconsistent(String),
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
    /// Entries per working chunk (rounded to whole blocks); fixed when a table's build starts.
    pub chunk_len: u64,
    /// A checkpoint is taken at a pass boundary once this long has passed since the last one
    /// (and always after initialisation).
    pub checkpoint_interval: Duration,
    /// No progress bars.
    pub quiet: bool,
    /// Stream through chunk files even if the table would fit the budget (for tests).
    pub force_streaming: bool,
}

/// Default entries per working chunk: 1 Mi entries, 3 MiB of working state.
pub const DEFAULT_CHUNK_LEN: u64 = 1 << 20;
/// The smallest budget accepted.
pub const MIN_BUDGET: u64 = 64 << 20;

/// The default budget: three quarters of the memory the system reports available.
pub fn default_budget() -> u64 {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    let avail = sys.available_memory();
    (avail / 4 * 3).max(MIN_BUDGET)
}

/// Builds `material`'s table and, first, every table it needs, skipping tables already present
/// and intact. `log` receives one line per notable event.
pub fn build(
    material: Material,
    opts: &BuildOptions,
    log: &(dyn Fn(&str) + Sync),
) -> Result<Vec<TableReport>, BuildError> {
    if opts.memory < MIN_BUDGET {
        return Err(BuildError::BudgetTooSmall {
            budget: opts.memory,
        });
    }
    for d in [&opts.dir, &opts.tmp] {
        std::fs::create_dir_all(d).map_err(|source| BuildError::Io {
            path: d.clone(),
            source,
        })?;
    }
    let mut reports = Vec::new();
    for m in material.supporting() {
        let path = table_path(&opts.dir, m);
        if path.exists() {
            match TableFile::open(&path, 1 << 20).and_then(|f| f.verify_checksums().map(|()| f)) {
                Ok(f) if f.header().material == m => {
                    // A kill after the table's rename but before its working files went leaves
                    // them behind; nothing needs them now.
                    let work = opts.tmp.join(format!("{m}.build"));
                    if work.exists() {
                        std::fs::remove_dir_all(&work).map_err(|source| BuildError::Io {
                            path: work.clone(),
                            source,
                        })?;
                    }
                    reports.push(TableReport::present(m, f.header()));
                    continue;
                }
                Ok(f) => log(&format!(
                    "{} holds {}, not {m}: rebuilding",
                    path.display(),
                    f.header().material
                )),
                Err(e) => log(&format!("{e}: rebuilding table {m}")),
            }
        }
        reports.push(engine::build_table(m, opts, log)?);
    }
    Ok(reports)
}
