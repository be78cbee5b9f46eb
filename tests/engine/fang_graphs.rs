//! Fang's algorithms (`xqtb::fang`) against the paper's worked example (Figure 2), against a
//! second, plain implementation of the pseudo-code (`tests/engine/fang_reference.rs`) on random
//! graphs, and against the definitions themselves (brute force over vertex sets on tiny graphs),
//! plus Theorem 8 (infallible play) on the solved graphs.

use crate::fang_reference as reference;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::{Piece, Res, Rules as RefRules, Set, Val};
use xqtb::fang::{
    max_pattern, mutual::mutual_pattern, non_mutual, solve, totally_non_mutual, Db, ExplicitGraph,
    GameGraph, Options, Pattern, Rules, Target, Vertex, VertexSet, Within,
};
use xqtb::{Color, Outcome, Value};

// ---------------------------------------------------------------------------------------------
// Conversions between the reference's graph and the crate's.

/// The crate's graph for a reference graph (same vertices, moves, labels and pieces).
fn to_crate(g: &reference::Graph) -> ExplicitGraph {
    let mut x = ExplicitGraph::new(g.red_pieces.len() as u8, g.black_pieces.len() as u8).unwrap();
    for u in 0..g.n() {
        let side = if g.red[u] { Color::Red } else { Color::Black };
        x.add_vertex(side, best_exit(&g.outside[u]));
    }
    for u in 0..g.n() {
        for m in &g.moves[u] {
            x.add_move(u, m.to, m.check, &m.chases).unwrap();
        }
    }
    x
}

/// The best result for the mover among children outside with results `kids` (theirs).
fn best_exit(kids: &[Res]) -> Option<Outcome> {
    if kids.contains(&Res::Loss) {
        Some(Outcome::Win)
    } else if kids.contains(&Res::Draw) {
        Some(Outcome::Draw)
    } else if kids.is_empty() {
        None
    } else {
        Some(Outcome::Loss)
    }
}

fn to_crate_db(db: &reference::Db) -> Db {
    db.iter()
        .map(|v| match *v {
            Val::Unknown => None,
            Val::Draw => Some(Value::Draw),
            Val::Dec(r, d) => Some(Value::Decided {
                order: r as u16,
                distance: d as u16,
            }),
        })
        .collect()
}

fn from_crate(v: Value) -> Val {
    match v {
        Value::Draw => Val::Draw,
        Value::Decided { order, distance } => Val::Dec(order as u32, distance as u32),
    }
}

fn crate_target(p: Piece) -> Target {
    match p {
        Piece::King { .. } => Target::King,
        Piece::Other(id) => Target::Piece(id),
    }
}

fn set(s: &VertexSet) -> Set {
    s.iter().collect()
}

fn pair(p: &Pattern) -> (Set, Set) {
    (set(&p.wins), set(&p.losses))
}

fn color(red: bool) -> Color {
    if red {
        Color::Red
    } else {
        Color::Black
    }
}

// ---------------------------------------------------------------------------------------------
// Figure 2.

/// Fang's Figure 2 as described in the text (Section 4.1; the drawing itself is not in the
/// seed): twelve vertices, left four `a1..a4`, middle four `m1..m4`, right four `c1..c4`; odd
/// ones Red to move, even ones Black. Black's moves marked `p` chase Red's piece p (0), Red's
/// moves marked `q` chase Black's piece q (1); the move `m1 → c2` is the one marked `q*`.
/// Left: a cycle a1→a2→a3→a4→a1 whose Black moves chase p. Middle: m1→m2 (q), m2→m3 (p),
/// m3→m4 (q), m4→m1 (p), with Black's exits m2→a1 (p), m4→a3 (p) to the left and Red's
/// m1→c2 (q*), m3→c4 (q) to the right. Right: a cycle c1→c2→c3→c4→c1 whose Red moves chase q.
fn figure2(q_star: bool) -> reference::Graph {
    let n = 12;
    let mut g = reference::Graph {
        red: (0..n).map(|v| v % 2 == 0).collect(),
        moves: vec![Vec::new(); n],
        outside: vec![Vec::new(); n],
        red_pieces: vec![0],
        black_pieces: vec![1],
    };
    // a1..a4 = 0..3, m1..m4 = 4..7, c1..c4 = 8..11.
    let mut mv = |from: usize, to: usize, chases: &[u8]| {
        g.moves[from].push(reference::Mv {
            to,
            check: false,
            chases: chases.to_vec(),
        })
    };
    let (p, q) = (0u8, 1u8);
    for (from, to, label) in [
        (0, 1, None),
        (1, 2, Some(p)),
        (2, 3, None),
        (3, 0, Some(p)),
        (4, 5, Some(q)),
        (5, 6, Some(p)),
        (6, 7, Some(q)),
        (7, 4, Some(p)),
        (5, 0, Some(p)),
        (7, 2, Some(p)),
        (6, 11, Some(q)),
        (8, 9, Some(q)),
        (9, 10, None),
        (10, 11, Some(q)),
        (11, 8, None),
    ] {
        mv(from, to, label.as_slice());
    }
    let star: &[u8] = if q_star { &[1] } else { &[] };
    mv(4, 9, star);
    g
}

