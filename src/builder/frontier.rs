//! The frontiers of a build: for each side, the entries the next pass from it starts from, and
//! the entries the passes under way resolve (the frontier after them).
//!
//! They are bitmaps in RAM when the plan has room for them (four bits an entry and side pair),
//! else per-chunk lists of local indices in the store (`formats/build.md` §7.3): the record
//! table KCPAABBKAABB has 4,921,349,400 entries a side, and its four frontier bitmaps alone
//! would take 2.46 GB. A list is written where its entries resolve (a chunk's update log
//! applied, a win ply's resolution logs, events fired) and read once, by the pass from its
//! side at the next ply, so no frontier lookup ever needs a random access: the passes that
//! would (pulled win plies, the rule stage) do not run on lists.

use super::layout::Layout;
use super::store::StoreDir;
use super::BuildError;
use crate::piece::{ByColor, Color};
use crate::retro::Bitmap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Where the frontiers are kept.
pub enum Frontiers {
    /// Bitmaps in RAM.
    Bits {
        /// The entries the next pass from each side starts from.
        now: ByColor<Bitmap>,
        /// The entries the passes under way resolved.
        next: ByColor<Bitmap>,
    },
    /// Per-chunk lists in the store.
    Lists(Lists),
}

/// Frontiers as per-chunk lists in the store: their files alternate by parity
/// ([`super::store::Log::Frontier`]); only the number of entries each list holds stays in RAM.
pub struct Lists {
    /// The parity of the lists the next passes read (the others are being filled).
    parity: u8,
    /// Entries in each chunk's list of each parity.
    counts: ByColor<[Vec<AtomicU64>; 2]>,
}

/// Local indices a list is appended in (bounds the buffers that gather them).
pub const LIST_BATCH: usize = 1 << 16;

impl Frontiers {
    /// Empty frontiers of `layout`'s entries: bitmaps, or lists if `lists`.
    pub fn new(layout: Layout, lists: bool) -> Frontiers {
        if !lists {
            let n = layout.entries();
            return Frontiers::Bits {
                now: ByColor::new(|_| Bitmap::summarised(n)),
                next: ByColor::new(|_| Bitmap::summarised(n)),
            };
        }
        let zeros = || (0..layout.chunks()).map(|_| AtomicU64::new(0)).collect();
        Frontiers::Lists(Lists {
            parity: 0,
            counts: ByColor::new(|_| [zeros(), zeros()]),
        })
    }

    /// The lists, if the frontiers are lists.
    pub fn lists(&self) -> Option<&Lists> {
        match self {
            Frontiers::Lists(lists) => Some(lists),
            Frontiers::Bits { .. } => None,
        }
    }

    /// No frontiers (after the passes).
    pub fn none() -> Frontiers {
        Frontiers::Bits {
            now: ByColor::new(|_| Bitmap::new(0)),
            next: ByColor::new(|_| Bitmap::new(0)),
        }
    }

    /// The frontier bitmaps. Only the passes that need random access call this (pulled win
    /// plies, the rule stage), and the plan keeps bitmaps for every build that runs them.
    pub fn now_bitmaps(&self) -> &ByColor<Bitmap> {
        match self {
            Frontiers::Bits { now, .. } => now,
            Frontiers::Lists(_) => {
                panic!("a pass that reads the frontier at random needs its bitmap")
            }
        }
    }

    /// The frontier bitmap of `side` ([`Frontiers::now_bitmaps`]).
    pub fn now_bits(&self, side: Color) -> &Bitmap {
        &self.now_bitmaps()[side]
    }

    /// The bitmap of `side`'s entries resolved by the passes under way, if bitmaps.
    pub fn next_bits(&self, side: Color) -> Option<&Bitmap> {
        match self {
            Frontiers::Bits { next, .. } => Some(&next[side]),
            Frontiers::Lists(_) => None,
        }
    }

    /// Entries in `side`'s frontier.
    pub fn now_in_all(&self, side: Color) -> u64 {
        match self {
            Frontiers::Bits { now, .. } => now[side].count_all(),
            Frontiers::Lists(l) => l.total(side, l.parity),
        }
    }

    /// Entries of `side` the passes under way resolved.
    pub fn next_in_all(&self, side: Color) -> u64 {
        match self {
            Frontiers::Bits { next, .. } => next[side].count_all(),
            Frontiers::Lists(l) => l.total(side, 1 - l.parity),
        }
    }

