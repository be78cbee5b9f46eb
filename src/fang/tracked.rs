//! Following one of two identical pieces through the moves (`formats/rules.md`, "Identical
//! pieces"): the product of a graph with the slot of the tracked piece.
//!
//! A pattern is per chased piece (Fang, Section 2.2, rule 32), but where a side has two pieces of
//! one kind a position does not say which is which: the graph numbers them as slots, and a move
//! may trade the slots ([`Edge::swaps`]). The tracked graph's vertices are pairs (vertex, slot):
//! slot 0 follows the piece numbered `piece` in the vertex, slot 1 the one numbered its twin. A
//! move carries the slot over (trading it where the move swaps the pair), and chases the tracked
//! piece when it chases the piece in that slot. Patterns for `piece` in this graph are, at once,
//! the patterns of either identity; projected to vertices they are what Algorithm 6 unites.

use super::graph::{Db, Edge, GameGraph, PieceId, PieceSet, Vertex};
use super::set::VertexSet;
use crate::piece::Color;
use crate::value::Outcome;

/// `g` with one of the twins `piece`, `twin` followed. In it the tracked piece is numbered
/// `piece`; `twin` no longer exists.
pub struct Tracked<'g, G: GameGraph> {
    g: &'g G,
    piece: PieceId,
    twin: PieceId,
}

impl<'g, G: GameGraph> Tracked<'g, G> {
    /// `None` if `piece` has no twin in `g`.
    pub fn new(g: &'g G, piece: PieceId) -> Option<Tracked<'g, G>> {
        let twin = g.twin(piece)?;
        Some(Tracked { g, piece, twin })
    }

    /// The tracked vertex of `u` following the piece in `slot` (0: `piece`, 1: its twin).
    pub fn vertex(u: Vertex, slot: usize) -> Vertex {
        2 * u + slot
    }

    /// The vertex of `g` a tracked vertex stands for.
    pub fn project(v: Vertex) -> Vertex {
        v / 2
    }

    /// The database of `g` on the tracked vertices.
    pub fn lift_db(db: &Db) -> Db {
        db.iter().flat_map(|&v| [v, v]).collect()
    }

    /// The tracked vertices standing for the members of `set` (a set over `n` vertices).
    pub fn lift_set(set: &VertexSet, n: usize) -> VertexSet {
        let mut out = VertexSet::new(2 * n);
        for u in set.iter() {
            out.insert(Self::vertex(u, 0));
            out.insert(Self::vertex(u, 1));
        }
        out
    }

    /// The vertices of `g` standing for the members of `set` (tracked vertices), over `n`.
    pub fn project_set(set: &VertexSet, n: usize) -> VertexSet {
        let mut out = VertexSet::new(n);
        for v in set.iter() {
            out.insert(Self::project(v));
        }
        out
    }

    /// The slot a move carries the piece in `slot` to.
    fn carried(&self, slot: usize, swaps: PieceSet) -> usize {
        if swaps.contains(self.piece) {
            1 - slot
        } else {
            slot
        }
    }

    /// The piece number in `g` of a slot.
    fn number(&self, slot: usize) -> PieceId {
        if slot == 0 {
            self.piece
        } else {
            self.twin
        }
    }

    /// Labels seen from the tracked piece: it is chased if its slot's piece is; the pair
    /// leaves the other sets.
    fn relabel(&self, e: &Edge, slot: usize) -> Edge {
        let pair = |set: PieceSet| set.without(self.piece).without(self.twin);
        let chases = if e.chases.contains(self.number(slot)) {
            pair(e.chases).with(self.piece)
        } else {
            pair(e.chases)
        };
        Edge {
            to: Self::vertex(e.to, self.carried(slot, e.swaps)),
            check: e.check,
            chases,
            swaps: pair(e.swaps),
        }
    }
}

impl<G: GameGraph> GameGraph for Tracked<'_, G> {
    fn vertex_count(&self) -> usize {
        2 * self.g.vertex_count()
    }

    fn side(&self, v: Vertex) -> Color {
        self.g.side(Self::project(v))
    }

    fn exit(&self, v: Vertex) -> Option<Outcome> {
        self.g.exit(Self::project(v))
    }

    fn successors(&self, v: Vertex, out: &mut Vec<Edge>) {
        let mut base = Vec::new();
        self.g.successors(Self::project(v), &mut base);
        out.extend(base.iter().map(|e| self.relabel(e, v % 2)));
    }

    fn move_count(&self, v: Vertex) -> usize {
        self.g.move_count(Self::project(v))
    }

    fn predecessors(&self, v: Vertex, out: &mut Vec<Vertex>) {
        let mut with = Vec::new();
        self.predecessor_swaps(v, &mut with);
        out.extend(with.into_iter().map(|(u, _)| u));
    }

    fn predecessor_swaps(&self, v: Vertex, out: &mut Vec<(Vertex, PieceSet)>) {
        let mut base = Vec::new();
        self.g.predecessor_swaps(Self::project(v), &mut base);
        let pair = |set: PieceSet| set.without(self.piece).without(self.twin);
        // The slot in the predecessor whose piece this move carries to `v`'s slot.
        out.extend(
            base.into_iter()
                .map(|(u, swaps)| (Self::vertex(u, self.carried(v % 2, swaps)), pair(swaps))),
        );
    }

    fn pieces(&self, owner: Color) -> PieceSet {
        self.g.pieces(owner).without(self.twin)
    }

    fn twin(&self, p: PieceId) -> Option<PieceId> {
        (p != self.piece && p != self.twin)
            .then(|| self.g.twin(p))
            .flatten()
    }
}
