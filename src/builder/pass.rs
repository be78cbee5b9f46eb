//! The pass framework: every propagation step of every algorithm is a pass that scans the
//! frontier of one side, routes the updates each frontier entry sends to entries of the other
//! side, and applies them. One loop serves both modes; only the sink differs.
//!
//! The frontier is scanned in rounds. Workers gather their updates in buffers of their own and
//! hand them to a shared staging buffer of fixed size; at the end of a round the staged updates
//! are partitioned by destination bucket (a counting sort) and then
//!
//! - resident: applied bucket by bucket in parallel, each bucket's entries a few hundred KiB, so
//!   the updates hit the cache instead of random RAM (the atomics on random entries were the
//!   hottest instructions of the first engine);
//! - streaming: appended to the destination chunks' update logs; after the last round each chunk
//!   with a log is read once, updated and written back, a chunk per worker.
//!
//! A round takes as many frontier windows as its staging buffer should hold, judged by the
//! updates per frontier entry of the previous rounds; a worker that finds the buffer full applies
//! (resident) or logs (streaming) its own updates at once, so no estimate can overflow memory.
//! Every update first checks the unresolved filter (most updates of a win pass reach entries
//! already resolved), and an entry a pass resolves joins the next frontier. Updates commute, so
//! the result does not depend on the order, the rounds or the thread count.

use super::buffers::runs;
use super::plan::THREAD_RECORDS;
use super::work::{Entries, Work, WINDOW};
use super::BuildError;
use crate::piece::Color;
use crate::retro::graph::Node;
use crate::retro::Bitmap;
use crate::retro::Progress;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Resident buckets hold `2^16` entries (256 KiB of working entries).
const PAGE_SHIFT: u32 = 16;
/// Frontier entries a scanning task takes at least (see [`tasks`]).
const TASK_ENTRIES: u64 = 256;

/// One kind of pass: what a frontier entry sends, and what an update does.
pub trait Pass: Sync {
    /// A worker's state, kept across the entries of one window or bucket (e.g. a decoder that
    /// remembers the last defenders' board).
    type Scratch<'p>
    where
        Self: 'p;

    /// A fresh worker state, made each time a worker takes on a frontier window or a batch of
    /// updates.
    fn scratch(&self) -> Self::Scratch<'_>;

    /// Calls `emit` with the index (on the other side) of every update `node` sends.
    fn updates(
        &self,
        node: Node,
        scratch: &mut Self::Scratch<'_>,
        emit: &mut impl FnMut(u64),
    ) -> Result<(), BuildError>;

    /// The entry every update to an unresolved entry makes it, for a pass of that kind (a win
    /// ply): streaming with the unresolved filter, such a pass is decided from the filter
    /// alone, and its chunks' files take the resolutions later ([`Work::defer_resolved`]).
    fn resolves_to(&self) -> Option<u32> {
        None
    }

    /// Applies one update to entry `e` (index `index`); true if that resolved it. With
    /// `exclusive`, no other thread updates `e` meanwhile (a resident commit applies each
    /// bucket on one thread): no atomic read-modify-write is needed.
    fn apply(
        &self,
        e: &AtomicU32,
        index: u64,
        exclusive: bool,
        scratch: &mut Self::Scratch<'_>,
    ) -> bool;
}

/// Where applied updates leave their marks: the unresolved filter, and the next frontier's
/// bitmap if it is one (frontier lists are written by the callers).
struct UpdateMarks<'a> {
    unresolved: Option<&'a Bitmap>,
    next: Option<&'a Bitmap>,
}

impl<'a> UpdateMarks<'a> {
    /// The marks of updates to `dst`.
    fn of(work: &'a Work, dst: Color) -> UpdateMarks<'a> {
        UpdateMarks {
            unresolved: work.unresolved[dst].as_ref(),
            next: work.frontiers.next_bits(dst),
        }
    }
}

impl UpdateMarks<'_> {
    /// Could an update to `index` change anything?
    #[inline]
    fn open(&self, index: u64) -> bool {
        self.unresolved.is_none_or(|u| u.get(index))
    }

    /// Applies one update; 1 if it resolved the entry. `exclusive` as for [`Pass::apply`].
    #[inline]
    fn apply<P: Pass>(
        &self,
        pass: &P,
        e: &AtomicU32,
        index: u64,
        exclusive: bool,
        scratch: &mut P::Scratch<'_>,
    ) -> u64 {
        if !pass.apply(e, index, exclusive, scratch) {
            return 0;
        }
        if let Some(u) = self.unresolved {
            u.clear(index);
        }
        if let Some(next) = self.next {
            next.set(index);
        }
        1
    }
}