    /// Sets the bits of `side`'s frontier in `map` (the rule stage's dirty marks).
    pub fn mark_now(
        &self,
        (store, layout): (&StoreDir, Layout),
        side: Color,
        map: &Bitmap,
    ) -> Result<(), BuildError> {
        match self {
            Frontiers::Bits { now, .. } => {
                map.or_from(&now[side]);
                Ok(())
            }
            Frontiers::Lists(l) => {
                let (mut words, mut indices) = (vec![0; LIST_BATCH], Vec::new());
                for c in (0..layout.chunks()).filter(|&c| l.now_in(side, c) > 0) {
                    indices.clear();
                    l.read_now((store, layout), side, c, &mut words, &mut indices)?;
                    indices.iter().for_each(|&i| map.set(i));
                }
                Ok(())
            }
        }
    }

    /// Notes `side`'s entries `indices` (sorted) as resolved by the passes under way.
    pub fn note_next(
        &self,
        store: &StoreDir,
        layout: Layout,
        side: Color,
        indices: &[u64],
    ) -> Result<(), BuildError> {
        self.note(store, layout, side, indices, false)
    }

    /// Notes `side`'s entries `indices` (sorted) in the frontier the next passes start from
    /// (`now_list`: an order's seeds), or else as resolved by the passes under way.
    pub fn note(
        &self,
        store: &StoreDir,
        layout: Layout,
        side: Color,
        indices: &[u64],
        now_list: bool,
    ) -> Result<(), BuildError> {
        match self {
            Frontiers::Bits { now, next } => {
                let map = if now_list { &now[side] } else { &next[side] };
                indices.iter().for_each(|&i| map.set(i));
                Ok(())
            }
            Frontiers::Lists(l) => {
                let parity = if now_list { l.parity } else { 1 - l.parity };
                let mut locals = Vec::with_capacity(indices.len().min(LIST_BATCH));
                for (c, run) in super::buffers::runs(indices, |i| layout.chunk(i)) {
                    for part in run.chunks(LIST_BATCH) {
                        locals.clear();
                        locals.extend(part.iter().map(|&i| layout.local(i) as u32));
                        l.append(store, side, c, parity, &locals)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// After the passes of one step: what they resolved becomes the frontier (the lists read
    /// are emptied). Returns its size.
    pub fn advance(&mut self, store: &StoreDir) -> Result<u64, BuildError> {
        match self {
            Frontiers::Bits { now, next } => {
                let mut total = 0;
                for side in Color::ALL {
                    std::mem::swap(&mut now[side], &mut next[side]);
                    next[side].clear_all();
                    total += now[side].count_all();
                }
                Ok(total)
            }
            Frontiers::Lists(l) => {
                let read = l.parity;
                for side in Color::ALL {
                    for (c, n) in l.counts[side][read as usize].iter().enumerate() {
                        if n.swap(0, Relaxed) > 0 {
                            store.clear_frontier(side, c, read)?;
                        }
                    }
                }
                l.parity = 1 - read;
                Ok(Color::ALL.iter().map(|&s| l.total(s, l.parity)).sum())
            }
        }
    }
}

impl Lists {
    /// Entries in `side`'s lists of `parity`.
    fn total(&self, side: Color, parity: u8) -> u64 {
        self.counts[side][parity as usize]
            .iter()
            .map(|n| n.load(Relaxed))
            .sum()
    }

    /// Entries in chunk `c`'s list of `side`'s frontier.
    pub fn now_in(&self, side: Color, c: usize) -> u64 {
        self.counts[side][self.parity as usize][c].load(Relaxed)
    }

    /// Appends local indices of chunk `c` of `side` to its list of `parity`.
    fn append(
        &self,
        store: &StoreDir,
        side: Color,
        c: usize,
        parity: u8,
        locals: &[u32],
    ) -> Result<(), BuildError> {
        store.append_frontier(side, c, parity, locals)?;
        self.counts[side][parity as usize][c].fetch_add(locals.len() as u64, Relaxed);
        Ok(())
    }

    /// Appends chunk `c`'s local indices to `side`'s frontier (`now`) or the next one: what a
    /// loaded or initialised chunk holds.
    pub fn add(
        &self,
        store: &StoreDir,
        side: Color,
        c: usize,
        now: bool,
        locals: &[u32],
    ) -> Result<(), BuildError> {
        let parity = if now { self.parity } else { 1 - self.parity };
        self.append(store, side, c, parity, locals)
    }

    /// Appends to `out` the global indices of chunk `c`'s list of `side`'s frontier, sorted
    /// (the lists are appended in runs: a pass's chunks, a win ply's batches), reading through
    /// `words` (any length above 0).
    pub fn read_now(
        &self,
        (store, layout): (&StoreDir, Layout),
        side: Color,
        c: usize,
        words: &mut [u32],
        out: &mut Vec<u64>,
    ) -> Result<(), BuildError> {
        let start = out.len();
        let base = layout.base(c);
        store.read_frontier(side, c, self.parity, words, |locals| {
            out.extend(locals.iter().map(|&l| base + l as u64))
        })?;
        let read = (out.len() - start) as u64;
        if read != self.now_in(side, c) {
            return Err(BuildError::Inconsistent(format!(
                "{}: holds {read} entries, {} were written to it",
                store
                    .log_path(super::store::Log::Frontier(self.parity), side, c)
                    .display(),
                self.now_in(side, c)
            )));
        }
        out[start..].sort_unstable();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sides of three chunks of `2^14` entries, with frontier lists.
    fn lists(dir: &std::path::Path) -> (StoreDir, Layout, Frontiers) {
        let store = StoreDir::open(dir.join("s")).unwrap();
        let layout = Layout::new(3 << 14, 14);
        (store, layout, Frontiers::new(layout, true))
    }

    #[test]
    fn listed_entries_come_back_sorted_as_the_next_frontier() {
        let dir = tempfile::tempdir().unwrap();
        let (store, layout, mut f) = lists(dir.path());
        let noted = [5u64, 3, 16_384 + 7, 16_384 + 2, 2 * 16_384 + 9];
        // Noted in two batches, in chunk runs but out of order within them.
        f.note_next(&store, layout, Color::Black, &noted[..2])
            .unwrap();
        f.note_next(&store, layout, Color::Black, &noted[2..])
            .unwrap();
        f.note_next(&store, layout, Color::Red, &[1]).unwrap();
        assert_eq!(f.now_in_all(Color::Black), 0);
        assert_eq!(f.next_in_all(Color::Black), 5);
        assert_eq!(f.advance(&store).unwrap(), 6);
        assert_eq!(
            (f.now_in_all(Color::Black), f.next_in_all(Color::Black)),
            (5, 0)
        );
        let l = f.lists().unwrap();
        // A read buffer shorter than the lists: they come back in several reads.
        let (mut back, mut words) = (Vec::new(), [0u32; 2]);
        for c in 0..3 {
            l.read_now((&store, layout), Color::Black, c, &mut words, &mut back)
                .unwrap();
        }
        assert_eq!(back, [3, 5, 16_386, 16_391, 32_777]);
        // The next ply's lists start empty; the frontier read is emptied by the advance after.
        assert_eq!(f.advance(&store).unwrap(), 0);
        let mut none = Vec::new();
        let l = f.lists().unwrap();
        l.read_now((&store, layout), Color::Black, 0, &mut [0; 4], &mut none)
            .unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn a_list_that_does_not_hold_what_was_written_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (store, layout, mut f) = lists(dir.path());
        f.note_next(&store, layout, Color::Red, &[4, 8]).unwrap();
        f.advance(&store).unwrap();
        // Another writer's index, appended behind the lists' back.
        store.append_frontier(Color::Red, 0, 1, &[9]).unwrap();
        let mut out = Vec::new();
        let l = f.lists().unwrap();
        let err = l
            .read_now((&store, layout), Color::Red, 0, &mut [0; 4], &mut out)
            .unwrap_err();
        assert!(
            err.to_string().contains("holds 3 entries, 2 were written"),
            "{err}"
        );
    }

    #[test]
    fn bitmaps_take_the_same_notes() {
        let dir = tempfile::tempdir().unwrap();
        let store = StoreDir::open(dir.path().join("s")).unwrap();
        let layout = Layout::new(3 << 14, 14);
        let mut f = Frontiers::new(layout, false);
        f.note_next(&store, layout, Color::Red, &[2, 40_000])
            .unwrap();
        assert_eq!(f.advance(&store).unwrap(), 2);
        let now = f.now_bits(Color::Red);
        assert!(now.get(2) && now.get(40_000) && now.count_all() == 2);
        assert!(f.lists().is_none());
    }
}
