//! Distance to mate (Fang, Section 5.1) on the DTC engine: the same plies and orders, with the
//! captures' values brought in at their own distances (`formats/build.md` §2.1,
//! `formats/dtm.md`).
//!
//! In DTC a capture ends the count, so initialisation settles every capture at once. In DTM a
//! capture into a position of value `(K, d)` of the smaller table counts like a quiet move into
//! a position of that value one capture up: its level is `K` mapped into this table's level
//! table (`(0, K)`), and it takes effect at ply `d + 1` of that level. Initialisation keeps, per
//! position, only the capture that matters — the best capture into a lost position (a win
//! waiting at its ply), or else the last capture into a won one (the count's last child) — as
//! a pending **event** in the unresolved entry. Phase 0 runs one sub-phase per level of phase
//! 0, in increasing key order, and each ply fires its level's events after its passes. Every
//! capture is thus in before the first pattern of the Asian rules is sought, which keeps the
//! win/draw/loss of the DTC table (Fang's Theorem 7; the argument: `formats/dtm.md` §3).

use super::dtc::{self, Scheduled};
use super::entry::{self, MAX_EVENT_LEVEL, MAX_EVENT_PLY, NEVER};
use super::store::Chunk;
use super::sub::Subtables;
use super::work::{Work, WINDOW};
use super::BuildError;
use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::position::Position;
use crate::retro::graph::Graph;
use crate::retro::{Bitmap, Progress};
use crate::value::Value;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A capture event: the level and ply it fires at.
type Event = (u16, u16);

