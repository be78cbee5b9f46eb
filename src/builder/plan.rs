//! The memory plan of one table's build: a pure function of the budget, the table's size, its
//! supporting tables and the thread count, so it can be tested without building anything.
//!
//! Resident: every chunk in RAM (4 bytes per entry and side) with three bitmaps per side (the
//! unresolved filter and two frontiers), updates applied in place. Streaming (Wu and Beal's
//! point: a few bits per position in RAM, the rest on disk): the frontier bitmaps (and the
//! unresolved filter where it fits) in RAM, chunks on disk, updates gathered in a fixed buffer
//! that spills to per-chunk logs; a chunk per worker in RAM while updates are applied (as far as
//! the budget allows, at least two).

use super::chunkfile;
use crate::retro::orders::{candidate_floor, RuleBitmaps};
use crate::retro::Bitmap;

/// Bytes kept back from the budget for what is not planned below (I/O buffers, the block
/// caches' bookkeeping, stacks).
pub const RESERVE: u64 = 8 << 20;
/// Update records (8 bytes each) a worker gathers before handing them on.
pub const THREAD_RECORDS: usize = 1 << 15;
/// The smallest shared update buffer.
pub const MIN_UPDATE_BUFFER: u64 = 4 << 20;
/// The largest staging buffer of a resident build: more saves few rounds.
pub const MAX_RESIDENT_BUFFER: u64 = 64 << 20;
/// Block cache of a supporting table read from its file.
pub const SUB_CACHE: u64 = 2 << 20;

/// What the plan decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Whether every chunk stays in RAM (false: the build streams through chunk files).
    pub resident: bool,
    /// Whether streaming keeps the unresolved bitmaps (always true when resident).
    pub unresolved_filter: bool,
    /// Whether streaming keeps the frontiers as per-chunk lists in the store instead of
    /// bitmaps in RAM (`frontier.rs`).
    pub frontier_lists: bool,
    /// Whether the unresolved filter is in RAM for one side at a time, the other parked in the
    /// store (`parked.rs`; only with frontier lists).
    pub filter_parked: bool,
    /// Bytes for supporting tables held packed (2 bits per entry), smallest first.
    pub pack_budget: u64,
    /// Shared update buffer, bytes (streaming).
    pub update_buffer: u64,
    /// Chunks in RAM at once (streaming): one per worker if the budget allows, at least two.
    pub chunk_buffers: usize,
    /// Streaming with a rule stage whose pattern bitmaps do not fit: the patterns over the
    /// whole graph are computed in slices ([`crate::retro::slice`]) within this many bytes,
    /// what the propagation lends the pattern phase.
    pub pattern_slices: Option<u64>,
    /// Bytes for a rule stage's loss candidates ([`crate::retro::candidates`]): at least
    /// [`candidate_floor`], and a quarter of what the plan has left (0 without a rule stage).
    pub candidates: u64,
    /// Bytes the rule phases may take while they run: what the propagation lends them
    /// (`Work::lend_pass_memory`: its frontier bitmaps, update buffers and chunk buffers), and
    /// what the supporting tables took, dropped after initialisation (the pack budget and the
    /// caches).
    pub lent: u64,
    /// The planned total.
    pub total: u64,
}

/// What of a rule stage can need more memory than a plan gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleNeed {
    /// The loss candidates, kept between refreshes ([`Plan::candidates`]).
    Candidates,
    /// The loss candidates while a refresh builds the next beside them
    /// ([`Plan::candidates`] and [`Plan::lent`]).
    RefreshedCandidates,
    /// A pattern computed in its slice ([`Plan::pattern_slices`]).
    Slice,
}

impl RuleNeed {
    /// For people.
    pub fn name(self) -> &'static str {
        match self {
            RuleNeed::Candidates => "its loss candidates",
            RuleNeed::RefreshedCandidates => "its loss candidates' refresh",
            RuleNeed::Slice => "a pattern's slice",
        }
    }

    /// The bytes `plan` gives it.
    pub fn given(self, plan: &Plan) -> u64 {
        match self {
            RuleNeed::Candidates => plan.candidates,
            RuleNeed::RefreshedCandidates => plan.candidates + plan.lent,
            // With pattern bitmaps, no slice.
            RuleNeed::Slice => plan.pattern_slices.unwrap_or(u64::MAX),
        }
    }
}

