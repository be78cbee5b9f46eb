//! Maximum move patterns of checking or chasing indefinitely (Fang, Section 3): Algorithm 1
//! (Definition 4), Algorithm 3's pruning, Algorithm 4 (non-mutual, Definition 6) and Algorithm 5
//! (totally non-mutual, Definition 7).
//!
//! A pattern is an induced subgraph (Theorems 1–3), so it is kept as two vertex sets: `wins`
//! (attacker to move) and `losses` (defender to move), with children counting (Section 6,
//! remark 3): each win keeps the number of its moves into `losses`, and a vertex leaves a set
//! at most once, visiting its predecessors once — each edge is visited at most once per pruning.

use super::graph::{outcome, Db, Edge, GameGraph, PieceId, Target, Vertex};
use super::set::VertexSet;
use super::tracked::Tracked;
use crate::piece::Color;
use crate::value::Outcome;
use std::collections::HashMap;

/// Where a pattern is looked for.
#[derive(Clone, Copy)]
pub enum Within<'a> {
    /// The whole graph under a database: the pattern's vertices are unknown ones, and a
    /// defender's moves to known vertices and out of the graph count (they must all be won by
    /// the attacker, Definition 4 condition 3).
    Graph(&'a Db),
    /// The subgraph induced by a set of unknown vertices: only moves between them exist (as in
    /// `G*(DB, G1, q)` of Algorithms 3–5, where `G1` is a pattern).
    Sub(&'a VertexSet),
}

impl Within<'_> {
    fn inside(&self, v: Vertex) -> bool {
        match self {
            Within::Graph(db) => db[v].is_none(),
            Within::Sub(set) => set.contains(v),
        }
    }

    /// May a defender's move to `v`, not inside, stay in a pattern? Only to a position won by
    /// the attacker in the whole graph; in a subgraph the move does not exist.
    fn outside_ok(&self, v: Vertex) -> bool {
        match self {
            Within::Graph(db) => outcome(db, v) == Some(Outcome::Win),
            Within::Sub(_) => true,
        }
    }

    /// May a defender's moves out of the graph stay in a pattern? Only if they all lose.
    fn exit_ok(&self, exit: Option<Outcome>) -> bool {
        match self {
            Within::Graph(_) => matches!(exit, None | Some(Outcome::Loss)),
            Within::Sub(_) => true,
        }
    }

    /// The candidates of one side to move.
    fn vertices<'b, G: GameGraph>(
        &'b self,
        g: &'b G,
        side: Color,
    ) -> Box<dyn Iterator<Item = Vertex> + 'b> {
        match self {
            Within::Graph(db) => Box::new(
                (0..g.vertex_count()).filter(move |&v| db[v].is_none() && g.side(v) == side),
            ),
            Within::Sub(set) => Box::new(set.iter().filter(move |&v| g.side(v) == side)),
        }
    }
}

/// A move pattern of checking or chasing indefinitely (Definition 4): the defender, to move in
/// `losses`, is forced to check (target `King`) or chase the attacker's piece `target` on every
/// move, or leave to a position the attacker wins.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// The side that forces the hits (and wins inside the pattern).
    pub attacker: Color,
    /// What the defender is forced to hit on every move: the attacker's king or one of its
    /// pieces.
    pub target: Target,
    /// The pattern's vertices with the attacker to move.
    pub wins: VertexSet,
    /// The pattern's vertices with the defender to move.
    pub losses: VertexSet,
    /// For each vertex of `wins`, its moves into `losses` (kept for the wins only: patterns
    /// are small next to the graph).
    into_losses: HashMap<Vertex, u32>,
}

impl Pattern {
    /// Has the pattern no vertex?
    pub fn is_empty(&self) -> bool {
        self.wins.is_empty() && self.losses.is_empty()
    }

    /// Every vertex of the pattern.
    pub fn members(&self) -> VertexSet {
        let mut all = self.wins.clone();
        all.union_with(&self.losses);
        all
    }

