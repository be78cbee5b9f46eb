//! Partial information under distance to mate. A capture does not end the count in DTM, so a
//! withheld table's captures stand in with the extreme *values*, not just outcomes: in the build
//! best for Red every capture into a withheld table is a mate at once for Red (the child lost at
//! distance 0 if Black moves there, won at distance 1 if Red does), and the reverse in the build
//! best for Black (`formats/partial.md` §9).
//!
//! Here exits out of a game graph carry distances: an exit to a child of value `(0, d)` is a
//! chain of `d` forced, unlabelled moves to a mate, added to the graph, so the plain reference
//! implementation of Fang's algorithms (`fang_reference.rs`) gives the DTM values of
//! `formats/dtm.md` for exits of the mates' level. For every assignment of draw or a distance to
//! up to three withheld exits, every vertex's value is compared with the two extreme builds'.

use crate::fang_graphs::random_graph;
use crate::fang_reference as reference;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::{Graph, Mv, Res, Rules, Val};

/// A child outside the graph, for its side to move: a draw, or a mate in `d` plies (won if `d`
/// is odd).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    Draw,
    Mate(u32),
}

/// `g` without its exits, with `exits` added: a draw as a drawn child outside, a mate in `d` as
/// a chain of `d` forced moves (no check, no chase) ending in a position without moves.
fn with_exits(g: &Graph, exits: &[(usize, Exit)]) -> Graph {
    let mut out = Graph {
        outside: vec![Vec::new(); g.n()],
        ..g.clone()
    };
    for &(u, exit) in exits {
        match exit {
            Exit::Draw => out.outside[u].push(Res::Draw),
            Exit::Mate(d) => {
                let (mut from, mut red) = (u, !g.red[u]);
                for _ in 0..=d {
                    let v = out.n();
                    out.red.push(red);
                    out.moves.push(Vec::new());
                    out.outside.push(Vec::new());
                    out.moves[from].push(Mv {
                        to: v,
                        check: false,
                        chases: Vec::new(),
                    });
                    (from, red) = (v, !red);
                }
            }
        }
    }
    out
}

/// A random graph's exits given random distances of their outcome's parity, and up to three
/// vertices with a withheld exit each.
fn random_case(rng: &mut ChaCha8Rng) -> (Graph, Vec<(usize, Exit)>, Vec<usize>) {
    let g = random_graph(rng, 2..=12);
    let mut exits = Vec::new();
    for u in 0..g.n() {
        for &r in &g.outside[u] {
            let exit = match r {
                Res::Draw => Exit::Draw,
                Res::Loss => Exit::Mate(2 * rng.gen_range(0..=2)),
                Res::Win => Exit::Mate(2 * rng.gen_range(0..=2) + 1),
            };
            exits.push((u, exit));
        }
    }
    let k = rng.gen_range(1..=3usize).min(g.n());
    let unknown = (0..k).map(|_| rng.gen_range(0..g.n())).collect();
    (g, exits, unknown)
}

/// The values a withheld exit may take here: draw, lost at 0, 2 or 4 plies, won at 1 or 3.
const VALUES: [Exit; 6] = [
    Exit::Mate(1),
    Exit::Mate(3),
    Exit::Draw,
    Exit::Mate(4),
    Exit::Mate(2),
    Exit::Mate(0),
];

fn assignments(k: usize) -> impl Iterator<Item = Vec<Exit>> {
    let n = VALUES.len();
    (0..n.pow(k as u32)).map(move |mut code| {
        (0..k)
            .map(|_| {
                let e = VALUES[code % n];
                code /= n;
                e
            })
            .collect()
    })
}

/// The extreme build: every withheld exit a mate at once for Red (`red`) or for Black.
fn extreme(g: &Graph, unknown: &[usize], red: bool) -> Vec<Exit> {
    unknown
        .iter()
        .map(|&u| Exit::Mate(if g.red[u] == red { 0 } else { 1 }))
        .collect()
}

/// The values of `g`'s own vertices with `exits` and the withheld exits valued `values`.
fn solve(
    g: &Graph,
    exits: &[(usize, Exit)],
    unknown: &[usize],
    values: &[Exit],
    rules: Rules,
) -> Vec<Val> {
    let mut all = exits.to_vec();
    all.extend(unknown.iter().copied().zip(values.iter().copied()));
    let mut db = reference::alg8(&with_exits(g, &all), rules, false);
    db.truncate(g.n());
    db
}