/// What a plan must do rather than what fits best (for tests and measurements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Force {
    /// Whatever fits best.
    Nothing,
    /// Stream, even if the chunks fit.
    Streaming,
    /// Stream with frontier lists.
    FrontierLists,
    /// As `FrontierLists`, with the unresolved filter parked one side at a time.
    ParkedFilter,
    /// Stream, and compute a rule stage's patterns in slices even where their bitmaps fit.
    PatternSlices,
}

/// Why no plan fits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooSmall {
    /// The smallest budget, in bytes, a streaming build of the table would fit.
    pub needed: u64,
}

/// Bytes of one side's working chunks.
pub fn chunk_bytes(entries: u64) -> u64 {
    4 * entries
}

/// Bytes the frontier lists take in RAM with chunks of `chunk_len` entries and `threads`
/// workers: a pass reads a chunk's list into a buffer of global indices, and each worker
/// gathers the entries it resolves in batches (`frontier::LIST_BATCH`) of indices and of the
/// local indices appended.
pub fn list_bytes(chunk_len: u64, threads: usize) -> u64 {
    8 * chunk_len + threads as u64 * 12 * super::frontier::LIST_BATCH as u64
}

/// Bytes a parked filter's reads and writes take beside the filter in RAM: a file buffer, and a
/// chunk's words and their compressed block (`parked.rs`).
pub fn park_bytes(chunk_len: u64) -> u64 {
    (2 << 20) + chunk_len / 4 + 64
}

/// A way to stream: frontier lists or bitmaps, the unresolved filter (if any: parked or not),
/// and the bytes they take.
#[derive(Clone, Copy)]
struct Streamed {
    lists: bool,
    filter: Option<bool>,
    bytes: u64,
}

impl Streamed {
    const fn new(lists: bool, filter: Option<bool>, bytes: u64) -> Streamed {
        Streamed {
            lists,
            filter,
            bytes,
        }
    }
}

