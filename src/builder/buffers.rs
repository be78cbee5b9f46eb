//! The update buffers of a build and how staged records are grouped: shared by the pass
//! framework (`pass`), which fills and drains them, and the working state (`work`), which owns
//! them.

use super::plan::THREAD_RECORDS;
use std::sync::Mutex;

/// The update buffers of a build, allocated once by the planning thread (memory freed by worker
/// threads would stay in their allocator arenas).
pub struct Buffers {
    /// Staged updates (destination indices) of the round under way.
    pub(super) staging: Mutex<Vec<u64>>,
    /// The staged updates partitioned by bucket, as indices within their bucket.
    pub(super) sorted: Vec<u32>,
    /// Workers' own buffers.
    pub(super) pool: Mutex<Vec<Vec<u64>>>,
    /// Serialises the streaming workers' direct writes to the logs.
    pub(super) spill: Mutex<()>,
}

impl Buffers {
    /// Bytes per staged update.
    pub const RECORD_BYTES: u64 = 12;

    /// Buffers staging `records` updates, for `threads` workers.
    pub fn new(records: usize, threads: usize) -> Buffers {
        Buffers {
            staging: Mutex::new(Vec::with_capacity(records)),
            sorted: vec![0; records],
            pool: Mutex::new(
                (0..threads)
                    .map(|_| Vec::with_capacity(THREAD_RECORDS))
                    .collect(),
            ),
            spill: Mutex::new(()),
        }
    }
}

/// Consecutive runs of `records` with the same key.
pub(super) fn runs<T: Copy>(
    records: &[T],
    key: impl Fn(T) -> usize,
) -> impl Iterator<Item = (usize, &[T])> {
    let mut rest = records;
    std::iter::from_fn(move || {
        let &first = rest.first()?;
        let k = key(first);
        let end = rest.iter().position(|&d| key(d) != k).unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((k, run))
    })
}