/// Runs `pass` from the frontier of `src` into `!src`; returns how many entries it resolved.
pub fn run(
    work: &mut Work,
    src: Color,
    pass: &impl Pass,
    progress: &dyn Progress,
) -> Result<u64, BuildError> {
    let dst = !src;
    work.use_filter(dst)?;
    let windows = units(work, src);
    if let (false, Some(to)) = (work.resident(), pass.resolves_to()) {
        if work.unresolved[dst].is_some() {
            return defer(work, src, &windows, pass, to, progress);
        }
    }
    let capacity = work.buffers.sorted.len() as f64;
    let mut fanout = 16.0;
    let mut resolved = 0;
    let mut next = 0;
    while next < windows.len() {
        let start = next;
        let mut estimate = 0.0;
        while next < windows.len()
            && (next == start || estimate + windows[next].1 as f64 * fanout <= 0.8 * capacity)
        {
            estimate += windows[next].1 as f64 * fanout;
            next += 1;
        }
        let round = &windows[start..next];
        let (emitted, direct) = scan(work, src, round, pass)?;
        let entries: u64 = round.iter().map(|w| w.1).sum();
        fanout = fanout.max(emitted as f64 / entries as f64);
        resolved += direct + commit(work, dst, pass)?;
        progress.advance(entries);
    }
    if !work.resident() {
        resolved += apply_logs(work, dst, pass)?;
    }
    Ok(resolved)
}

/// Scans the frontier windows of one round; returns the updates emitted and the entries
/// resolved by updates applied at once (when the staging buffer was full).
fn scan(
    work: &Work,
    src: Color,
    windows: &[(usize, u64)],
    pass: &impl Pass,
) -> Result<(u64, u64), BuildError> {
    let dst = !src;
    let marks = UpdateMarks::of(work, dst);
    let b = &work.buffers;
    let emitted = AtomicU64::new(0);
    let direct = AtomicU64::new(0);
    // Hands a worker's updates to the staging buffer, or applies or logs them itself.
    let hand_over = |local: &mut Vec<u64>| -> Result<(), BuildError> {
        emitted.fetch_add(local.len() as u64, Relaxed);
        {
            let mut staging = b.staging.lock().unwrap();
            if staging.len() + local.len() <= staging.capacity() {
                staging.extend_from_slice(local);
                local.clear();
                return Ok(());
            }
        }
        match &work.entries {
            Entries::Resident(res) => {
                let mut scratch = pass.scratch();
                let n: u64 = local
                    .iter()
                    .map(|&d| {
                        let e = &res[dst][work.layout().chunk(d)].entries[work.layout().local(d)];
                        marks.apply(pass, e, d, false, &mut scratch)
                    })
                    .sum();
                direct.fetch_add(n, Relaxed);
            }
            Entries::Streaming => {
                let _one_writer = b.spill.lock().unwrap();
                local.sort_unstable();
                for (c, run) in runs(local, |d| work.layout().chunk(d)) {
                    let locals: Vec<u32> =
                        run.iter().map(|&d| work.layout().local(d) as u32).collect();
                    work.store.append_log(dst, c, &locals)?;
                }
            }
        }
        local.clear();
        Ok(())
    };
    let keep = |local: &mut Vec<u64>, d: u64| {
        if marks.open(d) {
            local.push(d);
        }
    };
    each_update(work, src, windows, pass, keep, hand_over)?;
    Ok((emitted.into_inner(), direct.into_inner()))
}

/// The units a pass from `src` scans, with their frontier entries (empty ones left out):
/// windows of [`WINDOW`] entries of the frontier bitmap, or the chunks of the frontier lists.
fn units(work: &Work, src: Color) -> Vec<(usize, u64)> {
    let layout = work.layout();
    if let Some(lists) = work.frontiers.lists() {
        return (0..layout.chunks())
            .map(|c| (c, lists.now_in(src, c)))
            .filter(|&(_, n)| n > 0)
            .collect();
    }
    let frontier = work.frontiers.now_bits(src);
    (0..layout.entries().div_ceil(WINDOW as u64) as usize)
        .into_par_iter()
        .filter_map(|w| {
            let start = (w * WINDOW) as u64;
            let len = (layout.entries() - start).min(WINDOW as u64) as usize;
            let n = frontier.count(start, len);
            (n > 0).then_some((w, n))
        })
        .collect()
}

