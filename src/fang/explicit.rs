//! A small game graph held as explicit adjacency lists, for tests and worked examples.

use super::graph::{Edge, GameGraph, PieceId, PieceSet, Target, Vertex, MAX_PIECES};
use crate::piece::Color;
use crate::value::Outcome;
use thiserror::Error;

/// Why an explicit graph was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GraphError {
    /// A move names a vertex that has not been added.
    #[error("move {from} -> {to}: vertex {to} does not exist")]
    NoSuchVertex {
        /// The move's source.
        from: Vertex,
        /// The vertex that does not exist (the source if that one is missing).
        to: Vertex,
    },
    /// A move joins two vertices with the same side to move (the graph must be bipartite).
    #[error("move {from} -> {to} joins two vertices with the same side to move")]
    NotBipartite {
        /// The move's source.
        from: Vertex,
        /// The move's destination.
        to: Vertex,
    },
    /// A piece number at or past [`MAX_PIECES`] (or more pieces than that in all).
    #[error("piece {piece} is numbered past the limit of {MAX_PIECES}")]
    PieceOutOfRange {
        /// The offending piece number.
        piece: PieceId,
    },
    /// A move chases a piece that does not belong to the side not to move in its source.
    #[error("move {from} -> {to} chases piece {piece}, which is not the other side's")]
    WrongOwner {
        /// The move's source.
        from: Vertex,
        /// The move's destination.
        to: Vertex,
        /// The chased piece.
        piece: PieceId,
    },
    /// Two pieces that cannot be declared twins: the same piece, pieces of different sides (or
    /// of none), or a piece that already has a twin.
    #[error(
        "pieces {a} and {b} cannot be twins: not two distinct pieces of one side without twins"
    )]
    BadTwins {
        /// The first piece named.
        a: PieceId,
        /// The second piece named.
        b: PieceId,
    },
    /// A move swaps a piece that has no twin.
    #[error("move {from} -> {to} swaps piece {piece}, which has no twin")]
    NoTwin {
        /// The move's source.
        from: Vertex,
        /// The move's destination.
        to: Vertex,
        /// The piece without a twin.
        piece: PieceId,
    },
}

/// An explicit game graph. Build it with [`ExplicitGraph::new`], [`ExplicitGraph::add_vertex`]
/// and [`ExplicitGraph::add_move`].
#[derive(Clone, Debug, Default)]
pub struct ExplicitGraph {
    sides: Vec<Color>,
    exits: Vec<Option<Outcome>>,
    succ: Vec<Vec<Edge>>,
    pred: Vec<Vec<(Vertex, PieceSet)>>,
    owners: [PieceSet; 2],
    twins: [Option<PieceId>; MAX_PIECES],
}

impl ExplicitGraph {
    /// An empty graph whose pieces `0..red` are Red's and `red..red + black` Black's.
    pub fn new(red: u8, black: u8) -> Result<ExplicitGraph, GraphError> {
        let total = red as usize + black as usize;
        if total > MAX_PIECES {
            return Err(GraphError::PieceOutOfRange {
                piece: total as PieceId - 1,
            });
        }
        let range = |a: u8, b: u8| (a..b).fold(PieceSet::EMPTY, PieceSet::with);
        Ok(ExplicitGraph {
            owners: [range(0, red), range(red, red + black)],
            twins: [None; MAX_PIECES],
            ..ExplicitGraph::default()
        })
    }

    /// Adds a vertex with `side` to move and the best outcome of its moves out of the graph.
    pub fn add_vertex(&mut self, side: Color, exit: Option<Outcome>) -> Vertex {
        self.sides.push(side);
        self.exits.push(exit);
        self.succ.push(Vec::new());
        self.pred.push(Vec::new());
        self.sides.len() - 1
    }

    /// Declares pieces `a` and `b` (of one side) identical twins.
    pub fn set_twins(&mut self, a: PieceId, b: PieceId) -> Result<(), GraphError> {
        let owner = |p: PieceId| self.owners.iter().position(|o| o.contains(p));
        let free = |p: PieceId| self.twins.get(p as usize) == Some(&None);
        if a == b || owner(a).is_none() || owner(a) != owner(b) || !free(a) || !free(b) {
            return Err(GraphError::BadTwins { a, b });
        }
        self.twins[a as usize] = Some(b);
        self.twins[b as usize] = Some(a);
        Ok(())
    }

    /// Adds the move `from → to` giving check if `check`, and chasing `chases` (pieces of the
    /// side not to move in `from`).
    pub fn add_move(
        &mut self,
        from: Vertex,
        to: Vertex,
        check: bool,
        chases: &[PieceId],
    ) -> Result<(), GraphError> {
        self.add_move_swapping(from, to, check, chases, &[])
    }

    /// [`ExplicitGraph::add_move`] for a move over which each twin pair of `swaps` (one piece
    /// of each pair named) trades numbers.
    pub fn add_move_swapping(
        &mut self,
        from: Vertex,
        to: Vertex,
        check: bool,
        chases: &[PieceId],
        swaps: &[PieceId],
    ) -> Result<(), GraphError> {
        let n = self.sides.len();
        if from >= n || to >= n {
            return Err(GraphError::NoSuchVertex {
                from,
                to: if from >= n { from } else { to },
            });
        }
        if self.sides[from] == self.sides[to] {
            return Err(GraphError::NotBipartite { from, to });
        }
        let mut set = PieceSet::EMPTY;
        for &piece in chases {
            if piece as usize >= MAX_PIECES {
                return Err(GraphError::PieceOutOfRange { piece });
            }
            if !self.owners[self.sides[to].index()].contains(piece) {
                return Err(GraphError::WrongOwner { from, to, piece });
            }
            set = set.with(piece);
        }
        let mut swapped = PieceSet::EMPTY;
        for &piece in swaps {
            let twin = self.twins.get(piece as usize).copied().flatten();
            let twin = twin.ok_or(GraphError::NoTwin { from, to, piece })?;
            swapped = swapped.with(piece).with(twin);
        }
        self.succ[from].push(Edge {
            to,
            check,
            chases: set,
            swaps: swapped,
        });
        self.pred[to].push((from, swapped));
        Ok(())
    }

    /// The moves from `u`.
    pub fn edges(&self, u: Vertex) -> &[Edge] {
        &self.succ[u]
    }

    /// Does some move `u → v` hit `target`?
    pub fn hits(&self, u: Vertex, v: Vertex, target: Target) -> bool {
        self.succ[u].iter().any(|e| e.to == v && e.hits(target))
    }
}

impl GameGraph for ExplicitGraph {
    fn vertex_count(&self) -> usize {
        self.sides.len()
    }

    fn side(&self, u: Vertex) -> Color {
        self.sides[u]
    }

    fn exit(&self, u: Vertex) -> Option<Outcome> {
        self.exits[u]
    }

    fn successors(&self, u: Vertex, out: &mut Vec<Edge>) {
        out.extend_from_slice(&self.succ[u]);
    }

    fn predecessors(&self, v: Vertex, out: &mut Vec<Vertex>) {
        out.extend(self.pred[v].iter().map(|&(u, _)| u));
    }

    fn predecessor_swaps(&self, v: Vertex, out: &mut Vec<(Vertex, PieceSet)>) {
        out.extend_from_slice(&self.pred[v]);
    }

    fn twin(&self, p: PieceId) -> Option<PieceId> {
        self.twins.get(p as usize).copied().flatten()
    }

    fn pieces(&self, owner: Color) -> PieceSet {
        self.owners[owner.index()]
    }
}
