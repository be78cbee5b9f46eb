//! The retrograde engine shared by the builder and `verify`: the game graph of a material's
//! index entries, bitmaps of entries, the Xiangqi labels of Fang's patterns, the maximum
//! patterns over bitmaps and the order stage; and the in-memory reference driver that runs
//! Fang's algorithms ([`crate::fang`]) on a whole material.
//!
//! - [`graph`]: entries, quiet moves and captures, predecessors (retro moves), mirror folding;
//! - [`bitmap`]: one bit per entry, shared between threads;
//! - [`numbering`]: how a material's pieces are numbered for the labels, and a move's labels;
//! - [`candidates`], [`pattern`]: Fang's Algorithms 1, 3, 4 and 5 over bitmaps;
//! - [`orders`]: the order stage (Algorithm 8): the next order's seeds from the patterns;
//! - [`reference`](mod@reference): the in-memory driver, a reference for small materials;
//! - [`progress`]: the `Progress` trait (presentation stays out of the library).
//!
//! This layer imports the rules core and [`crate::fang`], never the builder or `verify`.

pub mod bitmap;
pub mod candidates;
pub mod graph;
pub mod numbering;
pub mod orders;
pub mod pattern;
pub mod progress;
pub mod reference;
pub mod slice;

pub use bitmap::Bitmap;
pub use graph::Graph;
pub use orders::RuleState;
pub use progress::{FamilyStatus, Progress, Silent};