/// Plans a build of `entries` entries per side with chunks of `chunk_len` entries, supporting
/// tables of `sub_entries` entries per side, and `threads` workers, within `budget` bytes.
///
/// Streaming, the frontiers and the unresolved filter compete for what is left. The filter
/// keeps most updates of a win pass out of the logs; frontier bitmaps cost no disk traffic and
/// allow pulled win plies. So the plan takes, in this order of preference, bitmaps and the
/// filter, lists and the filter, lists and the filter one side at a time (the other parked in
/// the store), bitmaps alone, lists alone. A build with a rule stage needs the filter of both
/// sides, and takes its patterns' bitmaps where they fit, else slices; with either, frontier
/// bitmaps where they fit, else lists.
pub fn plan(
    budget: u64,
    entries: u64,
    chunk_len: u64,
    sub_entries: &[u64],
    threads: usize,
    force: Force,
    rule: RuleBitmaps,
) -> Result<Plan, TooSmall> {
    let bitmap = Bitmap::bytes(entries);
    let subs_min = sub_entries.len() as u64 * SUB_CACHE;
    // Each worker's gathering buffer, and its scratch for chunk files (a worker writes and
    // reads them at a checkpoint even in a resident build).
    let workers = threads as u64 * (THREAD_RECORDS as u64 * 8 + chunkfile::thread_bytes());
    // The bitmaps the rule phases keep, and the unresolved filter they read, in every mode;
    // and what a pattern phase takes beyond what the propagation lends it (both frontiers,
    // the update buffers and the chunk buffers: `Work::lend_pass_memory`), `lent` at least.
    // In slices, the patterns take only what is lent (`Plan::pattern_slices`).
    let rule_bytes = |lent: u64, slices: bool| {
        let warm = match slices {
            true => 0,
            false => rule.warm * bitmap + (rule.patterns * bitmap).saturating_sub(lent),
        };
        rule.kept * bitmap + warm
    };
    let lent = 4 * bitmap + workers + MIN_UPDATE_BUFFER;
    let with_rules = rule.kept > 0;
    // The candidates' least, and their share of what is left: a quarter.
    let least_candidates = if with_rules {
        candidate_floor(entries, rule.entries_per_candidate_byte)
    } else {
        0
    };
    let more_candidates = |free: u64| if with_rules { free / 4 } else { 0 };
    let resident = 2 * chunk_bytes(entries)
        + 6 * bitmap
        + RESERVE
        + workers
        + rule_bytes(lent, false)
        + least_candidates;
    if force == Force::Nothing && resident + subs_min + MIN_UPDATE_BUFFER <= budget {
        // A quarter of what is left stages updates (up to `MAX_RESIDENT_BUFFER`); supporting
        // tables may take the rest.
        let mut free = budget - resident - subs_min;
        let candidates = least_candidates + more_candidates(free - MIN_UPDATE_BUFFER);
        free -= candidates - least_candidates;
        let update_buffer = (free / 4).clamp(MIN_UPDATE_BUFFER, MAX_RESIDENT_BUFFER);
        let pack_budget = free - update_buffer + subs_min;
        return Ok(Plan {
            resident: true,
            unresolved_filter: true,
            frontier_lists: false,
            filter_parked: false,
            pack_budget,
            update_buffer,
            chunk_buffers: 0,
            pattern_slices: None,
            candidates,
            lent: lent - MIN_UPDATE_BUFFER + update_buffer + pack_budget,
            total: budget,
        });
    }
    // Two chunks: initialisation fills both sides' chunks of a range at once (one decode
    // serves both); later passes hold one per worker while updates are applied (read from and
    // written to its file in place, no file image beside it), more below if there is room. The
    // workers' gathering buffers and the staging buffer while a frontier is scanned.
    let chunk = 2 * chunk_bytes(chunk_len);
    // What the propagation lends the pattern phase when streaming: its chunk buffers, and
    // its frontier bitmaps if it keeps bitmaps, not lists.
    let lent_streaming = |c: &Streamed| lent + chunk - if c.lists { 4 * bitmap } else { 0 };
    let base = |slices, c: &Streamed| {
        let rules = rule_bytes(lent_streaming(c), slices);
        chunk + workers + RESERVE + subs_min + rules + MIN_UPDATE_BUFFER + least_candidates
    };
    let (bits, lists) = (4 * bitmap, list_bytes(chunk_len, threads));
    let parked = bitmap + park_bytes(chunk_len);
    // Most preferred first.
    let choices = [
        Streamed::new(false, Some(false), bits + 2 * bitmap),
        Streamed::new(true, Some(false), lists + 2 * bitmap),
        Streamed::new(true, Some(true), lists + parked),
        Streamed::new(false, None, bits),
        Streamed::new(true, None, lists),
    ];
    // A rule stage reads both filters (its refresh and slices read the attacker's at random).
    let allowed = |c: &&Streamed| match with_rules {
        true => c.filter == Some(false) && (c.lists || force != Force::FrontierLists),
        false => match force {
            Force::Nothing | Force::Streaming | Force::PatternSlices => true,
            Force::FrontierLists => c.lists,
            Force::ParkedFilter => c.filter == Some(true),
        },
    };
    let fits = |slices| {
        choices
            .iter()
            .filter(allowed)
            .find(|c| base(slices, c) + c.bytes <= budget)
            .map(|c| (*c, slices))
    };
    // Pattern bitmaps where they fit (their patterns start warm from the previous order's),
    // else slices where they take less.
    let may_slice = with_rules && (rule.slices_pay || force == Force::PatternSlices);
    let found = match (with_rules, force) {
        (false, _) => fits(false),
        (true, Force::PatternSlices) => fits(true),
        (true, _) => fits(false).or_else(|| may_slice.then(|| fits(true)).flatten()),
    };
    let Some((choice, slices)) = found else {
        let least = choices
            .iter()
            .filter(allowed)
            .map(|c| base(may_slice, c) + c.bytes);
        return Err(TooSmall {
            needed: least.min().expect("some choice is allowed"),
        });
    };
    let Streamed {
        lists: frontier_lists,
        filter,
        bytes: kept,
    } = choice;
    let base = base(slices, &choice);
    let mut free = budget - base - kept;
    let candidates = least_candidates + more_candidates(free);
    free -= candidates - least_candidates;
    // Then a chunk for each worker beyond two: the workers apply the logs of different chunks
    // at once (`pass::apply_logs`), one's file reads and writes overlapping another's updates.
    // At most half of what is left: every byte of these is touched, and a plan spent to the
    // last byte leaves the reserve alone to absorb what is not planned (KRNKAB, 8 threads,
    // `--memory 64M`: with all of it, 65.3 MiB peak (66,860 KB), 5.7 MiB of it the program's
    // file pages).
    let extra = (threads.saturating_sub(2) as u64).min(free / 2 / chunk_bytes(chunk_len).max(1));
    free -= extra * chunk_bytes(chunk_len);
    let pack_budget = free / 2;
    // More than two records per entry of a side is more than a pass sends in practice.
    let update_buffer = (MIN_UPDATE_BUFFER + (free - pack_budget)).min(16 * entries.max(1 << 18));
    // All of what the propagation lends (`Work::lend_pass_memory`): beyond the least it
    // plans for, the larger update buffer and the extra chunk buffers; and what the supporting
    // tables took.
    let lent = lent_streaming(&choice)
        + (update_buffer - MIN_UPDATE_BUFFER)
        + extra * chunk_bytes(chunk_len)
        + pack_budget
        + subs_min;
    Ok(Plan {
        resident: false,
        unresolved_filter: filter.is_some(),
        frontier_lists,
        filter_parked: filter == Some(true),
        pack_budget,
        update_buffer,
        chunk_buffers: 2 + extra as usize,
        pattern_slices: slices.then_some(lent),
        candidates,
        lent,
        total: budget,
    })
}