    /// Is `v` a vertex of the pattern (in `wins` or `losses`)?
    pub fn contains(&self, v: Vertex) -> bool {
        self.wins.contains(v) || self.losses.contains(v)
    }

    /// Removes `gone` and whatever no longer qualifies (Algorithm 3's pruning phase): a
    /// defender's position with a move to a removed one, an attacker's without a move left into
    /// `losses`.
    pub fn remove<G: GameGraph>(&mut self, g: &G, gone: impl IntoIterator<Item = Vertex>) {
        let mut frontier: Vec<Vertex> = gone
            .into_iter()
            .filter(|&v| self.wins.remove(v) || self.losses.remove(v))
            .collect();
        let mut preds = Vec::new();
        while let Some(x) = frontier.pop() {
            let was_loss = g.side(x) != self.attacker;
            preds.clear();
            g.predecessors(x, &mut preds);
            for &w in &preds {
                if was_loss && self.wins.contains(w) {
                    let count = self.into_losses.get_mut(&w).expect("every win is counted");
                    *count -= 1;
                    if *count == 0 {
                        self.into_losses.remove(&w);
                        self.wins.remove(w);
                        frontier.push(w);
                    }
                } else if !was_loss && self.losses.remove(w) {
                    frontier.push(w);
                }
            }
        }
    }
}

/// Algorithm 1: the maximum move pattern `G*(DB, G, p)` in which `attacker` forces the other
/// side to hit `target` (a piece of `attacker`, or its king) on every move.
///
/// Initialisation: the loss candidates are the defender's positions whose every move is a hit
/// staying inside or a move to a position the attacker wins, with at least one move inside
/// (Definition 4, condition 5; the pseudo-code leaves it to the database being propagated); the
/// win candidates are their predecessors inside, each with its count of moves into them.
/// Pruning: loss candidates with a move inside to a non-candidate go, then [`Pattern::remove`].
pub fn max_pattern<G: GameGraph>(
    g: &G,
    within: Within,
    attacker: Color,
    target: Target,
) -> Pattern {
    let n = g.vertex_count();
    let mut pattern = Pattern {
        attacker,
        target,
        wins: VertexSet::new(n),
        losses: VertexSet::new(n),
        into_losses: HashMap::new(),
    };
    let mut edges = Vec::new();
    for u in within.vertices(g, !attacker) {
        edges.clear();
        g.successors(u, &mut edges);
        if loss_candidate(g, &within, u, &edges, target) {
            pattern.losses.insert(u);
        }
    }
    let mut preds = Vec::new();
    for u in pattern.losses.iter() {
        preds.clear();
        g.predecessors(u, &mut preds);
        for &w in preds.iter().filter(|&&w| within.inside(w)) {
            pattern.wins.insert(w);
            *pattern.into_losses.entry(w).or_insert(0) += 1;
        }
    }
    let unfit: Vec<Vertex> = pattern
        .losses
        .iter()
        .filter(|&u| {
            edges.clear();
            g.successors(u, &mut edges);
            edges
                .iter()
                .any(|e| within.inside(e.to) && !pattern.wins.contains(e.to))
        })
        .collect();
    pattern.remove(g, unfit);
    pattern
}

/// Is the defender's position `u` (moves `edges`) a loss candidate of Algorithm 1?
fn loss_candidate<G: GameGraph>(
    g: &G,
    within: &Within,
    u: Vertex,
    edges: &[Edge],
    target: Target,
) -> bool {
    let mut inside = 0;
    for e in edges {
        if within.inside(e.to) {
            if !e.hits(target) {
                return false;
            }
            inside += 1;
        } else if !within.outside_ok(e.to) {
            return false;
        }
    }
    inside > 0 && within.exit_ok(g.exit(u))
}