/// Calls `pass.updates` for every frontier entry of `src` in `units` ([`units`]), spread over
/// the workers a task at a time ([`tasks`]): `keep(local, d)` takes update `d` into the
/// worker's buffer or drops it, and `hand_over(local)` empties the buffer, when it is full and
/// at the task's end.
fn each_update<P: Pass>(
    work: &Work,
    src: Color,
    units: &[(usize, u64)],
    pass: &P,
    keep: impl Fn(&mut Vec<u64>, u64) + Sync,
    hand_over: impl Fn(&mut Vec<u64>) -> Result<(), BuildError> + Sync,
) -> Result<(), BuildError> {
    let b = &work.buffers;
    // One task: the updates of the frontier entries `indices`.
    let visit = |indices: &mut dyn Iterator<Item = u64>| -> Result<(), BuildError> {
        let mut local = b.pool.lock().unwrap().pop().unwrap_or_default();
        let mut scratch = pass.scratch();
        let mut failed = None;
        for index in indices {
            pass.updates(Node { side: src, index }, &mut scratch, &mut |d| {
                keep(&mut local, d);
                if local.len() >= THREAD_RECORDS && failed.is_none() {
                    failed = hand_over(&mut local).err();
                }
            })?;
        }
        if let Some(e) = failed {
            return Err(e);
        }
        hand_over(&mut local)?;
        b.pool.lock().unwrap().push(local);
        Ok(())
    };
    if let Some(lists) = work.frontiers.lists() {
        return each_listed(work, src, lists, units, visit);
    }
    let frontier = work.frontiers.now_bits(src);
    let words = work.layout().entries().div_ceil(64) as usize;
    // Bitmap words per window.
    let per_window = WINDOW / 64;
    let words_of = |&(w, _): &(usize, u64)| w * per_window..((w + 1) * per_window).min(words);
    tasks(units).par_iter().try_for_each(|task| {
        visit(&mut task.iter().flat_map(words_of).flat_map(|i| {
            let mut bits = frontier.word(i);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let index = i as u64 * 64 + bits.trailing_zeros() as u64;
                    bits &= bits - 1;
                    index
                })
            })
        }))
    })
}

/// [`each_update`] over frontier lists: the chunks' lists are read in order into a buffer of
/// at most a chunk's length (sorted, for the decoders), which the workers split.
fn each_listed(
    work: &Work,
    src: Color,
    lists: &super::frontier::Lists,
    chunks: &[(usize, u64)],
    visit: impl Fn(&mut dyn Iterator<Item = u64>) -> Result<(), BuildError> + Sync,
) -> Result<(), BuildError> {
    let cap = work.layout().chunk_len();
    let mut indices: Vec<u64> = Vec::with_capacity(cap);
    let mut words = vec![0u32; super::frontier::LIST_BATCH];
    let flush = |indices: &mut Vec<u64>| -> Result<(), BuildError> {
        let piece = (indices.len() / (4 * rayon::current_num_threads())).max(TASK_ENTRIES as usize);
        indices
            .par_chunks(piece)
            .try_for_each(|part| visit(&mut part.iter().copied()))?;
        indices.clear();
        Ok(())
    };
    for &(c, n) in chunks {
        if indices.len() + n as usize > cap {
            flush(&mut indices)?;
        }
        let at = (&work.store, work.layout());
        lists.read_now(at, src, c, &mut words, &mut indices)?;
    }
    flush(&mut indices)
}

/// [`run`] for a pass that resolves every unresolved entry it updates to `to`, streaming with
/// the unresolved filter: an update resolves its entry if it takes the entry's filter bit, and
/// the entries resolved go to their chunks' resolution logs, not to update logs applied now
/// ([`Work::defer_resolved`]). Returns how many it resolved.
fn defer(
    work: &Work,
    src: Color,
    windows: &[(usize, u64)],
    pass: &impl Pass,
    to: u32,
    progress: &dyn Progress,
) -> Result<u64, BuildError> {
    let dst = !src;
    let open = work.unresolved[dst]
        .as_ref()
        .expect("deferred with the filter");
    let b = &work.buffers;
    let resolved = AtomicU64::new(0);
    let note = |local: &mut Vec<u64>| -> Result<(), BuildError> {
        resolved.fetch_add(local.len() as u64, Relaxed);
        let _one_writer = b.spill.lock().unwrap();
        // Sorts them, as the next frontier takes them.
        work.defer_resolved(dst, local, to)?;
        work.note_next(dst, local)?;
        local.clear();
        Ok(())
    };
    let keep = |local: &mut Vec<u64>, d: u64| {
        if open.take(d) {
            local.push(d);
        }
    };
    each_update(work, src, windows, pass, keep, note)?;
    progress.advance(windows.iter().map(|w| w.1).sum());
    Ok(resolved.into_inner())
}