fn range(a: usize, b: usize) -> Set {
    (a..b).collect()
}

fn figure2_patterns(g: &reference::Graph) -> [Set; 4] {
    let x = to_crate(g);
    let db: Db = vec![None; g.n()];
    let p = max_pattern(&x, Within::Graph(&db), Color::Red, Target::Piece(0));
    let q = max_pattern(&x, Within::Graph(&db), Color::Black, Target::Piece(1));
    let inner = max_pattern(
        &x,
        Within::Sub(&p.members()),
        Color::Black,
        Target::Piece(1),
    );
    let mutual = mutual_pattern(&x, &db, Target::Piece(1), Target::Piece(0));
    [
        set(&p.members()),
        set(&q.members()),
        set(&inner.members()),
        set(&mutual),
    ]
}

#[test]
fn figure2_relations_of_lemma_11() {
    // With q* a chase: G*(p) is the left eight, G*(q) the right eight, G*(G*(p), q) the middle
    // four (their intersection), and the mutual pattern G*(p, q) is empty (Section 4.1).
    let [p, q, inner, mutual] = figure2_patterns(&figure2(true));
    assert_eq!(p, range(0, 8));
    assert_eq!(q, range(4, 12));
    assert_eq!(inner, range(4, 8));
    assert!(mutual.is_empty());
    // Without it, G*(q) is the right four and G*(G*(p), q) still the middle four.
    let [p, q, inner, mutual] = figure2_patterns(&figure2(false));
    assert_eq!(p, range(0, 8));
    assert_eq!(q, range(8, 12));
    assert_eq!(inner, range(4, 8));
    assert!(mutual.is_empty());
}

#[test]
fn figure2_relations_in_the_reference() {
    let g = figure2(true);
    let db = vec![Val::Unknown; g.n()];
    let (w, l) = reference::alg1(&g, &db, None, true, Piece::Other(0));
    assert_eq!(w.union(&l).copied().collect::<Set>(), range(0, 8));
    let g1: Set = w.union(&l).copied().collect();
    let (w, l) = reference::alg1(&g, &db, Some(&g1), false, Piece::Other(1));
    assert_eq!(w.union(&l).copied().collect::<Set>(), range(4, 8));
    assert!(reference::alg2(&g, &db, Piece::Other(1), Piece::Other(0)).is_empty());
}