/// The shortest chunks [`plan_chunks`] turns to: below this, per-chunk costs (files, their
/// checksums, log routing) grow and the budgets where it would help are tiny.
pub const MIN_STREAM_CHUNK: u64 = 1 << 16;

/// Plans with chunks of at most `chunks.0` entries (a power of two): that length, or, when
/// streaming with it leaves no room for frontier bitmaps and the unresolved filter, the longest
/// shorter power of two (down to `chunks.1`, e.g. [`MIN_STREAM_CHUNK`]; a resumed build passes
/// its own length) whose smaller chunk buffers make room for the most preferred plan
/// ([`plan`]: bitmaps and the filter, lists and the filter, ...). The filter
/// keeps most of a pass's updates out of the logs: KRNKAABB at `--memory 64M` took 39.9 s with
/// chunks of 2^20 and no filter, 31.7 s with chunks of 2^19 and the filter. Returns the chunk
/// length and its plan.
pub fn plan_chunks(
    budget: u64,
    entries: u64,
    chunks: (u64, u64),
    sub_entries: &[u64],
    threads: usize,
    force: Force,
    rule: RuleBitmaps,
) -> Result<(u64, Plan), TooSmall> {
    let with = |len: u64| plan(budget, entries, len, sub_entries, threads, force, rule);
    let (chunk_len, shortest) = chunks;
    let mut best = (chunk_len, with(chunk_len)?);
    if matches!(force, Force::FrontierLists | Force::ParkedFilter) {
        return Ok(best);
    }
    let mut len = chunk_len;
    while rank(&best.1) > 0 && len / 2 >= shortest {
        len /= 2;
        if let Ok(p) = with(len) {
            if rank(&p) < rank(&best.1) {
                best = (len, p);
            }
        }
    }
    Ok(best)
}

