//! A deliberately naive, independent reference for distance-to-conversion (DTC) values.
//!
//! Written from the definition alone, on top of the naive rules in `tests/reference/mod.rs`
//! (and nothing from the crate). For each material every legal position is enumerated by brute
//! force over the points each piece can occupy and its legal moves are played forward (the
//! graphs in `mod.rs`, shared with the distance-to-mate reference `dtm.rs`); the values are then
//! computed by forward, ply-by-ply fixpoint iteration over that explicit set of positions (no
//! retrograde moves, no counting of children). Captures lead to smaller materials, which are
//! solved first by the same solver, recursively down to `KK`.
//!
//! The definition: for each legal position (side to move; legal = the side not to move is not in
//! check) the value is a draw, or a distance `d` in plies, `d` odd = win for the side to move,
//! `d` even = loss.
//! - A conversion is a capture (the value of the child comes from the smaller material) or
//!   having no legal move.
//! - No legal move: loss, `d = 0` (checkmate and stalemate alike).
//! - A capture into a position lost for the opponent (any `d`): win, `d = 1`.
//! - Otherwise: win with `d = 1 +` the smallest `d` among quiet children lost for the opponent;
//!   loss with `d = 1 +` the largest `d` among quiet children won by the opponent when every
//!   child (quiet and capture) is won by the opponent (capture children do not extend it: a
//!   position whose every move is a capture won by the opponent is a loss with `d = 0`);
//!   everything never resolved is a draw.
//!
//! Iteration: step 0 resolves the conversions (no move: loss 0; a capture into a lost position:
//! win 1; every move a capture into a won position: loss 0). At step `k = 1, 2, ...` an
//! unresolved position becomes a win `d = k` if it has a quiet child resolved as a loss with
//! `d = k - 1`, and a loss `d = k` if every child is won by the opponent (captures by the smaller
//! table, quiet children resolved as wins with `d < k`) and the largest quiet `d` is
//! `k - 1`. Each step only reads values resolved at earlier steps. Stop when a step resolves
//! nothing, but not before step 2: the wins in 1 of step 0 resolve their parents only at step 2,
//! and step 1 may resolve nothing (in KPKP no position is mated or stalemated, so it does).

#![allow(dead_code)]

use crate::reference::{iterate, Child, Metric, Value};

/// The distance-to-conversion rules for [`crate::reference::Solver`].
pub struct Dtc;

impl Metric for Dtc {
    fn resolve(children: &[Vec<Child>]) -> (Vec<Value>, u32) {
        let values = children.iter().map(|ch| conversion(ch)).collect();
        // Step 0's wins in 1 resolve their parents at step 2, after a step 1 that may resolve
        // nothing.
        iterate(children, values, 2, step)
    }

    fn from_children(kids: &[(bool, Value)]) -> Value {
        let quiet = |f: fn(Value) -> Option<u32>| {
            kids.iter()
                .filter(|&&(cap, _)| !cap)
                .filter_map(move |&(_, v)| f(v))
        };
        if kids.is_empty() {
            Value::Loss(0)
        } else if kids
            .iter()
            .any(|&(cap, v)| cap && matches!(v, Value::Loss(_)))
        {
            Value::Win(1)
        } else if let Some(d) = quiet(Value::loss).min() {
            Value::Win(d + 1)
        } else if kids.iter().all(|&(_, v)| matches!(v, Value::Win(_))) {
            Value::Loss(quiet(Value::win).max().map_or(0, |d| d + 1))
        } else {
            // Some child is a draw and none is lost: must be a draw.
            Value::Draw
        }
    }
}

/// Step 0: the conversions (no move: loss 0; a capture into a lost position: win 1; every move
/// a capture into a won position: loss 0).
fn conversion(ch: &[Child]) -> Option<Value> {
    if ch.is_empty() {
        Some(Value::Loss(0))
    } else if ch
        .iter()
        .any(|c| matches!(c, Child::Capture(Value::Loss(_))))
    {
        Some(Value::Win(1))
    } else if ch
        .iter()
        .all(|c| matches!(c, Child::Capture(Value::Win(_))))
    {
        Some(Value::Loss(0))
    } else {
        None
    }
}

/// What step `k` makes of an unresolved position, reading only values resolved before it.
fn step(ch: &[Child], values: &[Option<Value>], k: u32) -> Option<Value> {
    // Win: a quiet child lost in exactly k - 1.
    let wins = ch.iter().any(|c| match *c {
        Child::Quiet(j) => values[j] == Some(Value::Loss(k - 1)),
        Child::Capture(_) => false,
    });
    if wins {
        return Some(Value::Win(k));
    }
    // Loss: every child won by the opponent, the largest quiet distance k - 1.
    let mut largest_quiet: Option<u32> = None;
    for c in ch {
        match *c {
            Child::Capture(Value::Win(_)) => {}
            Child::Capture(_) => return None,
            Child::Quiet(j) => match values[j] {
                Some(Value::Win(d)) if d < k => {
                    largest_quiet = Some(largest_quiet.map_or(d, |x| x.max(d)));
                }
                _ => return None,
            },
        }
    }
    (largest_quiet == Some(k - 1)).then_some(Value::Loss(k))
}
