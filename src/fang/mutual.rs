//! Algorithm 2: the maximum move pattern of mutual checking/chasing indefinitely
//! `G*(DB, G, p, q)` (Fang, Definition 5), in which both sides are forced to hit on every move.

use super::graph::{outcome, Db, GameGraph, Target, Vertex};
use super::set::VertexSet;
use crate::piece::Color;
use crate::value::Outcome;

/// The vertices of the maximum mutual pattern: every move of Red inside hits `red_hits` (a piece
/// of Black, or Black's king), every move of Black hits `black_hits` (Red's), and neither side can
/// leave but to a position the other wins (Definition 5). An induced subgraph (Lemma 3): each
/// vertex needs all its unknown children in the set, so a vertex that leaves removes all its
/// predecessors in the set.
pub fn mutual_pattern<G: GameGraph>(
    g: &G,
    db: &Db,
    red_hits: Target,
    black_hits: Target,
) -> VertexSet {
    let n = g.vertex_count();
    let mut set = VertexSet::new(n);
    let mut edges = Vec::new();
    for u in (0..n).filter(|&u| db[u].is_none()) {
        let target = match g.side(u) {
            Color::Red => red_hits,
            Color::Black => black_hits,
        };
        edges.clear();
        g.successors(u, &mut edges);
        let mut unknown = 0;
        let fits = edges.iter().all(|e| match outcome(db, e.to) {
            None => {
                unknown += 1;
                e.hits(target)
            }
            Some(o) => o == Outcome::Win,
        });
        if fits && unknown > 0 && matches!(g.exit(u), None | Some(Outcome::Loss)) {
            set.insert(u);
        }
    }
    let mut frontier: Vec<Vertex> = set
        .iter()
        .filter(|&u| {
            edges.clear();
            g.successors(u, &mut edges);
            edges
                .iter()
                .any(|e| db[e.to].is_none() && !set.contains(e.to))
        })
        .collect();
    frontier.retain(|&u| set.remove(u));
    let mut preds = Vec::new();
    while let Some(x) = frontier.pop() {
        preds.clear();
        g.predecessors(x, &mut preds);
        for &w in &preds {
            if set.remove(w) {
                frontier.push(w);
            }
        }
    }
    set
}