/// The initial entry of a legal position of `material` in a DTM build (`in_check`: whether the
/// side to move is in check): a mate or stalemate (lost at 0), or unresolved with its quiet
/// moves counted and its deciding capture pending.
pub fn initial(
    material: Material,
    pos: &mut Position,
    in_check: bool,
    subs: &Subtables,
) -> Result<u32, BuildError> {
    // The best capture into a lost position, and the last into a won one, as (level, ply).
    let (mut win, mut last): (Option<Event>, Option<Event>) = (None, None);
    let mut drawn = false;
    let mut failed = None;
    let quiet = pos.legal_captures(in_check, dtc::COUNT_AT_ONCE, |pos, m| {
        let victim = pos.piece_at(m.to).expect("a capture takes a piece");
        let undo = pos.play(m);
        let value = subs.dtm_value(victim.code(), pos);
        pos.undo(m, undo);
        match value {
            Ok(Value::Draw) => drawn = true,
            Ok(Value::Decided { order, distance }) => {
                let at = (order, distance.saturating_add(1));
                if distance % 2 == 0 {
                    win = Some(win.map_or(at, |w| w.min(at)));
                } else {
                    last = last.max(Some(at));
                }
            }
            Err(e) => {
                failed = Some(e);
                return true;
            }
        }
        false
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (quiet, counted) = quiet.expect("the walk never stops early");
    let limit = |(level, ply): Event| {
        if level > MAX_EVENT_LEVEL || ply > MAX_EVENT_PLY {
            return Err(BuildError::Limit(format!(
                "table {material}: a capture decides {} at ply {ply} of level {level}; a \
                 distance-to-mate build holds captures up to ply {MAX_EVENT_PLY} of level \
                 {MAX_EVENT_LEVEL} (formats/build.md §2.1)",
                crate::fen::to_fen(pos)
            )));
        }
        Ok((level, ply))
    };
    let captures = Captures {
        win: win.map(limit).transpose()?,
        drawn,
        last: last.map(limit).transpose()?,
    };
    Ok(entry_of(quiet, counted, captures))
}

/// What a position's captures decide, as (level, ply) events within the entry's limits.
struct Captures {
    /// The best capture into a lost position.
    win: Option<Event>,
    /// A capture into a drawn position.
    drawn: bool,
    /// The last capture into a won position.
    last: Option<Event>,
}

/// The initial DTM entry of a position with `quiet` legal quiet moves (all of them if
/// `counted`, else 0 or 1: none, or at least one) and these captures.
fn entry_of(quiet: usize, counted: bool, captures: Captures) -> u32 {
    match captures {
        // A win is waiting: the count must never run out before it comes.
        Captures {
            win: Some((level, ply)),
            ..
        } => entry::pending(NEVER, level, ply),
        Captures { drawn: true, .. } => entry::unresolved(NEVER),
        // The last capture child is one more child to count: now, or with the quiet moves when
        // a ply first needs the count (`entry::decrement`) — unless there is no quiet move.
        Captures {
            last: Some((level, ply)),
            ..
        } => {
            let lazy = !counted && quiet > 0;
            entry::pending(if lazy { 0 } else { quiet as u8 + 1 }, level, ply)
        }
        _ if quiet > 0 && counted => entry::unresolved(quiet as u8),
        // Many moves: counted when a ply first needs the count, as in DTC.
        _ if quiet > 0 => entry::UNCOUNTED,
        // No legal move: mate or stalemate.
        _ => entry::resolved(0, 0),
    }
}

/// Where the pending capture events are: per side and chunk, the (level, ply) pairs its
/// entries wait for, so that a ply reads only the chunks with events due.
pub struct Events {
    due: ByColor<Vec<BTreeSet<(u16, u16)>>>,
}

impl Events {
    /// No event yet, for a state of `chunks` chunks per side.
    pub fn new(chunks: usize) -> Events {
        Events {
            due: ByColor::new(|_| vec![BTreeSet::new(); chunks]),
        }
    }

    /// Notes the events of chunk `c` of `side`.
    pub fn note(&mut self, side: Color, c: usize, chunk: &Chunk) {
        self.due[side][c] = chunk
            .entries
            .par_chunks(WINDOW)
            .map(|w| {
                w.iter()
                    .filter_map(|e| entry::event(e.load(Relaxed)))
                    .collect::<BTreeSet<_>>()
            })
            .reduce(BTreeSet::new, |mut a, b| {
                a.extend(b);
                a
            });
    }

    /// The events of a state loaded from a checkpoint, read from its chunks.
    pub fn scan(work: &Work) -> Result<Events, BuildError> {
        let mut events = Events::new(work.layout().chunks());
        for side in Color::ALL {
            for c in 0..work.layout().chunks() {
                work.with_chunk(side, c, |chunk| events.note(side, c, chunk))?;
            }
        }
        Ok(events)
    }

    /// Does any event wait in `level`?
    pub fn any_in(&self, level: u16) -> bool {
        self.due
            .iter()
            .flat_map(|(_, chunks)| chunks)
            .any(|s| s.range((level, 0)..=(level, u16::MAX)).next().is_some())
    }

    /// Fires the events of `level` due at `ply`: a pending win resolves its entry at
    /// `(level, ply)`; a pending last capture counts that child, resolving its entry as a loss
    /// at `(level, ply)` if it was the last. Either way the entry joins the next frontier.
    fn fire(&mut self, work: &mut Work, level: u16, ply: u32) -> Result<(), BuildError> {
        let Ok(ply) = u16::try_from(ply) else {
            return Ok(());
        };
        let layout = work.layout();
        // The side whose filter is in RAM first (a parked filter is read back only if needed).
        let [_, loaded] = work.pass_order();
        for side in [loaded, !loaded] {
            let chunks: Vec<usize> = (0..layout.chunks())
                .filter(|&c| self.due[side][c].remove(&(level, ply)))
                .collect();
            if chunks.is_empty() {
                continue;
            }
            work.use_filter(side)?;
            let to = entry::resolved(level, ply);
            // Frontier lists take the entries resolved a chunk at a time; the first error
            // stops the noting and is returned after the chunks are done.
            let failed = std::sync::Mutex::new(None);
            work.update_entries(side, &chunks, |work, range, view| {
                let open = work.unresolved[side].as_ref();
                let next = work.frontiers.next_bits(side);
                let windows: Vec<(u64, u64)> = chunks
                    .iter()
                    .map(|&c| (layout.base(c), layout.base(c) + layout.len(c) as u64))
                    .filter(|&(start, end)| start >= range.start && end <= range.end)
                    .flat_map(|(start, end)| {
                        (start..end)
                            .step_by(WINDOW)
                            .map(move |w| (w, (w + WINDOW as u64).min(end)))
                    })
                    .collect();
                let fired: Vec<(u64, Vec<u64>)> = windows
                    .into_par_iter()
                    .map(|(first, end)| {
                        let (mut n, mut listed) = (0, Vec::new());
                        for index in open_entries(open, first, end) {
                            // This task is the only one that looks at the entries of its window.
                            let (fired, resolved) = fire_entry(view.entry(index), (level, ply), to);
                            n += fired as u64;
                            if resolved {
                                if let Some(open) = open {
                                    open.clear(index);
                                }
                                match next {
                                    Some(next) => next.set(index),
                                    None => listed.push(index),
                                }
                            }
                        }
                        (n, listed)
                    })
                    .collect();
                let listed: Vec<u64> = fired.iter().flat_map(|f| f.1.iter().copied()).collect();
                if let Err(e) = work.note_next(side, &listed) {
                    failed.lock().unwrap().get_or_insert(e);
                }
                fired.iter().map(|f| f.0).sum::<u64>() > 0
            })?;
            if let Some(e) = failed.into_inner().unwrap() {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Is an event of `level` due after `ply`?
    fn later(&self, level: u16, ply: u32) -> bool {
        let from = u16::try_from(ply.saturating_add(1)).unwrap_or(u16::MAX);
        self.due
            .iter()
            .flat_map(|(_, chunks)| chunks)
            .any(|s| s.range((level, from)..=(level, u16::MAX)).next().is_some())
    }
}

/// Fires `e`'s event if it is the one due at `at` (level, ply), alone on `e`: a win resolves it
/// to `to`; a last capture counts one child, resolving it to `to` if it was the last. Returns
/// whether an event fired, and whether it resolved `e`.
fn fire_entry(e: &AtomicU32, at: Event, to: u32) -> (bool, bool) {
    let w = e.load(Relaxed);
    if entry::event(w) != Some(at) {
        return (false, false);
    }
    let count = w as u8;
    let resolves = at.1 % 2 == 1 || count == 1;
    e.store(
        match count {
            _ if resolves => to,
            // Not counted yet: the count, when a ply needs it, leaves this child out.
            0 => entry::without_event(w),
            _ => entry::without_event(w) - 1,
        },
        Relaxed,
    );
    (true, resolves)
}

/// The indices of `first..end` an event may be pending at: the unresolved entries, read from
/// the filter where there is one (after the first plies most entries are resolved, and a ply
/// of a long table fires events in most chunks), else every one.
fn open_entries(open: Option<&Bitmap>, first: u64, end: u64) -> Box<dyn Iterator<Item = u64> + '_> {
    let Some(open) = open else {
        return Box::new(first..end);
    };
    Box::new((first / 64..end.div_ceil(64)).flat_map(move |w| {
        let mut bits = open.word(w as usize);
        std::iter::from_fn(move || {
            let k = bits.trailing_zeros();
            (bits != 0).then(|| {
                bits &= bits - 1;
                w * 64 + k as u64
            })
        })
        .filter(move |&i| i >= first && i < end)
    }))
}

/// The events of one level, as the plies of [`dtc::propagate`] see them.
struct LevelEvents<'a> {
    events: &'a mut Events,
    level: u16,
}

impl Scheduled for LevelEvents<'_> {
    fn fire(&mut self, work: &mut Work, ply: u32) -> Result<(), BuildError> {
        self.events.fire(work, self.level, ply)
    }

    fn later(&self, ply: u32) -> bool {
        self.events.later(self.level, ply)
    }
}

/// Phase 0 from `(level, ply)` (a level of phase 0): the rest of that level's plies, then each
/// later level of phase 0 with events, in increasing key order (`phase0`: how many levels phase
/// 0 has). `after_ply(work, level, ply)` runs after each ply. Returns the last ply of the first
/// level run.
#[allow(clippy::too_many_arguments)]
pub fn propagate_phase0(
    work: &mut Work,
    graph: &Graph,
    events: &mut Events,
    phase0: u16,
    (first_level, first_ply): (u16, u32),
    progress: &dyn Progress,
    after_ply: &mut dyn FnMut(&mut Work, u16, u32) -> Result<(), BuildError>,
) -> Result<u32, BuildError> {
    let mut first_plies = None;
    for level in first_level..phase0 {
        let from = if level == first_level { first_ply } else { 0 };
        if level != first_level && !events.any_in(level) {
            continue;
        }
        let mut due = LevelEvents { events, level };
        let plies = dtc::propagate(
            work,
            graph,
            (level, from),
            progress,
            None,
            &mut due,
            |w, ply| after_ply(w, level, ply),
        )?;
        first_plies.get_or_insert(plies);
    }
    Ok(first_plies.unwrap_or(first_ply))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last(at: Event) -> Captures {
        Captures {
            win: None,
            drawn: false,
            last: Some(at),
        }
    }

    /// A position whose only moves capture into won positions is lost when the last capture's
    /// event fires, even if it has many pseudo-legal quiet moves, none legal (in check: the
    /// walk reports "not counted, none found"). Counting it lazily left it a draw forever:
    /// `3N5/4a4/b3k3b/5R3/9/9/9/9/9/3K5 b` of KRNKABB (Black in check, nine pseudo-legal quiet
    /// moves, none legal), which `verify --metric dtm` named.
    #[test]
    fn an_entry_without_quiet_moves_counts_its_last_capture() {
        let e = entry_of(0, false, last((0, 6)));
        assert_eq!(e & 0xFF, 1, "one child: the last capture");
        assert_eq!(entry::event(e), Some((0, 6)));
        let resolved = entry::resolved(0, 6);
        let a = AtomicU32::new(e);
        assert_eq!(fire_entry(&a, (0, 6), resolved), (true, true));
        assert_eq!(a.load(Relaxed), resolved);
    }

    /// Many quiet moves: the count waits for a ply, and firing the last capture leaves it
    /// uncounted; counted later, it leaves that child out.
    #[test]
    fn a_lazily_counted_entry_drops_its_last_capture_when_it_fires() {
        let e = entry_of(1, false, last((2, 8)));
        assert_eq!(e & 0xFF, 0, "not counted yet");
        assert!(entry::pending_loss(e));
        let a = AtomicU32::new(e);
        assert_eq!(fire_entry(&a, (2, 8), entry::resolved(2, 8)), (true, false));
        assert_eq!(a.load(Relaxed), entry::UNCOUNTED);
        // Counted before it fires: the quiet moves and the capture.
        let b = AtomicU32::new(e);
        assert!(!entry::decrement(&b, entry::resolved(0, 5), true, || 3));
        assert_eq!(b.load(Relaxed) & 0xFF, 3, "3 quiet + 1 capture − 1");
    }
}