/// The frontier windows of a round cut into tasks of at least [`TASK_ENTRIES`] frontier entries
/// (or one window): a sparse frontier (the later orders' plies) spreads a few entries over
/// thousands of windows, and a task per window cost more in locks and scheduling than its work.
fn tasks(windows: &[(usize, u64)]) -> Vec<&[(usize, u64)]> {
    let mut out = Vec::new();
    let (mut start, mut entries) = (0, 0);
    for (k, &(_, n)) in windows.iter().enumerate() {
        entries += n;
        if entries >= TASK_ENTRIES || k + 1 == windows.len() {
            out.push(&windows[start..=k]);
            (start, entries) = (k + 1, 0);
        }
    }
    out
}

/// Partitions the staged updates by bucket (`2^shift` entries) into `sorted`, as indices within
/// their bucket; returns where each bucket's updates start (one more than the buckets).
fn partition<T: Copy + Into<u64> + Sync>(
    staged: &[T],
    sorted: &mut [u32],
    shift: u32,
    buckets: usize,
) -> Vec<usize> {
    let slices = (rayon::current_num_threads() * 4).max(1);
    let part = staged.len().div_ceil(slices).max(1);
    // Per slice and bucket: how many, then where they go.
    let mut counts: Vec<Vec<usize>> = staged
        .par_chunks(part)
        .map(|s| {
            let mut c = vec![0usize; buckets];
            for &d in s {
                c[(d.into() >> shift) as usize] += 1;
            }
            c
        })
        .collect();
    let mut starts = vec![0usize; buckets + 1];
    let mut at = 0;
    for bucket in 0..buckets {
        starts[bucket] = at;
        for c in counts.iter_mut() {
            let n = c[bucket];
            c[bucket] = at;
            at += n;
        }
    }
    starts[buckets] = at;
    let mask = (1u64 << shift) - 1;
    let out = SharedSlice(sorted.as_mut_ptr());
    staged
        .par_chunks(part)
        .zip(counts.par_iter_mut())
        .for_each(|(s, offsets)| {
            for &d in s {
                let d: u64 = d.into();
                let slot = &mut offsets[(d >> shift) as usize];
                // Safety: the offsets of different slices and buckets are disjoint ranges of
                // `sorted` (prefix sums of the counts above), each slot written once.
                unsafe { out.write(*slot, (d & mask) as u32) };
                *slot += 1;
            }
        });
    starts
}

/// A slice written by several threads at disjoint positions.
struct SharedSlice(*mut u32);
// Safety: only used by `partition`, whose writers touch disjoint positions.
unsafe impl Sync for SharedSlice {}
impl SharedSlice {
    /// # Safety
    /// `at` is in bounds and no other thread reads or writes it.
    unsafe fn write(&self, at: usize, v: u32) {
        unsafe { *self.0.add(at) = v };
    }
}

/// Ends a round: applies (resident) or logs (streaming) the staged updates, partitioned by
/// destination bucket. Returns the entries resolved.
fn commit(work: &mut Work, dst: Color, pass: &impl Pass) -> Result<u64, BuildError> {
    let layout = work.layout();
    let resident = work.resident();
    let shift = if resident {
        PAGE_SHIFT.min(layout.shift())
    } else {
        layout.shift()
    };
    let buckets = layout.entries().div_ceil(1 << shift) as usize;
    let b = &mut work.buffers;
    let mut staging = std::mem::take(&mut *b.staging.lock().unwrap());
    let starts = partition(&staging, &mut b.sorted, shift, buckets);
    let total = staging.len();
    staging.clear();
    *b.staging.lock().unwrap() = staging;
    let sorted = &work.buffers.sorted[..total];
    match &work.entries {
        Entries::Resident(res) => {
            let marks = UpdateMarks::of(work, dst);
            Ok(apply_buckets(pass, &marks, sorted, &starts, |k, l| {
                let index = ((k as u64) << shift) + l as u64;
                (
                    &res[dst][layout.chunk(index)].entries[layout.local(index)],
                    index,
                )
            }))
        }
        Entries::Streaming => {
            let _one_writer = work.buffers.spill.lock().unwrap();
            for c in 0..buckets {
                let run = &sorted[starts[c]..starts[c + 1]];
                if !run.is_empty() {
                    work.store.append_log(dst, c, run)?;
                }
            }
            Ok(0)
        }
    }
}