/// A value's rank for Red in Fang's Definition 9 (larger is better for Red): for the side to
/// move a win beats a draw beats a loss; among wins the lower level, then the shorter distance;
/// among losses the higher level, then the longer.
fn rank_for_red(red_to_move: bool, v: Val) -> (i64, i64, i64) {
    let mover = match v {
        Val::Dec(r, d) if d % 2 == 1 => (2, -(r as i64), -(d as i64)),
        Val::Dec(r, d) => (0, r as i64, d as i64),
        _ => (1, 0, 0),
    };
    match red_to_move {
        true => mover,
        false => (-mover.0, -mover.1, -mover.2),
    }
}

/// Counts over random cases under `rules`: (vertex-assignments whose outcome lies outside the
/// two builds' outcomes, whose whole value lies outside theirs in Definition 9's order; agreed
/// values that are a draw or of the mates' level, and how many of those another assignment
/// changes; the same for agreed values of a level above).
#[derive(Debug, Default)]
struct Counts {
    outcome_outside: usize,
    value_outside: usize,
    agreed_mate_or_draw: usize,
    agreed_mate_or_draw_changed: usize,
    agreed_above: usize,
    agreed_above_changed: usize,
}

fn counts(rules: Rules, seed: u64, rounds: usize) -> Counts {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut c = Counts::default();
    for _ in 0..rounds {
        let (g, exits, unknown) = random_case(&mut rng);
        let hi = solve(&g, &exits, &unknown, &extreme(&g, &unknown, true), rules);
        let lo = solve(&g, &exits, &unknown, &extreme(&g, &unknown, false), rules);
        for values in assignments(unknown.len()) {
            let db = solve(&g, &exits, &unknown, &values, rules);
            for u in 0..g.n() {
                let rank = |v| rank_for_red(g.red[u], v);
                let (h, l, x) = (rank(hi[u]), rank(lo[u]), rank(db[u]));
                c.outcome_outside += usize::from(x.0 < l.0 || x.0 > h.0);
                c.value_outside += usize::from(x < l || x > h);
                if hi[u] != lo[u] {
                    continue;
                }
                let changed = usize::from(db[u] != hi[u]);
                if matches!(hi[u], Val::Dec(0, _) | Val::Draw) {
                    c.agreed_mate_or_draw += 1;
                    c.agreed_mate_or_draw_changed += changed;
                } else {
                    c.agreed_above += 1;
                    c.agreed_above_changed += changed;
                }
            }
        }
    }
    c
}

/// The outcome always lies between the two builds' (as in DTC: the DTM outcome is the DTC
/// outcome, Fang's Theorem 7); under no rules and the check rule the whole value does, distance
/// and level, in Definition 9's order; under the Asian rules it need not (the test finds such
/// cases, and must).
#[test]
fn dtm_values_lie_between_the_two_builds() {
    for (rules, seed) in [(Rules::None, 35), (Rules::Check, 36), (Rules::Asian, 37)] {
        let c = counts(rules, seed, 5000);
        assert_eq!(c.outcome_outside, 0, "{rules:?}: {c:?}");
        match rules {
            Rules::Asian => assert!(c.value_outside > 0, "{c:?}: the test must bite"),
            _ => assert_eq!(c.value_outside, 0, "{rules:?}: {c:?}"),
        }
    }
}

/// Where the two builds agree on a value that is a draw or a mate (the mates' level), no
/// assignment of the withheld exits changes it: a partial DTM table may keep its distance.
/// Under no rules and the check rule this holds at every level; under the Asian rules values of
/// a level above can change (the test finds such vertices, and must), as orders do in DTC
/// (`partial_bounds.rs`).
#[test]
fn where_the_two_dtm_builds_agree_on_a_mate_or_a_draw_it_is_exact() {
    for (rules, seed) in [(Rules::None, 38), (Rules::Check, 39), (Rules::Asian, 40)] {
        let c = counts(rules, seed, 5000);
        assert!(c.agreed_mate_or_draw > 100_000, "{rules:?}: {c:?}");
        assert_eq!(c.agreed_mate_or_draw_changed, 0, "{rules:?}: {c:?}");
        match rules {
            Rules::None => assert_eq!(c.agreed_above, 0, "{c:?}"),
            Rules::Check => {
                assert!(c.agreed_above > 1000, "{c:?}");
                assert_eq!(c.agreed_above_changed, 0, "{c:?}");
            }
            Rules::Asian => assert!(c.agreed_above_changed > 0, "{c:?}: the test must bite"),
        }
    }
}
