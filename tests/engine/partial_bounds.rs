//! Partial information (Björnsson, Schaeffer and Sturtevant, "Partial Information Endgame
//! Databases", 2005) under the Asian rules: bounds from two builds. A table built while some
//! supporting tables are withheld has exits of unknown value. If every position's value is
//! monotone in those exits' values — better exits for Red never make a position worse for Red —
//! then the build with every unknown exit a win for Red and the build with every one a win for
//! Black bound every position's true value, whatever the withheld tables hold.
//!
//! Fang's rules decide values through patterns of the positions still unresolved, so
//! monotonicity is not evident; here it is checked exhaustively on random game graphs with
//! random check and chase labels: every assignment of win, draw or loss to up to four unknown
//! exits, solved by the plain reference implementation (`fang_reference.rs`), under each rule
//! set. The extremes must be the minimum and maximum over all assignments, vertex by vertex.
//! Where the extremes agree the outcome is exact; whether the (order, distance) is too depends
//! on the rules (second test).

use crate::fang_graphs::random_graph;
use crate::fang_reference as reference;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::{Res, Rules};

/// A vertex's result from Red's side: 1 Red wins, 0 draw, -1 Black wins.
fn for_red(red_to_move: bool, v: reference::Val) -> i8 {
    let r = match v.f() {
        Some(Res::Win) => 1,
        Some(Res::Loss) => -1,
        _ => 0,
    };
    if red_to_move {
        r
    } else {
        -r
    }
}

/// The values of every vertex of `g` with the unknown exits of `unknown` (vertices) valued
/// `values` (the child's value, for the side to move in the child).
fn values_with(
    g: &reference::Graph,
    unknown: &[usize],
    values: &[Res],
    rules: Rules,
) -> reference::Db {
    let mut g = g.clone();
    for (&u, &r) in unknown.iter().zip(values) {
        g.outside[u].push(r);
    }
    reference::alg8(&g, rules, false)
}

/// [`values_with`] from Red's side.
fn solve_with(g: &reference::Graph, unknown: &[usize], values: &[Res], rules: Rules) -> Vec<i8> {
    let db = values_with(g, unknown, values, rules);
    (0..g.n()).map(|u| for_red(g.red[u], db[u])).collect()
}

/// A random graph and up to four of its vertices with a withheld exit each.
fn random_case(rng: &mut ChaCha8Rng) -> (reference::Graph, Vec<usize>) {
    let g = random_graph(rng, 2..=14);
    let k = rng.gen_range(1..=4usize).min(g.n());
    let unknown = (0..k).map(|_| rng.gen_range(0..g.n())).collect();
    (g, unknown)
}

/// Every assignment of win, draw or loss to `k` withheld exits.
fn assignments(k: usize) -> impl Iterator<Item = Vec<Res>> {
    (0..3usize.pow(k as u32)).map(move |mut code| {
        (0..k)
            .map(|_| {
                let r = [Res::Win, Res::Draw, Res::Loss][code % 3];
                code /= 3;
                r
            })
            .collect()
    })
}

/// Every withheld exit the best for Red (`red`) or for Black. An exit's value is the child's,
/// for the side to move there: a loss where the favoured side moves into it.
fn extreme(g: &reference::Graph, unknown: &[usize], red: bool) -> Vec<Res> {
    unknown
        .iter()
        .map(|&u| if g.red[u] == red { Res::Loss } else { Res::Win })
        .collect()
}

#[test]
fn values_are_monotone_in_unknown_exits_so_two_builds_bound_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let mut informative = 0;
    for round in 0..20_000 {
        let (g, unknown) = random_case(&mut rng);
        for rules in [Rules::None, Rules::Check, Rules::Asian] {
            let (mut lo, mut hi) = (vec![1i8; g.n()], vec![-1i8; g.n()]);
            for values in assignments(unknown.len()) {
                for (u, x) in solve_with(&g, &unknown, &values, rules)
                    .into_iter()
                    .enumerate()
                {
                    lo[u] = lo[u].min(x);
                    hi[u] = hi[u].max(x);
                }
            }
            let red_best = solve_with(&g, &unknown, &extreme(&g, &unknown, true), rules);
            let black_best = solve_with(&g, &unknown, &extreme(&g, &unknown, false), rules);
            assert_eq!(
                red_best, hi,
                "round {round} {rules:?}: {g:?} unknown exits at {unknown:?}"
            );
            assert_eq!(
                black_best, lo,
                "round {round} {rules:?}: {g:?} unknown exits at {unknown:?}"
            );
            informative += lo.iter().zip(&hi).filter(|(a, b)| a != b).count();
        }
    }
    assert!(
        informative > 1000,
        "{informative} vertices with open bounds: the test must bite"
    );
}

