//! A deliberately naive, independent reference for distance-to-mate (DTM) values.
//!
//! Written from the definition alone, on top of the naive rules in `tests/reference/mod.rs`
//! (and nothing from the crate), in the manner of the distance-to-conversion reference `dtc.rs`
//! and sharing with it only what is the same: the legal positions of each material, enumerated
//! by brute force, and their legal moves played forward (the graphs in `mod.rs`). The values are
//! computed by forward, ply-by-ply fixpoint iteration over that explicit set of positions (no
//! retrograde moves, no counting of children). Captures lead to smaller materials, which are
//! solved first by the same solver, recursively down to `KK`.
//!
//! The definition is the distance-to-mate metric of Fang, "The Nature of Retrograde Analysis for
//! Chinese Chess" (2005), Section 5.1, at level 0 only: plain retrograde analysis, no rules on
//! endless play (checking or chasing indefinitely is not penalised; what is never resolved is a
//! draw). For each legal position (side to move; legal = the side not to move is not in check)
//! the value is a draw, or a distance `d` in plies to checkmate or stalemate, `d` odd = win for
//! the side to move, `d` even = loss.
//! - No legal move: loss, `d = 0` (checkmate and stalemate alike).
//! - Otherwise: win with `d = 1 +` the smallest `d` among children lost for the opponent; else,
//!   when every child is won by the opponent, loss with `d = 1 +` the largest `d` among them;
//!   else a draw.
//! - Unlike DTC a capture does not end the count: the children are quiet and capture moves
//!   alike, and a capture child's value is its DTM in the smaller material.
//!
//! Iteration: step 0 resolves the positions without a legal move (loss 0). At step
//! `k = 1, 2, ...` an unresolved position becomes a win `d = k` if it has a child (quiet, or a
//! capture by the smaller table) lost with `d = k - 1`, and a loss `d = k` if every child is won
//! by the opponent (quiet children resolved with `d < k`, captures with any `d`) and the largest
//! `d` is `k - 1`. Each step only reads values resolved at earlier steps. A capture child's value
//! is known from the start, so a step may resolve nothing while a later one still resolves
//! positions waiting on a long capture: stop at the first step that resolves nothing once `k`
//! has reached the largest capture distance plus one.

#![allow(dead_code)]

use crate::reference::{iterate, Child, Metric, Value};

/// The distance-to-mate rules for [`crate::reference::Solver`].
pub struct Dtm;

impl Metric for Dtm {
    fn resolve(children: &[Vec<Child>]) -> (Vec<Value>, u32) {
        // Step 0: no legal move.
        let values = children
            .iter()
            .map(|ch| ch.is_empty().then_some(Value::Loss(0)))
            .collect();
        iterate(children, values, capture_horizon(children), step)
    }

    fn from_children(kids: &[(bool, Value)]) -> Value {
        if kids.is_empty() {
            return Value::Loss(0);
        }
        if let Some(d) = kids.iter().filter_map(|&(_, v)| v.loss()).min() {
            return Value::Win(d + 1);
        }
        let won: Option<Vec<u32>> = kids.iter().map(|&(_, v)| v.win()).collect();
        match won {
            Some(ds) => Value::Loss(1 + ds.into_iter().max().expect("a child")),
            // Some child is a draw and none is lost.
            None => Value::Draw,
        }
    }
}

/// The step from which no capture child can resolve anything new: one past the largest
/// distance of any capture child (0 if there is none).
fn capture_horizon(children: &[Vec<Child>]) -> u32 {
    let capture_distance = |c: &Child| match *c {
        Child::Capture(v) => v.distance(),
        Child::Quiet(_) => None,
    };
    let largest = children.iter().flatten().filter_map(capture_distance).max();
    largest.map_or(0, |d| d + 1)
}

/// What step `k` makes of an unresolved position, reading only values resolved before it.
fn step(ch: &[Child], values: &[Option<Value>], k: u32) -> Option<Value> {
    let known = |c: &Child| match *c {
        Child::Quiet(j) => values[j],
        Child::Capture(v) => Some(v),
    };
    // Win: a child (quiet or capture) lost in exactly k - 1.
    if ch.iter().any(|c| known(c) == Some(Value::Loss(k - 1))) {
        return Some(Value::Win(k));
    }
    // Loss: every child won by the opponent, the largest distance k - 1.
    let mut largest = 0;
    for c in ch {
        match known(c) {
            Some(Value::Win(d)) => largest = largest.max(d),
            _ => return None,
        }
    }
    (largest == k - 1).then_some(Value::Loss(k))
}