/// Applies updates partitioned by bucket ([`partition`]'s `sorted` and `starts`), a task per
/// bucket with updates: each entry is updated by one thread only, so without atomic
/// read-modify-writes ([`Pass::apply`]). `at(k, l)` is bucket `k`'s entry `l` and its index.
/// Returns the entries resolved.
fn apply_buckets<'e, P: Pass>(
    pass: &P,
    marks: &UpdateMarks,
    sorted: &[u32],
    starts: &[usize],
    at: impl Fn(usize, u32) -> (&'e AtomicU32, u64) + Sync,
) -> u64 {
    let used: Vec<usize> = (0..starts.len() - 1)
        .filter(|&k| starts[k] < starts[k + 1])
        .collect();
    used.into_par_iter()
        .map(|k| {
            let mut scratch = pass.scratch();
            sorted[starts[k]..starts[k + 1]]
                .iter()
                .map(|&l| {
                    let (e, index) = at(k, l);
                    marks.apply(pass, e, index, true, &mut scratch)
                })
                .sum::<u64>()
        })
        .sum()
}

/// Streaming, after the last round: reads each chunk with an update log once, applies the log,
/// and writes the chunk back ([`super::work::Work::replace`]). The workers take the chunks one
/// at a time, each applying its own chunk's log alone (no atomic read-modify-write, no
/// partitioning), so one worker's file reads and writes overlap the others' updates. Each reads
/// its log in batches through its share of the staging buffer's sorted half, idle after the last
/// round. Returns the entries resolved.
fn apply_logs(work: &mut Work, dst: Color, pass: &impl Pass) -> Result<u64, BuildError> {
    let mut logged = Vec::new();
    for c in 0..work.layout().chunks() {
        if work.store.has_log(dst, c)? {
            logged.push(c);
        }
    }
    let mut sorted = std::mem::take(&mut work.buffers.sorted);
    assert!(!sorted.is_empty(), "a streaming pass has an update buffer");
    let part = sorted.len().div_ceil(work.chunk_workers(logged.len()));
    // Each worker's share of the buffer, its count of entries resolved, and (frontier lists)
    // the entries it resolved, noted in batches.
    let states: Vec<(&mut [u32], u64, Vec<u64>)> = sorted
        .chunks_mut(part)
        .map(|recs| (recs, 0, Vec::new()))
        .collect();
    let marks = UpdateMarks::of(work, dst);
    let work_ref = &*work;
    let done = work.rewrite_chunks(
        dst,
        &logged,
        states,
        |(recs, resolved, listed), c, chunk| {
            *resolved += apply_log(work_ref, (dst, c, chunk), pass, &marks, recs, listed)?;
            Ok(true)
        },
    );
    let done = done.map(|(states, written)| (states.iter().map(|s| s.1).sum::<u64>(), written));
    work.buffers.sorted = sorted;
    let (resolved, written) = done?;
    work.record(dst, written);
    Ok(resolved)
}

/// Applies chunk `c` of `dst`'s update log to `chunk`, reading it through `recs`; returns the
/// entries resolved. With frontier lists, they are noted in the next frontier through
/// `listed`, in batches of [`super::frontier::LIST_BATCH`] (what the plan counts a worker).
fn apply_log(
    work: &Work,
    (dst, c, chunk): (Color, usize, &super::store::Chunk),
    pass: &impl Pass,
    marks: &UpdateMarks,
    recs: &mut [u32],
    listed: &mut Vec<u64>,
) -> Result<u64, BuildError> {
    let lists = marks.next.is_none();
    let mut scratch = pass.scratch();
    let base = work.layout().base(c);
    let (mut resolved, mut failed) = (0, None);
    work.store.drain_log(dst, c, recs, |locals| {
        for &l in locals {
            let index = base + l as u64;
            if marks.apply(pass, &chunk.entries[l as usize], index, true, &mut scratch) == 0 {
                continue;
            }
            resolved += 1;
            if lists {
                listed.push(index);
                if listed.len() == super::frontier::LIST_BATCH {
                    if failed.is_none() {
                        failed = work.note_next(dst, listed).err();
                    }
                    listed.clear();
                }
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    work.note_next(dst, listed)?;
    listed.clear();
    Ok(resolved)
}