/// Which agreed values the test holds to be exact: all under no rules and the check rule; under
/// the Asian rules, draws and values of order 0 (see the test below for why not all).
fn exact_kind(rules: Rules, v: reference::Val) -> bool {
    !matches!((rules, v), (Rules::Asian, reference::Val::Dec(r, _)) if r > 0)
}

/// Where the two extreme builds agree on a vertex's whole value (order and distance too) and
/// [`exact_kind`] holds, every assignment of the unknown exits gives it that value: it is exact,
/// distance included, and a partial table may keep the distance. Under the Asian rules an agreed
/// value of order above 0 need not be: which chasing patterns exist depends on the exits, so
/// orders shift between assignments (the test finds such vertices, and must).
#[test]
fn where_the_two_builds_agree_the_value_is_exact() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let (mut exact_checked, mut inexact_above_0) = (0usize, 0usize);
    for round in 0..20_000 {
        let (g, unknown) = random_case(&mut rng);
        for rules in [Rules::None, Rules::Check, Rules::Asian] {
            let hi = values_with(&g, &unknown, &extreme(&g, &unknown, true), rules);
            let lo = values_with(&g, &unknown, &extreme(&g, &unknown, false), rules);
            let agreed: Vec<usize> = (0..g.n()).filter(|&u| hi[u] == lo[u]).collect();
            let mut differs = vec![false; g.n()];
            for values in assignments(unknown.len()) {
                let db = values_with(&g, &unknown, &values, rules);
                for &u in &agreed {
                    if exact_kind(rules, hi[u]) {
                        assert_eq!(
                            db[u], hi[u],
                            "round {round} {rules:?} vertex {u}: {g:?} unknown {unknown:?} values {values:?}"
                        );
                        exact_checked += 1;
                    } else {
                        differs[u] |= db[u] != hi[u];
                    }
                }
            }
            inexact_above_0 += differs.iter().filter(|&&d| d).count();
        }
    }
    assert!(exact_checked > 100_000, "{exact_checked}");
    assert!(
        inexact_above_0 > 0,
        "Asian orders above 0 were all exact after all"
    );
}

/// The paper's values: bounds from the side to move's view (lower, upper; -1 loss, 0 draw,
/// 1 win), `unknown` while a position is unresolved (uLW, uTW, uTT, uLT).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Partial {
    lo: i8,
    hi: i8,
    unknown: bool,
}

impl Partial {
    const fn known(lo: i8, hi: i8) -> Partial {
        Partial {
            lo,
            hi,
            unknown: false,
        }
    }

    /// The child's value from the mover's side: bounds swap and change sign.
    fn negate(self) -> Partial {
        Partial {
            lo: -self.hi,
            hi: -self.lo,
            ..self
        }
    }

    /// Table 2 of the paper, written as its rule: a win (`WW`) settles it; otherwise the
    /// bounds are the maxima of the bounds, and the result is unknown if either is. An unknown
    /// value's bounds are those it would have if the analysis stopped now: `uTT` is the
    /// draw-by-repetition a position is until shown otherwise.
    fn max(self, other: Partial) -> Partial {
        let win = Partial::known(1, 1);
        if self == win || other == win {
            return win;
        }
        Partial {
            lo: self.lo.max(other.lo),
            hi: self.hi.max(other.hi),
            unknown: self.unknown || other.unknown,
        }
    }
}

