//! The working entry (32 bits, `formats/build.md` §2): a resolved entry holds its value, an
//! unresolved one its children count. Only unresolved entries change, so one word serves both
//! (one memory access per update):
//!
//! | bits | resolved (bit 31 = 0) | unresolved (bit 31 = 1, bit 30 = 0) |
//! |---|---|---|
//! | 0–15 | distance | children count: 0 not counted yet, 255 never reaches zero |
//! | 16–29 | order | 8–29: zero (the rule passes keep their marks in bitmaps) |
//!
//! and `0xFFFF_FFFF` is an entry that is not a legal position. A DTM build (`formats/build.md`
//! §2.1) keeps in bits 8–29 of an unresolved entry its pending capture event: bits 8–20 the
//! ply it fires at (0: none), bits 21–29 the level it fires in. A resolved word equals its table
//! code minus 2 (`Value::code`).

use crate::value::Value;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Not a legal position.
pub const ILLEGAL: u32 = u32::MAX;
/// An unresolved entry whose children have not been counted yet.
pub const UNCOUNTED: u32 = 1 << 31;
/// Children count of an entry that can never run out of unresolved children (it has a drawn
/// capture): decrements leave it alone.
pub const NEVER: u8 = 255;
/// Largest distance an entry holds.
pub const MAX_DISTANCE: u16 = u16::MAX;

/// Largest level index a pending capture event holds (DTM, phase 0).
pub const MAX_EVENT_LEVEL: u16 = (1 << 9) - 1;
/// Largest ply a pending capture event holds (DTM).
pub const MAX_EVENT_PLY: u16 = (1 << 13) - 1;
/// The bits of an unresolved entry that hold its pending event.
const EVENT_BITS: u32 = 0x3FFF_FF00;

/// An unresolved entry with children count `count` (0: not counted yet) and a capture event
/// pending at `ply` of `level` (DTM: a win if `ply` is odd, else its last capture child, one
/// more child to count; `ply > 0`).
#[inline]
pub const fn pending(count: u8, level: u16, ply: u16) -> u32 {
    debug_assert!(level <= MAX_EVENT_LEVEL && ply <= MAX_EVENT_PLY && ply > 0);
    UNCOUNTED | (level as u32) << 21 | (ply as u32) << 8 | count as u32
}

/// The capture event an unresolved entry has pending, as (level, ply).
#[inline]
pub const fn event(e: u32) -> Option<(u16, u16)> {
    let ply = (e >> 8) as u16 & MAX_EVENT_PLY;
    if !is_unresolved(e) || ply == 0 {
        return None;
    }
    Some(((e >> 21) as u16 & MAX_EVENT_LEVEL, ply))
}

/// Does `e` wait for its last capture into a won position (an event at an even ply)?
#[inline]
pub const fn pending_loss(e: u32) -> bool {
    matches!(event(e), Some((_, ply)) if ply % 2 == 0)
}

/// `e` with its pending event dropped.
#[inline]
pub const fn without_event(e: u32) -> u32 {
    e & !EVENT_BITS
}

/// The entry of a resolved value.
#[inline]
pub const fn resolved(order: u16, distance: u16) -> u32 {
    (order as u32) << 16 | distance as u32
}

/// An unresolved entry with children count `count`.
#[inline]
pub const fn unresolved(count: u8) -> u32 {
    UNCOUNTED | count as u32
}

/// Is `e` an unresolved entry (bit 31 set, bit 30 clear)? False for a resolved value and for
/// [`ILLEGAL`].
#[inline]
pub const fn is_unresolved(e: u32) -> bool {
    e >> 30 == 2
}

/// The value an entry holds: `None` for an illegal entry, a draw for one still unresolved.
#[inline]
pub fn value(e: u32) -> Option<Value> {
    match e {
        ILLEGAL => None,
        e if is_unresolved(e) => Some(Value::Draw),
        e => Some(Value::Decided {
            order: (e >> 16) as u16,
            distance: e as u16,
        }),
    }
}

