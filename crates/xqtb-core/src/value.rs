//! Values of positions: draw, or (order r, distance d) with d odd a win for the side to move and
//! d even a loss (the query system's "order" and "value", the query system's pages; Fang 5.3: distance to
//! conversion). Order 0 is the plain retrograde result; higher orders come from the Asian rules
//! (perpetual check or chase) and share this encoding.

use std::fmt;

/// The outcome for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Outcome {
    /// `"win"`, `"draw"` or `"loss"`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }

    /// The same result seen by the other side.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// The value of a legal position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// A draw.
    Draw,
    /// A decided position: `distance` plies to conversion; odd is a win, even a loss.
    Decided {
        /// The order: 0 for the plain retrograde result, higher for results the Asian rules
        /// (perpetual check or chase) decide.
        order: u16,
        /// Plies to conversion: odd a win for the side to move, even a loss.
        distance: u16,
    },
}

/// Largest order a table file can hold.
pub const MAX_ORDER: u16 = 0x3FFF;
/// The order of the stand-in values a table reader gives for the entries of a derived side
/// whose values it finds from their moves (`formats/table.md` §5, `table::derived_stand_in`):
/// above every real order, never a position's value.
pub const DERIVED_ORDER: u16 = u16::MAX;
/// Largest distance a table file can hold (the builder's working state stops a little lower).
pub const MAX_DISTANCE: u16 = u16::MAX;

/// A table file's code for an index that is not a legal position (a collision or the side not to
/// move in check).
pub const CODE_NONE: u32 = 0;
/// A table file's code for a draw.
pub const CODE_DRAW: u32 = 1;

impl Value {
    /// Win, draw or loss for the side to move (a decided value by its distance's parity).
    pub fn outcome(self) -> Outcome {
        match self {
            Value::Draw => Outcome::Draw,
            Value::Decided { distance, .. } if distance % 2 == 1 => Outcome::Win,
            Value::Decided { .. } => Outcome::Loss,
        }
    }

    /// The order of a decided value; `None` for a draw.
    pub fn order(self) -> Option<u16> {
        match self {
            Value::Draw => None,
            Value::Decided { order, .. } => Some(order),
        }
    }

    /// The distance of a decided value; `None` for a draw.
    pub fn distance(self) -> Option<u16> {
        match self {
            Value::Draw => None,
            Value::Decided { distance, .. } => Some(distance),
        }
    }

    /// The 32-bit code stored in table files (`formats/table.md`): 0 none, 1 draw, otherwise
    /// `2 + (order << 16 | distance)`.
    pub fn code(self) -> u32 {
        match self {
            Value::Draw => CODE_DRAW,
            Value::Decided { order, distance } => {
                debug_assert!(order <= MAX_ORDER || order == DERIVED_ORDER);
                2 + ((order as u32) << 16 | distance as u32)
            }
        }
    }

    /// Decodes a table code; `None` for [`CODE_NONE`] and for codes no value has (the stand-ins
    /// of order [`DERIVED_ORDER`], distance 0 or 1, decode).
    pub fn from_code(code: u32) -> Option<Value> {
        match code {
            CODE_NONE => None,
            CODE_DRAW => Some(Value::Draw),
            c => {
                let v = c - 2;
                let order = (v >> 16) as u16;
                let stand_in = order == DERIVED_ORDER && (v as u16) <= 1;
                (order <= MAX_ORDER || stand_in).then_some(Value::Decided {
                    order,
                    distance: v as u16,
                })
            }
        }
    }

    /// How good this value is for the side to move: higher is better. Wins rank above draws
    /// above losses; among wins the lower order, then the shorter distance, is better; among
    /// losses the higher order, then the longer distance (Fang, Definition 9).
    pub fn rank(self) -> i64 {
        match self {
            Value::Draw => 0,
            Value::Decided { order, distance } => {
                let key = ((order as i64) << 16) | distance as i64;
                if distance % 2 == 1 {
                    i64::MAX / 2 - key
                } else {
                    -(i64::MAX / 2) + key
                }
            }
        }
    }
}

impl fmt::Display for Value {
    /// `win 17 (order 0)`, `loss 0 (order 0)`, `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Draw => write!(f, "draw"),
            Value::Decided { order, distance } => {
                write!(f, "{} {distance} (order {order})", self.outcome().name())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for v in [
            Value::Draw,
            Value::Decided {
                order: 0,
                distance: 0,
            },
            Value::Decided {
                order: 127,
                distance: 1023,
            },
            Value::Decided {
                order: MAX_ORDER,
                distance: u16::MAX,
            },
        ] {
            assert_eq!(Value::from_code(v.code()), Some(v));
        }
        assert_eq!(Value::from_code(CODE_NONE), None);
        assert_eq!(Value::from_code(u32::MAX), None);
        for distance in [0, 1] {
            let stand_in = Value::Decided {
                order: DERIVED_ORDER,
                distance,
            };
            assert_eq!(Value::from_code(stand_in.code()), Some(stand_in));
        }
    }

    #[test]
    fn ranks_order_values_for_the_mover() {
        let d = |distance| Value::Decided { order: 0, distance };
        let mut vs = vec![d(3), Value::Draw, d(0), d(1), d(8), d(2)];
        vs.sort_by_key(|v| std::cmp::Reverse(v.rank()));
        assert_eq!(vs, vec![d(1), d(3), Value::Draw, d(8), d(2), d(0)]);
    }
}
