//! The generic game graph Fang's algorithms run on (Section 2.2): a directed bipartite graph of
//! positions, each move labelled with `check((u, v))` and the set of pieces `p` with
//! `chase((u, v), p)`; moves that leave the graph (captures into supporting tables) are summed
//! up per vertex as the best outcome they give the mover (Section 5.3: distance to conversion).

use crate::piece::Color;
use crate::value::{Outcome, Value};

/// A vertex: a dense number `0..vertex_count()`.
pub type Vertex = usize;

/// A chaseable piece other than a king, numbered by the graph (`0..32`). Each number belongs to
/// one side for the whole graph: a piece, not a kind (Fang, Section 2.2, rule 32).
pub type PieceId = u8;

/// The largest number of pieces a graph may number.
pub const MAX_PIECES: usize = 32;

/// A set of pieces, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PieceSet(
    /// Bit `p` set: piece `p` is in the set.
    pub u32,
);

impl PieceSet {
    /// The set of no pieces.
    pub const EMPTY: PieceSet = PieceSet(0);

    /// Is `p` in the set? (False for numbers at or past [`MAX_PIECES`].)
    pub fn contains(self, p: PieceId) -> bool {
        (p as usize) < MAX_PIECES && self.0 >> p & 1 == 1
    }

    /// The set with `p` added (`p` must be below [`MAX_PIECES`]).
    pub fn with(self, p: PieceId) -> PieceSet {
        debug_assert!((p as usize) < MAX_PIECES);
        PieceSet(self.0 | 1 << p)
    }

    /// The set with `p` removed (unchanged for numbers at or past [`MAX_PIECES`]).
    pub fn without(self, p: PieceId) -> PieceSet {
        PieceSet(self.0 & !(1u32.checked_shl(p as u32).unwrap_or(0)))
    }

    /// The pieces in the set, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = PieceId> {
        (0..MAX_PIECES as u8).filter(move |&p| self.contains(p))
    }
}

/// What a pattern's defender is forced to do on every move: check the attacker's king, or
/// chase one of the attacker's pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Checking the attacker's king.
    King,
    /// Chasing this piece of the attacker's.
    Piece(PieceId),
}

/// A move inside the graph, with its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The vertex the move leads to.
    pub to: Vertex,
    /// `check((u, v))`: the move gives check.
    pub check: bool,
    /// The pieces `p` with `chase((u, v), p)`: the move is a forbidden chase of `p`, numbered
    /// as in `u` (it matters only for twins).
    pub chases: PieceSet,
    /// Pairs of identical pieces ([`GameGraph::twin`]) whose numbers trade places over this
    /// move: the piece numbered `p` in `u` is numbered `twin(p)` in `v` (both of a pair are in
    /// the set). Empty where no piece has a twin.
    pub swaps: PieceSet,
}

impl Edge {
    /// Is this move a check (target `King`) or a forbidden chase of the target piece?
    pub fn hits(&self, target: Target) -> bool {
        match target {
            Target::King => self.check,
            Target::Piece(p) => self.chases.contains(p),
        }
    }
}

/// A game graph: a fully-extended subgraph of the game (Section 2.2) whose moves out of it are
/// summed up by [`GameGraph::exit`].
pub trait GameGraph {
    /// The number of vertices: they are numbered `0..vertex_count()`.
    fn vertex_count(&self) -> usize;

    /// The side to move in `u`.
    fn side(&self, u: Vertex) -> Color;

    /// The best outcome, for the side to move in `u`, of its moves that leave the graph (whose
    /// values are known), or `None` if it has none. A position without moves is a loss.
    fn exit(&self, u: Vertex) -> Option<Outcome>;

    /// Appends the moves from `u` inside the graph to `out`.
    fn successors(&self, u: Vertex, out: &mut Vec<Edge>);

    /// The number of moves from `u` inside the graph (what [`GameGraph::successors`] appends;
    /// a graph whose labels are costly answers without computing them).
    fn move_count(&self, u: Vertex) -> usize {
        let mut out = Vec::new();
        self.successors(u, &mut out);
        out.len()
    }

    /// Appends the sources of the moves into `v`, one per move (a vertex with two moves into
    /// `v` appears twice).
    fn predecessors(&self, v: Vertex, out: &mut Vec<Vertex>);

    /// The chaseable pieces (not the king) of `owner`.
    fn pieces(&self, owner: Color) -> PieceSet;

    /// The other piece of `p`'s pair of identical pieces, if `p` has one. A position does not
    /// tell the two apart, so their numbers are slots (say, by point) that a move may trade
    /// ([`Edge::swaps`]); patterns follow the piece with [`super::tracked::Tracked`].
    fn twin(&self, _p: PieceId) -> Option<PieceId> {
        None
    }

    /// Appends the sources of the moves into `v` with each move's [`Edge::swaps`], one per move
    /// (as [`GameGraph::predecessors`]).
    fn predecessor_swaps(&self, v: Vertex, out: &mut Vec<(Vertex, PieceSet)>) {
        let mut preds = Vec::new();
        self.predecessors(v, &mut preds);
        out.extend(preds.into_iter().map(|u| (u, PieceSet::EMPTY)));
    }
}

/// A database: the value of every vertex as far as known (`None`: unknown), Fang's
/// win-draw-loss-unknown database (Definition 3) carrying the (order, distance) of Definition 8.
pub type Db = Vec<Option<Value>>;

/// `f(DB(v))` of Definition 8: the outcome for the side to move, `None` while unknown.
pub fn outcome(db: &Db, v: Vertex) -> Option<Outcome> {
    db[v].map(Value::outcome)
}