/// A plan's place in [`plan`]'s order of preference (0: resident, or bitmaps and the filter).
fn rank(p: &Plan) -> u8 {
    match (p.resident, p.unresolved_filter, p.frontier_lists) {
        (true, _, _) | (false, true, false) => 0,
        (false, true, true) => 1 + p.filter_parked as u8,
        (false, false, false) => 3,
        (false, false, true) => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;
    const NONE: RuleBitmaps = RuleBitmaps {
        kept: 0,
        warm: 0,
        patterns: 0,
        entries_per_candidate_byte: 0,
        slices_pay: false,
    };

    #[test]
    fn small_tables_are_resident() {
        let p = plan(
            64 * M,
            573_480,
            1 << 20,
            &[4050, 16_470],
            2,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert!(p.resident && p.unresolved_filter);
        // 2 sides × 4 bytes + 6 bitmaps (6/8 byte) per entry, the reserve, the workers'
        // buffers, the staging buffer, and the rest for supporting tables.
        let used = 8 * 573_480
            + 6 * Bitmap::bytes(573_480)
            + RESERVE
            + 2 * (8 * THREAD_RECORDS as u64 + chunkfile::thread_bytes());
        assert_eq!(p.pack_budget + p.update_buffer, 64 * M - used);
        assert!(p.update_buffer >= MIN_UPDATE_BUFFER);
    }

    #[test]
    fn large_tables_stream_within_the_budget() {
        // KRNKAABB: 51,613,200 entries per side, 413 MB of chunks.
        let n = 51_613_200;
        let p = plan(
            64 * M,
            n,
            1 << 20,
            &[573_480, 25_000_000],
            8,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert!(!p.resident);
        let frontiers = match p.frontier_lists {
            true => list_bytes(1 << 20, 8),
            false => 4 * Bitmap::bytes(n),
        };
        let planned = frontiers
            + if p.unresolved_filter {
                2 * Bitmap::bytes(n)
            } else {
                0
            }
            + p.chunk_buffers as u64 * 4 * (1 << 20)
            + 8 * (THREAD_RECORDS as u64 * 8 + chunkfile::thread_bytes())
            + RESERVE
            + 2 * SUB_CACHE
            + p.pack_budget
            + p.update_buffer;
        assert!(planned <= 64 * M, "{planned} > budget");
        assert!(p.update_buffer >= MIN_UPDATE_BUFFER);
    }

    #[test]
    fn more_threads_take_from_the_buffers_not_beyond_the_budget() {
        let n = 20_000_000;
        let two = plan(64 * M, n, 1 << 20, &[], 2, Force::Streaming, NONE).unwrap();
        let eight = plan(64 * M, n, 1 << 20, &[], 8, Force::Streaming, NONE).unwrap();
        assert!(eight.update_buffer + eight.pack_budget < two.update_buffer + two.pack_budget);
        // A chunk per worker where the budget allows (two at least), fewer where it does not.
        assert_eq!(two.chunk_buffers, 2);
        assert!((3..8).contains(&eight.chunk_buffers), "{eight:?}");
        let roomy = plan(1024 * M, n, 1 << 20, &[], 8, Force::Streaming, NONE).unwrap();
        assert_eq!(roomy.chunk_buffers, 8);
        let tight = plan(64 * M, n, 1 << 22, &[], 8, Force::Streaming, NONE).unwrap();
        assert!(tight.unresolved_filter);
        assert!(tight.chunk_buffers >= 2 && tight.chunk_buffers < 8);
        let planned = 6 * Bitmap::bytes(n)
            + tight.chunk_buffers as u64 * 4 * (1 << 22)
            + 8 * (THREAD_RECORDS as u64 * 8 + chunkfile::thread_bytes())
            + RESERVE
            + tight.pack_budget
            + tight.update_buffer;
        assert!(planned <= 64 * M, "{planned} > budget");
    }

    #[test]
    fn a_budget_below_the_lists_is_refused_with_the_need() {
        // 400 M entries: 50 MB a bitmap. With chunks of 2^20: two chunks (8 MiB), the
        // workers' buffers, the reserve, the smallest update buffer and the lists' buffers.
        let n = 400_000_000;
        let workers = 2 * (8 * THREAD_RECORDS as u64 + chunkfile::thread_bytes());
        let least = 8 * M + workers + RESERVE + MIN_UPDATE_BUFFER + 8 * M + 2 * 12 * (1 << 16);
        let e = plan(least - 1, n, 1 << 20, &[], 2, Force::Nothing, NONE).unwrap_err();
        assert_eq!(e.needed, least);
        let p = plan(least, n, 1 << 20, &[], 2, Force::Nothing, NONE).unwrap();
        assert!(p.frontier_lists && !p.unresolved_filter, "{p:?}");
        assert_eq!(p.update_buffer, MIN_UPDATE_BUFFER);
    }

    #[test]
    fn streaming_prefers_bitmaps_and_the_filter_then_lists_and_the_filter() {
        // 400 M entries, chunks of 2^20, by hand: `base` is what every streamed plan takes.
        let (n, b) = (400_000_000, Bitmap::bytes(400_000_000));
        let workers = 2 * (8 * THREAD_RECORDS as u64 + chunkfile::thread_bytes());
        let base = 8 * M + workers + RESERVE + MIN_UPDATE_BUFFER;
        let lists = 8 * M + 2 * 12 * (1 << 16);
        let parked = b + (2 << 20) + (1 << 18) + 64;
        let how = |budget| {
            let p = plan(budget, n, 1 << 20, &[], 2, Force::Nothing, NONE).unwrap();
            assert!(!p.filter_parked || (p.unresolved_filter && p.frontier_lists));
            (p.frontier_lists, p.unresolved_filter, p.filter_parked)
        };
        assert_eq!(how(base + 6 * b), (false, true, false));
        assert_eq!(how(base + 6 * b - 1), (true, true, false));
        assert_eq!(how(base + lists + 2 * b), (true, true, false));
        // Then one side's filter at a time, the other parked on disk.
        assert_eq!(how(base + lists + 2 * b - 1), (true, true, true));
        assert_eq!(how(base + lists + parked), (true, true, true));
        // Below that, lists alone: four bitmaps take more than lists and one.
        assert_eq!(how(base + lists + parked - 1), (true, false, false));
        // Bitmaps alone where lists and the filter take more than they do: a small table.
        let (small, sb) = (20_000_000, Bitmap::bytes(20_000_000));
        assert!(lists + 2 * sb > 4 * sb);
        let p = plan(
            base + 4 * sb,
            small,
            1 << 20,
            &[],
            2,
            Force::Streaming,
            NONE,
        )
        .unwrap();
        assert!(!p.frontier_lists && !p.unresolved_filter, "{p:?}");
        // A build with a rule stage takes bitmaps and the filter, else lists and the filter,
        // or nothing (both filters: the rule stage reads both sides); lists when told to. Its
        // candidates take at least their floor, here a sixteenth of a byte an entry.
        let rule = RuleBitmaps {
            kept: 6,
            warm: 0,
            patterns: 0,
            entries_per_candidate_byte: 16,
            slices_pay: true,
        };
        let ruled = |budget, force| plan(budget, n, 1 << 20, &[], 2, force, rule);
        let base = base + n / 16;
        let need = base + 12 * b;
        let p = ruled(need, Force::Nothing).unwrap();
        assert!(!p.frontier_lists && p.unresolved_filter, "{p:?}");
        let p = ruled(need - 1, Force::Nothing).unwrap();
        assert!(
            p.frontier_lists && p.unresolved_filter && !p.filter_parked,
            "{p:?}"
        );
        let p = ruled(need, Force::FrontierLists).unwrap();
        assert!(
            p.frontier_lists && p.unresolved_filter && !p.filter_parked,
            "{p:?}"
        );
        let listed = base + 8 * b + lists;
        for force in [Force::Nothing, Force::FrontierLists] {
            assert_eq!(ruled(listed - 1, force).unwrap_err().needed, listed);
        }
        // Forced lists take lists even where bitmaps fit, and a forced parked filter parks.
        let p = plan(1 << 40, n, 1 << 20, &[], 2, Force::FrontierLists, NONE).unwrap();
        assert!(
            !p.resident && p.frontier_lists && p.unresolved_filter,
            "{p:?}"
        );
        assert!(!p.filter_parked);
        let p = plan(1 << 40, n, 1 << 20, &[], 2, Force::ParkedFilter, NONE).unwrap();
        assert!(
            p.frontier_lists && p.unresolved_filter && p.filter_parked,
            "{p:?}"
        );
    }

    #[test]
    fn the_record_tables_plan_at_one_gib() {
        // The KCPAABBKAABB family's largest tables, chunks of 2^20, two threads, eight
        // supporting tables: KCPAABKAABB keeps lists and the filter (two bitmaps of 209 MB);
        // the record table's filter (two of 615 MB) does not fit, one side's at a time does.
        let subs = [1; 8];
        let at_1g = |n| plan(1 << 30, n, 1 << 20, &subs, 2, Force::Nothing, NONE).unwrap();
        for n in [1_675_258_200, 2_826_964_800] {
            let p = at_1g(n);
            assert!(p.frontier_lists && p.unresolved_filter, "{n}: {p:?}");
            assert!(!p.filter_parked, "{n}: {p:?}");
        }
        let p = at_1g(4_921_349_400);
        assert!(
            p.frontier_lists && p.unresolved_filter && p.filter_parked,
            "{p:?}"
        );
    }

    #[test]
    fn streaming_shortens_chunks_to_keep_the_unresolved_filter() {
        // KRNKAABB with two threads and four supporting tables, by hand: a bitmap is
        // 6,451,656 bytes; four of them, the workers' 524,288 and 2 · 288,382 (a compressed
        // frame of 2^18 bytes as lz4 bounds it, 20 + 1.1 · 2^18, and its length), the 8 MiB
        // reserve, four 2 MiB block caches and the 4 MiB smallest update buffer take
        // 47,879,196 bytes, plus two chunks of 4 bytes an entry. The filter needs two more
        // bitmaps, 12,903,312 bytes, so the chunk length `cl` must satisfy
        // 8 · cl ≤ budget − 60,782,508: cl ≤ 266,506 at 60 MiB (2^18, not 2^19),
        // cl ≤ 790,794 at 64 MiB (2^19, not 2^20).
        let n = 51_613_200;
        let subs = [44_340_444, 71_286_141, 1_560_294, 1_638_612];
        let long = plan(60 * M, n, 1 << 20, &subs, 2, Force::Nothing, NONE).unwrap();
        // With chunks of 2^20 the filter fits beside frontier lists only (16 · cl +
        // 36,548,748 bytes: two chunks, a list buffer and its batches instead of four bitmaps).
        assert!(!long.resident && long.unresolved_filter && long.frontier_lists);
        let (len, p) = plan_chunks(
            60 * M,
            n,
            (1 << 20, MIN_STREAM_CHUNK),
            &subs,
            2,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert_eq!(len, 1 << 18);
        assert!(p.unresolved_filter);
        assert_eq!(
            p,
            plan(60 * M, n, len, &subs, 2, Force::Nothing, NONE).unwrap()
        );
        assert!(
            plan(64 * M, n, 1 << 20, &subs, 2, Force::Nothing, NONE)
                .unwrap()
                .frontier_lists
        );
        let (len, p) = plan_chunks(
            64 * M,
            n,
            (1 << 20, MIN_STREAM_CHUNK),
            &subs,
            2,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert_eq!(len, 1 << 19);
        assert!(p.unresolved_filter);
        // A resumed build's chunks stay as its checkpoint has them.
        let (len, p) = plan_chunks(
            60 * M,
            n,
            (1 << 20, 1 << 20),
            &subs,
            2,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert_eq!((len, p), (1 << 20, long));
        // Resident plans and plans that keep the filter keep their chunks.
        assert_eq!(
            plan_chunks(
                1 << 30,
                n,
                (1 << 20, MIN_STREAM_CHUNK),
                &subs,
                2,
                Force::Nothing,
                NONE
            )
            .unwrap()
            .0,
            1 << 20
        );
        assert_eq!(
            plan_chunks(
                96 * M,
                n,
                (1 << 20, MIN_STREAM_CHUNK),
                &subs,
                2,
                Force::Streaming,
                NONE
            )
            .unwrap()
            .0,
            1 << 20
        );
        // Where even the shortest chunks leave no room for bitmaps and the filter (48 MiB: six
        // bitmaps and the reserve take 45 of it), the given length stays, with lists.
        let tight = plan(48 * M, n, 1 << 20, &[], 2, Force::Nothing, NONE).unwrap();
        assert!(tight.unresolved_filter && tight.frontier_lists);
        let (len, p) = plan_chunks(
            48 * M,
            n,
            (1 << 20, MIN_STREAM_CHUNK),
            &[],
            2,
            Force::Nothing,
            NONE,
        )
        .unwrap();
        assert_eq!((len, p), (1 << 20, tight));
    }

    #[test]
    fn the_rule_phases_are_planned_the_pattern_phase_in_what_is_lent_to_it() {
        use crate::fang::Rules;
        use crate::retro::orders::bitmaps;
        let rules = |m: &str, r| bitmaps(m.parse().unwrap(), r);
        let r = |kept, warm, patterns| RuleBitmaps {
            kept,
            warm,
            patterns,
            entries_per_candidate_byte: 4,
            slices_pay: false,
        };
        // Kept: dirty and drawn bits, both sides, and for warm starts the since-chase bits; a
        // pattern phase: five bitmaps and four per slot (NN's twins: two). The candidates' floor:
        // a byte per 4 entries where both sides attack, per 32 where one side alone does.
        let one_side = rules("KCPKAABB", Rules::Asian);
        assert_eq!(
            (one_side.kept, one_side.entries_per_candidate_byte),
            (4, 32)
        );
        assert_eq!(rules("KRKNN", Rules::Asian), r(4, 2, 13));
        assert_eq!(rules("KRCKR", Rules::Asian), r(4, 2, 9));
        assert_eq!(rules("KRKNN", Rules::Check), r(4, 0, 9));
        assert_eq!(rules("KRKNN", Rules::None), NONE);
        // KRKNN streams at 64 MiB; its pattern phase takes what the propagation lends it (both
        // frontiers, two chunks, the smallest update buffer, the workers' buffers) and the
        // rest beside it.
        // Slices pay where one side alone attacks; KRKNN's both do, so the first part takes it
        // as if they paid.
        let (n, subs) = (16_220_250, [379_995, 206_424]);
        let sliced = |r: RuleBitmaps| RuleBitmaps {
            slices_pay: true,
            ..r
        };
        let krknn = sliced(rules("KRKNN", Rules::Asian));
        let p = plan(64 * M, n, 1 << 20, &subs, 2, Force::Nothing, krknn).unwrap();
        assert!(!p.resident && p.unresolved_filter);
        let need = |r| {
            plan(M, n, 1 << 20, &subs, 2, Force::Nothing, r)
                .unwrap_err()
                .needed
        };
        let b = Bitmap::bytes(n);
        let workers = 2 * (8 * THREAD_RECORDS as u64 + chunkfile::thread_bytes());
        let lent = 4 * b + 8 * (1 << 20) + workers + MIN_UPDATE_BUFFER;
        // Where the pattern bitmaps (and the since-chase bits warm starts need) do not fit
        // beside what is lent, the patterns are computed in slices within what is lent: the
        // least budget is that of no pattern bitmaps.
        let least = need(sliced(r(4, 0, 0)));
        assert_eq!(need(krknn), least);
        assert_eq!(need(sliced(r(4, 2, 4))), least);
        let bitmaps = least + 2 * b + 13 * b - lent;
        // Where slices do not pay, the least budget is that of the pattern bitmaps.
        assert_eq!(need(rules("KRKNN", Rules::Asian)), bitmaps);
        let at = |budget, force| plan(budget, n, 1 << 20, &subs, 2, force, krknn).unwrap();
        // (And the supporting tables' caches and packs, dropped after initialisation.)
        let p = at(least, Force::Nothing);
        let lent = lent + 2 * SUB_CACHE + p.pack_budget;
        assert_eq!((p.pattern_slices, p.lent), (Some(lent), lent));
        // The candidates: the least at the least budget, and a quarter of what is left beyond.
        assert_eq!(p.candidates, crate::retro::orders::candidate_floor(n, 4));
        let roomier = at(least + 4 * M, Force::Nothing);
        assert_eq!(roomier.candidates, p.candidates + M);
        // With more, what is lent grows with the update buffer.
        let p = at(bitmaps - 1, Force::Nothing);
        assert_eq!(
            p.pattern_slices,
            Some(lent + p.update_buffer - MIN_UPDATE_BUFFER + p.pack_budget)
        );
        assert_eq!(at(bitmaps, Force::Nothing).pattern_slices, None);
        // Forced, slices even where bitmaps fit (the build streams).
        let p = at(1 << 40, Force::PatternSlices);
        assert!(!p.resident && p.pattern_slices.is_some(), "{p:?}");
        // A build without a rule stage has no patterns.
        let p = plan(1 << 40, n, 1 << 20, &subs, 2, Force::PatternSlices, NONE).unwrap();
        assert_eq!(p.pattern_slices, None);
    }

    #[test]
    fn forced_streaming_streams() {
        assert!(
            !plan(1 << 30, 4050, 1 << 14, &[], 1, Force::Streaming, NONE)
                .unwrap()
                .resident
        );
    }
}
