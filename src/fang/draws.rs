//! Algorithm 7 (Fang, Section 4.2): marking draws with propagation, and the seed draws it
//! starts from.

use super::graph::{outcome, Db, GameGraph, Vertex};
use crate::value::{Outcome, Value};

/// The terminal draws (Section 4.2): unknown positions whose every move leads to a draw or a
/// win for the opponent, one at least to a draw (in a table, a capture into a drawn supporting
/// position). A valid set of seed draws when the database is semi-fully-propagated.
pub fn terminal_draws<G: GameGraph>(g: &G, db: &Db) -> Vec<Vertex> {
    let mut edges = Vec::new();
    (0..g.vertex_count())
        .filter(|&u| {
            if db[u].is_some() {
                return false;
            }
            edges.clear();
            g.successors(u, &mut edges);
            let drawn_child = edges.iter().any(|e| db[e.to] == Some(Value::Draw));
            let exit = g.exit(u);
            let all_draw_or_win = edges
                .iter()
                .all(|e| matches!(outcome(db, e.to), Some(Outcome::Draw | Outcome::Win)))
                && matches!(exit, None | Some(Outcome::Loss | Outcome::Draw));
            all_draw_or_win && (drawn_child || exit == Some(Outcome::Draw))
        })
        .collect()
}

/// Algorithm 7, `SetDraws`: marks the valid seed draws `seeds` and every unknown position whose
/// moves all lead to draws or to wins for the opponent, as they appear. Children counting:
/// each unknown position counts its moves to unknown (or lost) children, and every new draw
/// decrements its predecessors once per move. Returns the number of positions marked.
pub fn set_draws<G: GameGraph>(
    g: &G,
    db: &mut Db,
    seeds: impl IntoIterator<Item = Vertex>,
) -> usize {
    let n = g.vertex_count();
    let mut open = vec![0u32; n];
    let mut edges = Vec::new();
    for u in (0..n).filter(|&u| db[u].is_none()) {
        edges.clear();
        g.successors(u, &mut edges);
        open[u] = edges
            .iter()
            .filter(|e| !matches!(outcome(db, e.to), Some(Outcome::Draw | Outcome::Win)))
            .count() as u32;
    }
    let mut frontier: Vec<Vertex> = seeds.into_iter().filter(|&u| db[u].is_none()).collect();
    frontier.sort_unstable();
    frontier.dedup();
    for &u in &frontier {
        db[u] = Some(Value::Draw);
    }
    let mut marked = frontier.len();
    let mut preds = Vec::new();
    while let Some(x) = frontier.pop() {
        preds.clear();
        g.predecessors(x, &mut preds);
        for &v in &preds {
            if db[v].is_none() {
                open[v] -= 1;
                if open[v] == 0 {
                    db[v] = Some(Value::Draw);
                    marked += 1;
                    frontier.push(v);
                }
            }
        }
    }
    marked
}