#[test]
fn figure2_solved_by_hand() {
    // Worked by hand from Algorithms 5 and 8: at order 1, G†*(p) is the left four (the middle,
    // where Black can force Red to chase q, is pruned) and G†*(q) the right four; their losses
    // (Black to move on the left, Red to move on the right) are (1, 0), their wins (1, 1). The
    // middle four then form a mutual chase (each side's only way out loses): draws.
    let g = figure2(true);
    let x = to_crate(&g);
    let want = |v: usize| match v {
        1 | 3 | 8 | 10 => Val::Dec(1, 0),
        0 | 2 | 9 | 11 => Val::Dec(1, 1),
        _ => Val::Draw,
    };
    for early_draws in [false, true] {
        let s = solve(
            &x,
            Options {
                rules: Rules::Asian,
                early_draws,
            },
        )
        .unwrap();
        let got: Vec<Val> = s.values.iter().map(|&v| from_crate(v)).collect();
        assert_eq!(got, (0..12).map(want).collect::<Vec<_>>());
    }
    let r = reference::alg8(&g, RefRules::Asian, false);
    assert_eq!(r, (0..12).map(want).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------------
// Random graphs.

/// A random bipartite graph with `n` vertices, a few pieces a side, random labels and exits.
pub(crate) fn random_graph(
    rng: &mut ChaCha8Rng,
    sizes: std::ops::RangeInclusive<usize>,
) -> reference::Graph {
    let n = rng.gen_range(sizes);
    let reds = rng.gen_range(1..=2u8);
    let blacks = rng.gen_range(1..=2u8);
    let red_pieces: Vec<u8> = (0..reds).collect();
    let black_pieces: Vec<u8> = (reds..reds + blacks).collect();
    let red: Vec<bool> = (0..n).map(|_| rng.gen_bool(0.5)).collect();
    let mut moves = vec![Vec::new(); n];
    let mut outside = vec![Vec::new(); n];
    for u in 0..n {
        let others: Vec<usize> = (0..n).filter(|&v| red[v] != red[u]).collect();
        let degree = rng.gen_range(0..=3usize);
        for _ in 0..degree.min(others.len()) {
            let to = others[rng.gen_range(0..others.len())];
            let theirs = if red[u] { &black_pieces } else { &red_pieces };
            let chases = theirs
                .iter()
                .copied()
                .filter(|_| rng.gen_bool(0.45))
                .collect();
            moves[u].push(reference::Mv {
                to,
                check: rng.gen_bool(0.3),
                chases,
            });
        }
        if rng.gen_bool(0.2) {
            let kids = [Res::Win, Res::Draw, Res::Loss];
            outside[u].push(kids[rng.gen_range(0..3usize)]);
        }
    }
    reference::Graph {
        red,
        moves,
        outside,
        red_pieces,
        black_pieces,
    }
}

const RULES: [(Rules, RefRules); 3] = [
    (Rules::None, RefRules::None),
    (Rules::Check, RefRules::Check),
    (Rules::Asian, RefRules::Asian),
];

#[test]
fn random_graphs_solve_like_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut decided_above_0 = 0;
    for round in 0..1500 {
        let g = random_graph(&mut rng, 2..=16);
        let x = to_crate(&g);
        for (rules, ref_rules) in RULES {
            let want = reference::alg8(&g, ref_rules, false);
            for early_draws in [false, true] {
                let s = solve(&x, Options { rules, early_draws }).unwrap();
                let got: Vec<Val> = s.values.iter().map(|&v| from_crate(v)).collect();
                assert_eq!(
                    got, want,
                    "round {round}, {rules:?}, early draws {early_draws}: {g:?}"
                );
            }
            // Lemma 14 in the reference too: optional draws change nothing.
            assert_eq!(reference::alg8(&g, ref_rules, true), want, "round {round}");
            // Theorem 7: Algorithm 8's outcomes are Algorithm 6's.
            let wdl: Vec<Res> = want.iter().map(|v| v.f().unwrap()).collect();
            assert_eq!(reference::alg6(&g, ref_rules), wdl, "round {round}");
            decided_above_0 += want
                .iter()
                .filter(|v| matches!(v, Val::Dec(r, _) if *r > 0))
                .count();
        }
    }
    // The sample must exercise the rules, not only order 0.
    println!("decided above 0: {decided_above_0}");
    assert!(
        decided_above_0 > 1000,
        "only {decided_above_0} positions above order 0"
    );
}

#[test]
fn random_graphs_patterns_like_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut non_empty = [0usize; 4];
    for round in 0..1500 {
        let g = random_graph(&mut rng, 2..=16);
        let x = to_crate(&g);
        let rdb = reference::propagated(&g);
        let db = to_crate_db(&rdb);
        for attacker_red in [true, false] {
            let attacker = color(attacker_red);
            let mine = if attacker_red {
                &g.red_pieces
            } else {
                &g.black_pieces
            };
            let theirs = if attacker_red {
                &g.black_pieces
            } else {
                &g.red_pieces
            };
            let own: Vec<Piece> = std::iter::once(Piece::King { red: attacker_red })
                .chain(mine.iter().map(|&i| Piece::Other(i)))
                .collect();
            let other: Vec<Piece> = std::iter::once(Piece::King { red: !attacker_red })
                .chain(theirs.iter().map(|&i| Piece::Other(i)))
                .collect();
            for &p in &own {
                let want1 = reference::alg1(&g, &rdb, None, attacker_red, p);
                let got1 = pair(&max_pattern(
                    &x,
                    Within::Graph(&db),
                    attacker,
                    crate_target(p),
                ));
                assert_eq!(got1, want1, "round {round}: Algorithm 1, {p:?}");
                let want5 = reference::alg5(&g, &rdb, attacker_red, p);
                let got5 = pair(&totally_non_mutual(&x, &db, attacker, crate_target(p)));
                assert_eq!(got5, want5, "round {round}: Algorithm 5, {p:?}");
                non_empty[0] += !want1.1.is_empty() as usize;
                non_empty[2] += !want5.1.is_empty() as usize;
                for &q in &other {
                    let want4 = reference::alg4(&g, &rdb, attacker_red, p, q);
                    let got4 = pair(&non_mutual(
                        &x,
                        &db,
                        attacker,
                        crate_target(p),
                        crate_target(q),
                    ));
                    assert_eq!(got4, want4, "round {round}: Algorithm 4, {p:?} {q:?}");
                    non_empty[1] += !want4.1.is_empty() as usize;
                    if attacker_red {
                        // p is Red's (chased by Black), q Black's (chased by Red).
                        let want2 = reference::alg2(&g, &rdb, q, p);
                        let got2 = mutual_pattern(&x, &db, crate_target(q), crate_target(p));
                        assert_eq!(set(&got2), want2, "round {round}: Algorithm 2");
                        non_empty[3] += !want2.is_empty() as usize;
                    }
                }
            }
        }
    }
    println!("non-empty: {non_empty:?}");
    assert!(
        non_empty.iter().all(|&k| k > 50),
        "too few non-empty patterns: {non_empty:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The definitions, by brute force.

/// Is `s` (a set of unknown vertices, as bits) the vertex set of a move pattern of
/// Definition 4 — attacker `attacker_red`, target `p` — in the subgraph induced by `within`
/// (bits; all vertices for the whole graph, whose known children and exits then count)?
fn is_pattern(
    g: &reference::Graph,
    db: &reference::Db,
    within: u32,
    whole: bool,
    attacker_red: bool,
    p: Piece,
    s: u32,
) -> bool {
    let has = |set: u32, v: usize| set >> v & 1 == 1;
    (0..g.n()).filter(|&u| has(s, u)).all(|u| {
        let edges: Vec<&reference::Mv> = g.moves[u].iter().filter(|m| has(within, m.to)).collect();
        if g.red[u] == attacker_red {
            // An attacker's position needs a move into the pattern (condition 5).
            return edges.iter().any(|m| has(s, m.to));
        }
        let chase = |m: &reference::Mv| match p {
            Piece::King { .. } => m.check,
            Piece::Other(id) => m.chases.contains(&id),
        };
        // A defender's: every move to an unknown vertex is a chase into the pattern
        // (conditions 2, 4), every other move reaches a win (3), and it has one (5).
        let fits = edges.iter().all(|m| match db[m.to] {
            Val::Unknown => has(s, m.to) && chase(m),
            v => v.f() == Some(Res::Win),
        });
        let exits = !whole || g.outside[u].iter().all(|&r| r == Res::Win);
        fits && exits && edges.iter().any(|m| has(s, m.to))
    })
}

/// The union of all move patterns inside `within` (the maximum one, Lemma 2), by brute force.
fn brute_max(
    g: &reference::Graph,
    db: &reference::Db,
    within: u32,
    whole: bool,
    attacker_red: bool,
    p: Piece,
) -> u32 {
    let unknown: u32 = (0..g.n())
        .filter(|&v| db[v] == Val::Unknown && within >> v & 1 == 1)
        .fold(0, |a, v| a | 1 << v);
    subsets(unknown)
        .filter(|&s| s != 0 && is_pattern(g, db, within, whole, attacker_red, p, s))
        .fold(0, |a, s| a | s)
}

/// Every subset of `mask`.
fn subsets(mask: u32) -> impl Iterator<Item = u32> {
    let mut s = Some(mask);
    std::iter::from_fn(move || {
        let cur = s?;
        s = (cur != 0).then(|| (cur - 1) & mask);
        Some(cur)
    })
}

/// The union of the patterns of Definition 7 (or 6, with `qs` one piece): patterns `s` for `p`
/// inside which no pattern for any `q` exists.
fn brute_non_mutual(
    g: &reference::Graph,
    db: &reference::Db,
    attacker_red: bool,
    p: Piece,
    qs: &[Piece],
) -> u32 {
    let all = (1u32 << g.n()) - 1;
    let candidates = brute_max(g, db, all, true, attacker_red, p);
    subsets(candidates)
        .filter(|&s| s != 0 && is_pattern(g, db, all, true, attacker_red, p, s))
        .filter(|&s| {
            qs.iter()
                .all(|&q| brute_max(g, db, s, false, !attacker_red, q) == 0)
        })
        .fold(0, |a, s| a | s)
}

fn bits(s: &VertexSet) -> u32 {
    s.iter().fold(0, |a, v| a | 1 << v)
}

#[test]
fn patterns_are_the_maximum_ones_of_the_definitions() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut non_empty = [0usize; 3];
    for round in 0..400 {
        let g = random_graph(&mut rng, 2..=10);
        let x = to_crate(&g);
        let rdb = reference::propagated(&g);
        let db = to_crate_db(&rdb);
        let all = (1u32 << g.n()) - 1;
        for attacker_red in [true, false] {
            let attacker = color(attacker_red);
            let p = Piece::King { red: attacker_red };
            let q = Piece::King { red: !attacker_red };
            let got = max_pattern(&x, Within::Graph(&db), attacker, Target::King);
            let want = brute_max(&g, &rdb, all, true, attacker_red, p);
            assert_eq!(bits(&got.members()), want, "round {round}: Definition 4");
            non_empty[0] += (want != 0) as usize;
            let got = non_mutual(&x, &db, attacker, Target::King, Target::King);
            let want = brute_non_mutual(&g, &rdb, attacker_red, p, &[q]);
            assert_eq!(bits(&got.members()), want, "round {round}: Definition 6");
            non_empty[1] += (want != 0) as usize;
            let first = if attacker_red {
                g.red_pieces[0]
            } else {
                g.black_pieces[0]
            };
            let theirs = if attacker_red {
                &g.black_pieces
            } else {
                &g.red_pieces
            };
            let qs: Vec<Piece> = std::iter::once(q)
                .chain(theirs.iter().map(|&i| Piece::Other(i)))
                .collect();
            let got = totally_non_mutual(&x, &db, attacker, Target::Piece(first));
            let want = brute_non_mutual(&g, &rdb, attacker_red, Piece::Other(first), &qs);
            assert_eq!(bits(&got.members()), want, "round {round}: Definition 7");
            non_empty[2] += (want != 0) as usize;
        }
    }
    println!("non-empty: {non_empty:?}");
    assert!(
        non_empty.iter().all(|&k| k > 20),
        "too few non-empty patterns: {non_empty:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Pieces, not kinds.

#[test]
fn chasing_two_pieces_in_turn_is_allowed() {
    // A two-cycle pair: Red to move in 0 and 2, Black in 1 and 3; Red's moves 0→1, 2→3 are
    // quiet, Black's are forced. If Black's moves chase Red's pieces 0 and 1 in turn, no single
    // piece is chased indefinitely (rule 32): a draw. If both chase piece 0, Black loses.
    for (second, want_black) in [(1u8, Val::Draw), (0u8, Val::Dec(1, 0))] {
        let mut x = ExplicitGraph::new(2, 1).unwrap();
        for side in [Color::Red, Color::Black, Color::Red, Color::Black] {
            x.add_vertex(side, None);
        }
        x.add_move(0, 1, false, &[]).unwrap();
        x.add_move(1, 2, false, &[0]).unwrap();
        x.add_move(2, 3, false, &[]).unwrap();
        x.add_move(3, 0, false, &[second]).unwrap();
        let s = solve(
            &x,
            Options {
                rules: Rules::Asian,
                early_draws: false,
            },
        )
        .unwrap();
        assert_eq!(from_crate(s.values[1]), want_black);
        assert_eq!(from_crate(s.values[3]), want_black);
    }
}

// ---------------------------------------------------------------------------------------------
// Theorem 8.

/// Definition 9 as a number, higher better for the side to move (drawn 0).
fn goodness(v: Value) -> i64 {
    v.rank()
}

/// Theorem 8 at every decided position: its value is one more than that of its best move
/// (conversions count as order 0 at distance 0 for a won exit), and (r, 0) losses of r > 0
/// have a move to (r, 1) with every move to (r, 1) or better for the opponent.
fn check_theorem_8(x: &ExplicitGraph, values: &[Value]) -> Result<(), String> {
    for u in 0..x.vertex_count() {
        let Value::Decided { order, distance } = values[u] else {
            // Definition 3, condition 3: a draw has a drawn move and none to a loss.
            let kids: Vec<Outcome> = x.edges(u).iter().map(|e| values[e.to].outcome()).collect();
            let exit = x.exit(u);
            let drawn = kids.contains(&Outcome::Draw) || exit == Some(Outcome::Draw);
            if !drawn || kids.contains(&Outcome::Loss) || exit == Some(Outcome::Win) {
                return Err(format!("draw {u} breaks Definition 3"));
            }
            continue;
        };
        let worst_kid = x
            .edges(u)
            .iter()
            .map(|e| values[e.to])
            .min_by_key(|&v| goodness(v));
        let exit = x.exit(u);
        if order == 0 && distance == 1 && exit == Some(Outcome::Win) {
            continue;
        }
        if order == 0 && distance == 0 {
            let all_won = x
                .edges(u)
                .iter()
                .all(|e| values[e.to].outcome() == Outcome::Win);
            if !all_won || !matches!(exit, None | Some(Outcome::Loss)) {
                return Err(format!("{u}: loss (0, 0) with a move that is not won"));
            }
            continue;
        }
        let Some(kid) = worst_kid else {
            return Err(format!("{u}: decided ({order}, {distance}) without moves"));
        };
        let want = if distance == 0 {
            Value::Decided { order, distance: 1 }
        } else {
            Value::Decided {
                order,
                distance: distance - 1,
            }
        };
        if kid != want {
            return Err(format!("{u}: ({order}, {distance}), best move to {kid:?}"));
        }
        if values[u].outcome() == Outcome::Loss && exit == Some(Outcome::Draw) {
            return Err(format!("{u}: a loss with a drawn exit"));
        }
    }
    Ok(())
}

#[test]
fn theorem_8_on_random_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(88);
    for round in 0..1000 {
        let g = random_graph(&mut rng, 2..=24);
        let x = to_crate(&g);
        let s = solve(
            &x,
            Options {
                rules: Rules::Asian,
                early_draws: true,
            },
        )
        .unwrap();
        check_theorem_8(&x, &s.values)
            .map_err(|e| format!("round {round}: {e}"))
            .unwrap();
    }
}

/// Plays from `u` (a position the winner is to move in or the loser is) with the winner
/// following a best move that stays in the current pattern, the loser trying every move to
/// `depth` plies; fails if the winner ever lacks such a move, if a value fails to improve for
/// the winner, or if the loser, inside a pattern at distance 0, has a move that neither hits
/// the pattern's target inside it nor reaches a lower order.
fn play(
    x: &ExplicitGraph,
    values: &[Value],
    levels: &[xqtb::fang::Level],
    u: Vertex,
    pattern: Option<&Pattern>,
    depth: u32,
) -> Result<(), String> {
    let Value::Decided { order, distance } = values[u] else {
        return Err(format!("{u}: a draw reached from a win"));
    };
    if depth == 0 || (order == 0 && distance <= 1 && x.exit(u) == Some(Outcome::Win)) {
        return Ok(());
    }
    if distance % 2 == 1 {
        let pick = winner_move(x, values, u, order, distance, pattern)
            .ok_or_else(|| format!("{u}: the winner has no move keeping the pattern"))?;
        return play(x, values, levels, pick, pattern, depth - 1);
    }
    // The loser: at (r, 0) with r > 0 it is inside a pattern of level r.
    let here = if distance == 0 && order > 0 {
        let level = &levels[order as usize - 1];
        let p = pattern
            .filter(|p| p.losses.contains(u))
            .or_else(|| level.patterns.iter().find(|p| p.losses.contains(u)))
            .ok_or_else(|| format!("{u}: ({order}, 0) in no pattern of its level"))?;
        Some(p)
    } else {
        None
    };
    for e in x.edges(u) {
        let next = values[e.to];
        if next.outcome() != Outcome::Win {
            return Err(format!("{u}: the loser escapes to {next:?}"));
        }
        if let Some(p) = here {
            let stays = p.wins.contains(e.to) && e.hits(p.target);
            if !stays && next.order() >= Some(order) {
                return Err(format!("{u}: leaves the pattern without losing an order"));
            }
        }
        let keep = here.filter(|p| p.wins.contains(e.to));
        play(x, values, levels, e.to, keep, depth - 1)?;
    }
    Ok(())
}

/// The winner's move from `u` at (r, d): to (r, d − 1), into the current pattern's losses when
/// at d = 1 inside one.
fn winner_move(
    x: &ExplicitGraph,
    values: &[Value],
    u: Vertex,
    order: u16,
    distance: u16,
    pattern: Option<&Pattern>,
) -> Option<Vertex> {
    let want = Value::Decided {
        order,
        distance: distance - 1,
    };
    x.edges(u)
        .iter()
        .map(|e| e.to)
        .filter(|&v| values[v] == want)
        .find(|&v| pattern.is_none_or(|p| distance != 1 || p.losses.contains(v)))
}

#[test]
fn theorem_8_infallible_play() {
    let mut rng = ChaCha8Rng::seed_from_u64(800);
    let mut games = 0;
    for round in 0..600 {
        let g = random_graph(&mut rng, 4..=24);
        let x = to_crate(&g);
        let s = solve(
            &x,
            Options {
                rules: Rules::Asian,
                early_draws: false,
            },
        )
        .unwrap();
        for u in 0..x.vertex_count() {
            if matches!(s.values[u], Value::Decided { order, distance } if order > 0 && distance % 2 == 1)
            {
                games += 1;
                play(&x, &s.values, &s.levels, u, None, 12)
                    .map_err(|e| format!("round {round}, from {u}: {e}"))
                    .unwrap();
            }
        }
    }
    println!("games: {games}");
    assert!(games > 200, "only {games} wins above order 0");
}

// ---------------------------------------------------------------------------------------------
// Identical pieces.

/// `g` with Black's first two pieces (and Red's, if `red_too`) made twins: at each vertex a coin
/// says whether their numbers are traded there; labels are renumbered to match and each move
/// carries a swap where the coins of its ends differ. Following the pieces through the moves
/// must give the values of `g`, where every piece has its own number.
fn with_twins(g: &reference::Graph, rng: &mut ChaCha8Rng, red_too: bool) -> Option<ExplicitGraph> {
    let mut pairs = Vec::new();
    if g.black_pieces.len() >= 2 {
        pairs.push((g.black_pieces[0], g.black_pieces[1]));
    }
    if red_too && g.red_pieces.len() >= 2 {
        pairs.push((g.red_pieces[0], g.red_pieces[1]));
    }
    if pairs.is_empty() {
        return None;
    }
    let traded: Vec<bool> = (0..g.n()).map(|_| rng.gen_bool(0.5)).collect();
    let renumber = |u: usize, p: u8| {
        pairs.iter().fold(p, |p, &(a, b)| match p {
            _ if traded[u] && p == a => b,
            _ if traded[u] && p == b => a,
            _ => p,
        })
    };
    let mut x = ExplicitGraph::new(g.red_pieces.len() as u8, g.black_pieces.len() as u8).unwrap();
    for u in 0..g.n() {
        x.add_vertex(color(g.red[u]), best_exit(&g.outside[u]));
    }
    for &(a, b) in &pairs {
        x.set_twins(a, b).unwrap();
    }
    for u in 0..g.n() {
        for m in &g.moves[u] {
            let chases: Vec<u8> = m.chases.iter().map(|&p| renumber(u, p)).collect();
            let swaps: Vec<u8> = if traded[u] != traded[m.to] {
                pairs.iter().map(|&(a, _)| a).collect()
            } else {
                Vec::new()
            };
            x.add_move_swapping(u, m.to, m.check, &chases, &swaps)
                .unwrap();
        }
    }
    Some(x)
}

/// A random graph with up to three pieces a side, so that pairs of twins occur.
fn random_graph_many_pieces(rng: &mut ChaCha8Rng) -> reference::Graph {
    let mut g = random_graph(rng, 2..=16);
    let reds = rng.gen_range(2..=3u8);
    let blacks = rng.gen_range(2..=3u8);
    g.red_pieces = (0..reds).collect();
    g.black_pieces = (reds..reds + blacks).collect();
    for u in 0..g.n() {
        let red = g.red[u];
        for m in g.moves[u].iter_mut() {
            let theirs = if red { &g.black_pieces } else { &g.red_pieces };
            m.chases = theirs
                .iter()
                .copied()
                .filter(|_| rng.gen_bool(0.4))
                .collect();
        }
    }
    g
}

#[test]
fn twins_followed_through_the_moves_solve_like_distinct_pieces() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut above_0 = 0;
    for round in 0..1500 {
        let g = random_graph_many_pieces(&mut rng);
        let want = reference::alg8(&g, RefRules::Asian, false);
        let red_too = rng.gen_bool(0.5);
        let Some(x) = with_twins(&g, &mut rng, red_too) else {
            continue;
        };
        for early_draws in [false, true] {
            let s = solve(
                &x,
                Options {
                    rules: Rules::Asian,
                    early_draws,
                },
            )
            .unwrap();
            let got: Vec<Val> = s.values.iter().map(|&v| from_crate(v)).collect();
            assert_eq!(got, want, "round {round}, early draws {early_draws}: {g:?}");
        }
        above_0 += want
            .iter()
            .filter(|v| matches!(v, Val::Dec(r, _) if *r > 0))
            .count();
    }
    println!("decided above order 0: {above_0}");
    assert!(above_0 > 1000, "only {above_0} positions above order 0");
}

#[test]
fn twins_without_tracking_would_differ() {
    // The same construction, but the pieces declared distinct (numbers as slots, never
    // followed): some graph must then solve differently, or the test above proves nothing.
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut differ = 0;
    for _ in 0..1500 {
        let g = random_graph_many_pieces(&mut rng);
        let want = reference::alg8(&g, RefRules::Asian, false);
        let red_too = rng.gen_bool(0.5);
        let Some(x) = with_twins(&g, &mut rng, red_too) else {
            continue;
        };
        let untracked = untwin(&x);
        let s = solve(
            &untracked,
            Options {
                rules: Rules::Asian,
                early_draws: false,
            },
        )
        .unwrap();
        let got: Vec<Val> = s.values.iter().map(|&v| from_crate(v)).collect();
        differ += (got != want) as usize;
    }
    assert!(differ > 5, "only {differ} graphs differ");
}

/// `x` with the same moves and labels but no twins (and no swaps).
fn untwin(x: &ExplicitGraph) -> ExplicitGraph {
    let reds = x.pieces(Color::Red).iter().count() as u8;
    let blacks = x.pieces(Color::Black).iter().count() as u8;
    let mut y = ExplicitGraph::new(reds, blacks).unwrap();
    for u in 0..x.vertex_count() {
        y.add_vertex(x.side(u), x.exit(u));
    }
    for u in 0..x.vertex_count() {
        for e in x.edges(u) {
            let chases: Vec<u8> = e.chases.iter().collect();
            y.add_move(u, e.to, e.check, &chases).unwrap();
        }
    }
    y
}