/// Algorithm 3, `G†(DB, G1, q)`: removes from `pattern` the positions where its defender can
/// force its attacker to hit `q` (a piece of the defender, or its king) indefinitely inside it,
/// and what no longer qualifies. Returns whether anything was removed. A `q` with a twin is
/// followed through the moves ([`Tracked`]): the positions removed are those where either
/// identity can be forced.
pub fn exclude<G: GameGraph>(g: &G, pattern: &mut Pattern, q: Target) -> bool {
    let inside = pattern.members();
    let forced = match q {
        Target::Piece(piece) => match Tracked::new(g, piece) {
            Some(tracked) => {
                let n = g.vertex_count();
                let lifted = Tracked::<G>::lift_set(&inside, n);
                let inner = max_pattern(&tracked, Within::Sub(&lifted), !pattern.attacker, q);
                Tracked::<G>::project_set(&inner.members(), n)
            }
            None => max_pattern(g, Within::Sub(&inside), !pattern.attacker, q).members(),
        },
        Target::King => max_pattern(g, Within::Sub(&inside), !pattern.attacker, q).members(),
    };
    if forced.is_empty() {
        return false;
    }
    pattern.remove(g, forced.iter());
    true
}

/// The targets of one side a pattern must be checked against: its king and its pieces, one
/// of each pair of twins (the tracked one stands for both).
pub fn targets<G: GameGraph>(g: &G, owner: Color) -> Vec<Target> {
    let pieces = g.pieces(owner);
    std::iter::once(Target::King)
        .chain(
            pieces
                .iter()
                .filter(|&p| g.twin(p).is_none_or(|t| p < t || !pieces.contains(t)))
                .map(Target::Piece),
        )
        .collect()
}

/// Algorithm 4: the maximum pattern of non-mutual checking/chasing `G†*(DB, G, p, q)`:
/// `attacker` forces the defender to hit `p`, and the defender cannot force it to hit `q`
/// indefinitely inside.
pub fn non_mutual<G: GameGraph>(g: &G, db: &Db, attacker: Color, p: Target, q: Target) -> Pattern {
    let mut pattern = max_pattern(g, Within::Graph(db), attacker, p);
    while !pattern.is_empty() && exclude(g, &mut pattern, q) {}
    pattern
}

/// Algorithm 5: the maximum pattern of totally non-mutual checking/chasing `G†*(DB, G, p)`:
/// as [`non_mutual`] against every piece of the defender, its king included, until none
/// prunes (the result does not depend on their order, Lemma 10). `p` must not have a twin in
/// `g` (follow it with [`Tracked`] first: [`chase_pattern`]).
pub fn totally_non_mutual<G: GameGraph>(g: &G, db: &Db, attacker: Color, p: Target) -> Pattern {
    let mut pattern = max_pattern(g, Within::Graph(db), attacker, p);
    let defender_targets = targets(g, !attacker);
    loop {
        let mut pruned = false;
        for &q in &defender_targets {
            if pattern.is_empty() {
                return pattern;
            }
            pruned |= exclude(g, &mut pattern, q);
        }
        if !pruned {
            return pattern;
        }
    }
}

/// The positions of Algorithm 5's pattern for the attacker's piece `p` (followed through the
/// moves if it has a twin): its wins and its losses, as vertices of `g`.
pub fn chase_pattern<G: GameGraph>(g: &G, db: &Db, attacker: Color, p: PieceId) -> Pattern {
    let Some(tracked) = Tracked::new(g, p) else {
        return totally_non_mutual(g, db, attacker, Target::Piece(p));
    };
    let n = g.vertex_count();
    let lifted = Tracked::<G>::lift_db(db);
    let inner = totally_non_mutual(&tracked, &lifted, attacker, Target::Piece(p));
    let mut pattern = Pattern {
        attacker,
        target: Target::Piece(p),
        wins: Tracked::<G>::project_set(&inner.wins, n),
        losses: Tracked::<G>::project_set(&inner.losses, n),
        into_losses: HashMap::new(),
    };
    let mut edges = Vec::new();
    for w in pattern.wins.iter() {
        edges.clear();
        g.successors(w, &mut edges);
        let into = edges
            .iter()
            .filter(|e| pattern.losses.contains(e.to))
            .count();
        pattern.into_losses.insert(w, into as u32);
    }
    pattern
}