/// Björnsson, Schaeffer and Sturtevant's one-pass algorithm (their Table 1 with the operators of
/// §2.3) on a graph without rules on endless play: every position starts `uTT`; a position
/// not completed takes the max of its negated children until nothing changes; `decide` drops
/// the unknown flag. Withheld exits are `LW`.
fn one_pass(g: &reference::Graph, unknown: &[usize]) -> Vec<Partial> {
    let res = |r: Res| match r {
        Res::Win => Partial::known(1, 1),
        Res::Draw => Partial::known(0, 0),
        Res::Loss => Partial::known(-1, -1),
    };
    let mut v = vec![
        Partial {
            lo: 0,
            hi: 0,
            unknown: true
        };
        g.n()
    ];
    loop {
        let mut changed = false;
        for u in 0..g.n() {
            if !v[u].unknown {
                continue;
            }
            let children = g.moves[u]
                .iter()
                .map(|m| v[m.to])
                .chain(g.outside[u].iter().map(|&r| res(r)))
                .chain(
                    unknown
                        .iter()
                        .filter(|&&x| x == u)
                        .map(|_| Partial::known(-1, 1)),
                );
            let best = children
                .map(Partial::negate)
                .reduce(Partial::max)
                .unwrap_or(Partial::known(-1, -1));
            if best != v[u] {
                v[u] = best;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    v.into_iter()
        .map(|p| Partial {
            unknown: false,
            ..p
        })
        .collect()
}

/// Without rules on endless play, the paper's one-pass algorithm gives exactly the bounds of
/// the two extreme builds.
#[test]
fn the_papers_one_pass_algorithm_gives_the_two_builds_bounds() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let mut open = 0;
    for round in 0..5_000 {
        let (g, unknown) = random_case(&mut rng);
        let hi = solve_with(&g, &unknown, &extreme(&g, &unknown, true), Rules::None);
        let lo = solve_with(&g, &unknown, &extreme(&g, &unknown, false), Rules::None);
        let got = one_pass(&g, &unknown);
        for u in 0..g.n() {
            let want = if g.red[u] {
                Partial::known(lo[u], hi[u])
            } else {
                Partial::known(-hi[u], -lo[u])
            };
            assert_eq!(
                got[u], want,
                "round {round} vertex {u}: {g:?} unknown {unknown:?}"
            );
            open += (want.lo != want.hi) as usize;
        }
    }
    assert!(open > 1000, "{open}");
}

/// [`Partial::max`] is the paper's Table 2, entry by entry (copied from the paper, rows and
/// columns WW TT LL TW LT LW uLW uTW uTT uLT).
#[test]
fn max_is_the_papers_table_2() {
    let names = [
        "WW", "TT", "LL", "TW", "LT", "LW", "uLW", "uTW", "uTT", "uLT",
    ];
    let value = |name: &str| {
        let (unknown, b) = match name.strip_prefix('u') {
            Some(b) => (true, b),
            None => (false, name),
        };
        let bound = |c| match c {
            'L' => -1,
            'T' => 0,
            _ => 1,
        };
        let mut cs = b.chars();
        Partial {
            lo: bound(cs.next().unwrap()),
            hi: bound(cs.next().unwrap()),
            unknown,
        }
    };
    let table = [
        "WW WW WW WW WW WW WW WW WW WW",
        "WW TT TT TW TT TW uTW uTW uTT uTT",
        "WW TT LL TW LT LW uLW uTW uTT uLT",
        "WW TW TW TW TW TW uTW uTW uTW uTW",
        "WW TT LT TW LT LW uLW uTW uTT uLT",
        "WW TW LW TW LW LW uLW uTW uTW uLW",
        "WW uTW uLW uTW uLW uLW uLW uTW uTW uLW",
        "WW uTW uTW uTW uTW uTW uTW uTW uTW uTW",
        "WW uTT uTT uTW uTT uTW uTW uTW uTT uTT",
        "WW uTT uLT uTW uLT uLW uLW uTW uTT uLT",
    ];
    for (row, line) in names.iter().zip(table) {
        for (col, want) in names.iter().zip(line.split(' ')) {
            assert_eq!(value(row).max(value(col)), value(want), "max({row}, {col})");
        }
    }
}