/// Resolves `e` to `to` if it is still unresolved; true if this call resolved it. With
/// `exclusive`, no other thread updates `e` meanwhile: a plain store does (the atomic
/// compare-exchange was the hottest instruction of the plies).
#[inline]
pub fn resolve(e: &AtomicU32, to: u32, exclusive: bool) -> bool {
    let mut cur = e.load(Relaxed);
    if exclusive {
        let open = is_unresolved(cur);
        if open {
            e.store(to, Relaxed);
        }
        return open;
    }
    while is_unresolved(cur) {
        match e.compare_exchange_weak(cur, to, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(now) => cur = now,
        }
    }
    false
}

/// One of `e`'s children turned out won for the opponent: decrements its count (counting its
/// children with `count` first if that has not been done), resolving it to `to` when no
/// unresolved child is left. True if this call resolved it. `exclusive` as for [`resolve`].
#[inline]
pub fn decrement(e: &AtomicU32, to: u32, exclusive: bool, count: impl FnOnce() -> u8) -> bool {
    let mut cur = e.load(Relaxed);
    let mut count = Some(count);
    let mut counted = 0u8;
    loop {
        if !is_unresolved(cur) {
            return false;
        }
        let mut c = cur as u8;
        if c == NEVER {
            return false;
        }
        if c == 0 {
            if let Some(f) = count.take() {
                // A DTM entry's pending last capture is one more child (`formats/build.md`
                // §2.1).
                counted = f() + pending_loss(cur) as u8;
            }
            c = counted;
            debug_assert!(c > 0, "an unresolved entry has a child");
        }
        let next = if c <= 1 {
            to
        } else {
            (cur & !0xFF) | (c - 1) as u32
        };
        if exclusive {
            e.store(next, Relaxed);
            return c <= 1;
        }
        match e.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
            Ok(_) => return c <= 1,
            Err(now) => cur = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::MAX_ORDER;

    /// The entry of `(order, distance)`, which must fit.
    pub fn of_value(order: u16, distance: u16) -> u32 {
        debug_assert!(order <= MAX_ORDER);
        resolved(order, distance)
    }

    #[test]
    fn values_round_trip_through_entries() {
        for (order, distance) in [(0, 0), (0, 1), (127, 1023), (MAX_ORDER, u16::MAX)] {
            let e = of_value(order, distance);
            assert!(!is_unresolved(e) && e != ILLEGAL);
            assert_eq!(value(e), Some(Value::Decided { order, distance }));
            // The resolved word is the table code minus 2.
            assert_eq!(Value::Decided { order, distance }.code(), e + 2);
        }
        assert_eq!(value(ILLEGAL), None);
        assert!(!is_unresolved(ILLEGAL));
        for c in [0, 1, 17, NEVER] {
            assert!(is_unresolved(unresolved(c)));
            assert_eq!(value(unresolved(c)), Some(Value::Draw));
        }
    }

    #[test]
    fn decrement_counts_lazily_and_resolves_at_zero() {
        // The same answers whether the caller has the entry to itself or not.
        for exclusive in [false, true] {
            let e = AtomicU32::new(UNCOUNTED);
            let to = of_value(0, 4);
            assert!(!decrement(&e, to, exclusive, || 3));
            assert_eq!(e.load(Relaxed), unresolved(2));
            assert!(!decrement(&e, to, exclusive, || panic!("counted once")));
            assert!(decrement(&e, to, exclusive, || panic!("counted once")));
            assert_eq!(e.load(Relaxed), to);
            assert!(
                !decrement(&e, of_value(0, 6), exclusive, || 1),
                "resolved stays"
            );
            assert_eq!(e.load(Relaxed), to);
            let never = AtomicU32::new(unresolved(NEVER));
            assert!(!decrement(&never, to, exclusive, || 1));
            assert_eq!(never.load(Relaxed), unresolved(NEVER));
            let illegal = AtomicU32::new(ILLEGAL);
            assert!(!decrement(&illegal, to, exclusive, || 1) && !resolve(&illegal, to, exclusive));
            assert_eq!(illegal.load(Relaxed), ILLEGAL);
        }
    }

    #[test]
    fn resolve_only_once() {
        for exclusive in [false, true] {
            let e = AtomicU32::new(unresolved(5));
            assert!(resolve(&e, of_value(0, 3), exclusive));
            assert!(!resolve(&e, of_value(0, 5), exclusive));
            assert_eq!(value(e.load(Relaxed)).unwrap().distance(), Some(3));
        }
    }
}
