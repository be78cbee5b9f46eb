//! Fang's algorithms for complete tables under the Asian rules ("The Nature of Retrograde
//! Analysis for Chinese Chess", Fang 2005), in memory, over a generic game graph
//! ([`GameGraph`]: positions, moves both ways, exits, `check` and `chase` labels).
//!
//! - [`pattern`]: Algorithm 1 (maximum pattern of checking/chasing a piece indefinitely), 3
//!   (excluding mutual checking/chasing), 4 (non-mutual) and 5 (totally non-mutual);
//! - [`mutual`]: Algorithm 2 (mutual patterns);
//! - [`draws`]: Algorithm 7 (draws with propagation);
//! - [`levels`]: Algorithms 6 and 8 (orders and distances; Definitions 8–9);
//! - [`tracked`]: following one of two identical pieces;
//!
//! The Xiangqi driver over a material's positions (small materials; a reference for the
//! out-of-core port) is `retro::reference`.
//!
//! # As passes over a chunked store
//!
//! Every algorithm is written as rounds over per-vertex marks (bit sets) and counters, driven by
//! a frontier, so that each round is one pass of the out-of-core framework (scan a frontier →
//! route updates to predecessors → apply):
//!
//! - **Propagation** (Algorithm 8, [`levels`]): one pass per ply. The frontier is the entries
//!   resolved at the previous ply; a lost entry marks its unknown predecessors won; a won entry
//!   decrements its unknown predecessors' counts of open children, the last one making them
//!   lost. Counts are set once (initialisation) and survive all orders.
//! - **Algorithm 1** ([`pattern::max_pattern`]): (1) a scan pass over the defender's unknown
//!   entries (forward moves with their check/chase labels) marks the loss candidates `L`;
//!   (2) a pass over `L`'s predecessors marks the win candidates `W` and counts, per win
//!   candidate, its moves into `L`; (3) a scan pass over `L` (forward moves) finds candidates
//!   with a move to an unknown entry outside `W`: the first frontier; (4) frontier passes: an
//!   entry leaving `L` decrements its predecessors' counts in `W` (zero: it leaves `W`), an
//!   entry leaving `W` removes its predecessors from `L`. Each edge is visited at most once per
//!   pruning (Section 6, remark 3).
//! - **Algorithm 3** ([`pattern::exclude`]): Algorithm 1 again inside the pattern (the pattern's
//!   marks are the subgraph; moves leaving it are ignored), then its vertices are the frontier
//!   of step (4) on the outer pattern's marks and counts.
//! - **Algorithms 4 and 5**: repeat Algorithm 3 (for the other king; for the other side's king
//!   and every piece) until a round removes nothing.
//! - **Algorithm 2** ([`mutual::mutual_pattern`]): a scan pass marks candidates of both sides;
//!   a scan pass finds those with an unknown child outside; frontier passes remove their
//!   predecessors.
//! - **Algorithm 7** ([`draws::set_draws`]): a scan pass counts each unknown entry's moves to
//!   entries that are neither drawn nor won; frontier passes from the seed draws decrement them,
//!   zero making a draw.
//! - **Orders** ([`levels::solve`]): after each propagation, the non-mutual checking patterns of
//!   both sides (or, if empty, the totally non-mutual chasing patterns of every piece) are
//!   computed; the union of their losses seeds the next order at distance 0.
//!
//! Porting notes: the labels (`crate::chase`) are needed only for the moves of unknown entries
//! and cost far more than a move (each a few legality tests): compute them in the scan passes of
//! Algorithm 1, where the moves are in hand. A pattern is a pure function of the database, so a
//! checkpoint at the start of a pattern phase suffices (the marks and counters can also be
//! checkpointed at pass boundaries). The win counters need a byte (moves into `L` ≤ quiet moves).
//! The children counts of the propagation survive every order.
//!
//! A pattern is per chased *piece* (Section 2.2, rule 32): labels name pieces by
//! [`graph::PieceId`], and a piece with an identical twin is followed through the moves by
//! [`tracked::Tracked`], a product of the graph with the tracked piece's slot: the same passes
//! over (entry, slot) marks (`formats/rules.md`, "Identical pieces").

pub mod draws;
pub mod explicit;
pub mod graph;
pub mod levels;
pub mod mutual;
pub mod pattern;
pub mod set;
pub mod tracked;

pub use explicit::{ExplicitGraph, GraphError};
pub use graph::{outcome, Db, Edge, GameGraph, PieceId, PieceSet, Target, Vertex};
pub use levels::{solve, Level, LevelKind, Options, Rules, Solution, SolveError};
pub use pattern::{
    chase_pattern, exclude, max_pattern, non_mutual, totally_non_mutual, Pattern, Within,
};
pub use set::VertexSet;
pub use tracked::Tracked;
