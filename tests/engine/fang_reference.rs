//! A second, plain implementation of Fang's Algorithms 1–8 ("The Nature of Retrograde Analysis
//! for Chinese Chess", Fang 2005), written straight from the paper's pseudo-code with ordinary
//! sets and repeat-until-nothing-changes loops. It shares no code with `xqtb::fang`: its own
//! graph, values and sets; nothing is counted, everything is re-scanned. Slow and obvious.
//!
//! Two corrections of the pseudo-code, both from the paper's own definitions: in Algorithms 6
//! and 8 a position is lost when all its children are *wins* (Definition 3; the pseudo-code
//! says "loss"), and the children of a position include its moves out of the table into
//! supporting databases (Section 5.3: distance to conversion).

#![allow(dead_code)]

use std::collections::BTreeSet;

pub type Set = BTreeSet<usize>;

/// A result for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Res {
    Win,
    Draw,
    Loss,
}

/// A database entry: unknown, draw, or (level r, distance d) with d odd a win.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Val {
    Unknown,
    Draw,
    Dec(u32, u32),
}

impl Val {
    /// `f` of Definition 8.
    pub fn f(self) -> Option<Res> {
        match self {
            Val::Unknown => None,
            Val::Draw => Some(Res::Draw),
            Val::Dec(_, d) if d % 2 == 1 => Some(Res::Win),
            Val::Dec(..) => Some(Res::Loss),
        }
    }
}

/// A chased piece: a side's king (`red` says whose) or a numbered piece.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Piece {
    King { red: bool },
    Other(u8),
}

#[derive(Clone, Debug)]
pub struct Mv {
    pub to: usize,
    pub check: bool,
    pub chases: Vec<u8>,
}

/// A game graph: who moves, the moves inside, and the results (for their side to move) of
/// the children outside the table.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub red: Vec<bool>,
    pub moves: Vec<Vec<Mv>>,
    pub outside: Vec<Vec<Res>>,
    pub red_pieces: Vec<u8>,
    pub black_pieces: Vec<u8>,
}

impl Graph {
    pub fn n(&self) -> usize {
        self.red.len()
    }

    fn chase(&self, m: &Mv, p: Piece) -> bool {
        match p {
            Piece::King { .. } => m.check,
            Piece::Other(id) => m.chases.contains(&id),
        }
    }

    fn has_move(&self, from: usize, to: usize) -> bool {
        self.moves[from].iter().any(|m| m.to == to)
    }
}

pub type Db = Vec<Val>;

fn unknown(db: &Db, v: usize) -> bool {
    db[v] == Val::Unknown
}

/// Algorithm 1, `G*(DB, G, p)`, or `G*(DB, G1, p)` for the subgraph induced by `within`.
/// Returns (W, L): attacker to move, defender to move.
pub fn alg1(g: &Graph, db: &Db, within: Option<&Set>, attacker_red: bool, p: Piece) -> (Set, Set) {
    let in_v = |v: usize| within.is_none_or(|s| s.contains(&v));
    let (mut w, mut l) = (Set::new(), Set::new());
    for u in 0..g.n() {
        if !in_v(u) || !unknown(db, u) || g.red[u] == attacker_red {
            continue;
        }
        let inside_ok = g.moves[u].iter().filter(|m| in_v(m.to)).all(|m| {
            let v = m.to;
            (unknown(db, v) || db[v].f() == Some(Res::Win)) && (!unknown(db, v) || g.chase(m, p))
        });
        let outside_ok = within.is_some() || g.outside[u].iter().all(|&r| r == Res::Win);
        if inside_ok && outside_ok {
            l.insert(u);
            for x in 0..g.n() {
                if in_v(x) && g.has_move(x, u) && unknown(db, x) {
                    w.insert(x);
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for u in l.clone() {
            let bad = g.moves[u]
                .iter()
                .any(|m| in_v(m.to) && unknown(db, m.to) && !w.contains(&m.to));
            if bad {
                l.remove(&u);
                changed = true;
            }
        }
        for v in w.clone() {
            if g.moves[v]
                .iter()
                .all(|m| !(in_v(m.to) && l.contains(&m.to)))
            {
                w.remove(&v);
                changed = true;
            }
        }
        if !changed {
            return (w, l);
        }
    }
}

/// Algorithm 2, `G*(DB, G, p, q)`: Red's moves chase `red_chases` (a Black piece), Black's
/// moves chase `black_chases` (a Red piece).
pub fn alg2(g: &Graph, db: &Db, red_chases: Piece, black_chases: Piece) -> Set {
    let qualifies = |u: usize, p: Piece| {
        g.moves[u].iter().all(|m| {
            let v = m.to;
            (unknown(db, v) || db[v].f() == Some(Res::Win)) && (!unknown(db, v) || g.chase(m, p))
        }) && g.outside[u].iter().all(|&r| r == Res::Win)
    };
    let mut v1: Set = (0..g.n())
        .filter(|&u| !g.red[u] && unknown(db, u) && qualifies(u, black_chases))
        .collect();
    let mut v2: Set = (0..g.n())
        .filter(|&u| g.red[u] && unknown(db, u) && qualifies(u, red_chases))
        .collect();
    loop {
        let mut changed = false;
        for u in v1.clone() {
            if g.moves[u]
                .iter()
                .any(|m| unknown(db, m.to) && !v2.contains(&m.to))
            {
                v1.remove(&u);
                changed = true;
            }
        }
        for v in v2.clone() {
            if g.moves[v]
                .iter()
                .any(|m| unknown(db, m.to) && !v1.contains(&m.to))
            {
                v2.remove(&v);
                changed = true;
            }
        }
        if !changed {
            return v1.union(&v2).copied().collect();
        }
    }
}

/// Algorithm 3, `G†(DB, G1, q)`, for the pattern (W, L) of `attacker_red`.
pub fn alg3(g: &Graph, db: &Db, wl: (Set, Set), attacker_red: bool, q: Piece) -> (Set, Set) {
    let (mut w, mut l) = wl;
    let g1: Set = w.union(&l).copied().collect();
    let (mut ws, mut ls) = alg1(g, db, Some(&g1), !attacker_red, q);
    l = l.difference(&ws).copied().collect();
    w = w.difference(&ls).copied().collect();
    while !ws.is_empty() || !ls.is_empty() {
        while let Some(u) = ws.pop_first() {
            for v in w.clone() {
                if g.has_move(v, u) && !g.moves[v].iter().any(|m| l.contains(&m.to)) {
                    w.remove(&v);
                    ls.insert(v);
                }
            }
        }
        while let Some(v) = ls.pop_first() {
            for u in l.clone() {
                if g.has_move(u, v) {
                    l.remove(&u);
                    ws.insert(u);
                }
            }
        }
    }
    (w, l)
}

/// Algorithm 4, `G†*(DB, G, p, q)`.
pub fn alg4(g: &Graph, db: &Db, attacker_red: bool, p: Piece, q: Piece) -> (Set, Set) {
    let mut g1 = alg1(g, db, None, attacker_red, p);
    loop {
        let g2 = alg3(g, db, g1.clone(), attacker_red, q);
        if g2 == g1 {
            return g1;
        }
        g1 = g2;
    }
}

/// The defender's pieces, its king included, for the loop (*) of Algorithm 5.
fn defender_pieces(g: &Graph, attacker_red: bool) -> Vec<Piece> {
    let ids = if attacker_red {
        &g.black_pieces
    } else {
        &g.red_pieces
    };
    std::iter::once(Piece::King { red: !attacker_red })
        .chain(ids.iter().map(|&i| Piece::Other(i)))
        .collect()
}

/// Algorithm 5, `G†*(DB, G, p)`.
pub fn alg5(g: &Graph, db: &Db, attacker_red: bool, p: Piece) -> (Set, Set) {
    let mut g1 = alg1(g, db, None, attacker_red, p);
    loop {
        let before = g1.clone();
        for q in defender_pieces(g, attacker_red) {
            g1 = alg3(g, db, g1, attacker_red, q);
        }
        if g1 == before {
            return g1;
        }
    }
}

/// Algorithm 7, `SetDraws`.
pub fn alg7(g: &Graph, db: &mut Db, seeds: &Set) {
    let mut d = seeds.clone();
    for &u in &d {
        db[u] = Val::Draw;
    }
    while let Some(u) = d.pop_first() {
        for v in 0..g.n() {
            if g.has_move(v, u) && unknown(db, v) {
                let all = g.moves[v]
                    .iter()
                    .all(|m| matches!(db[m.to].f(), Some(Res::Draw | Res::Win)))
                    && g.outside[v].iter().all(|&r| r != Res::Loss);
                if all {
                    d.insert(v);
                    db[v] = Val::Draw;
                }
            }
        }
    }
}

/// Terminal draws (Section 4.2): unknown, every child a draw or a win, one at least a draw.
pub fn terminal_draws(g: &Graph, db: &Db) -> Set {
    (0..g.n())
        .filter(|&u| {
            let kids: Vec<Res> = g.moves[u]
                .iter()
                .filter_map(|m| db[m.to].f())
                .chain(g.outside[u].iter().copied())
                .collect();
            unknown(db, u)
                && kids.len() == g.moves[u].len() + g.outside[u].len()
                && kids.iter().all(|&r| r != Res::Loss)
                && kids.contains(&Res::Draw)
        })
        .collect()
}

/// Which rules decide; the same meaning as the crate's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rules {
    None,
    Check,
    Asian,
}

/// Algorithm 8, with the optional draw markings of Algorithm 6 when `draws` (terminal draws in
/// the first iteration, mutual checking, mutual chasing).
pub fn alg8(g: &Graph, rules: Rules, draws: bool) -> Db {
    let n = g.n();
    let mut db = vec![Val::Unknown; n];
    let mut w: Set = (0..n)
        .filter(|&u| g.outside[u].contains(&Res::Loss))
        .collect();
    let mut l: Set = (0..n)
        .filter(|&u| g.moves[u].is_empty() && g.outside[u].iter().all(|&r| r == Res::Win))
        .filter(|u| !w.contains(u))
        .collect();
    let mut r = 0;
    let mut first = true;
    loop {
        let mut d = 0;
        loop {
            if d % 2 == 0 {
                for &u in &l {
                    db[u] = Val::Dec(r, d);
                    for v in 0..n {
                        if g.has_move(v, u) && unknown(&db, v) {
                            w.insert(v);
                        }
                    }
                }
                l.clear();
            } else {
                for &v in &w {
                    db[v] = Val::Dec(r, d);
                }
                for &v in &w {
                    for u in 0..n {
                        if g.has_move(u, v) && unknown(&db, u) && all_children_win(g, &db, u) {
                            l.insert(u);
                        }
                    }
                }
                w.clear();
            }
            d += 1;
            if w.is_empty() && l.is_empty() {
                break;
            }
        }
        r += 1;
        if draws && first {
            let t = terminal_draws(g, &db);
            alg7(g, &mut db, &t);
        }
        first = false;
        if draws {
            let m = alg2(
                g,
                &db,
                Piece::King { red: false },
                Piece::King { red: true },
            );
            alg7(g, &mut db, &m);
        }
        if rules == Rules::None {
            break;
        }
        let mut checks = Set::new();
        for attacker_red in [true, false] {
            let (_, loss) = alg4(
                g,
                &db,
                attacker_red,
                Piece::King { red: attacker_red },
                Piece::King { red: !attacker_red },
            );
            checks.extend(loss);
        }
        if !checks.is_empty() {
            l = checks;
            continue;
        }
        if rules == Rules::Check {
            break;
        }
        if draws {
            mutual_chase_draws(g, &mut db);
        }
        let mut chases = Set::new();
        for (attacker_red, ids) in [(true, &g.red_pieces), (false, &g.black_pieces)] {
            for &p in ids {
                let (_, loss) = alg5(g, &db, attacker_red, Piece::Other(p));
                chases.extend(loss);
            }
        }
        if chases.is_empty() {
            break;
        }
        l = chases;
    }
    db.iter()
        .map(|&v| if v == Val::Unknown { Val::Draw } else { v })
        .collect()
}

fn all_children_win(g: &Graph, db: &Db, u: usize) -> bool {
    g.moves[u].iter().all(|m| db[m.to].f() == Some(Res::Win))
        && g.outside[u].iter().all(|&r| r == Res::Win)
}

/// The mutual chasing patterns of Algorithm 6, marked as draws when neither side can be forced
/// to check inside them.
fn mutual_chase_draws(g: &Graph, db: &mut Db) {
    for &p in &g.red_pieces {
        for &q in &g.black_pieces {
            let m = alg2(g, db, Piece::Other(q), Piece::Other(p));
            if m.is_empty() {
                continue;
            }
            let red_forced = alg1(g, db, Some(&m), true, Piece::King { red: true });
            let black_forced = alg1(g, db, Some(&m), false, Piece::King { red: false });
            let empty = |(a, b): &(Set, Set)| a.is_empty() && b.is_empty();
            if empty(&red_forced) && empty(&black_forced) {
                alg7(g, db, &m);
            }
        }
    }
}

/// Algorithm 6: the complete win-draw-loss database (no distances).
pub fn alg6(g: &Graph, rules: Rules) -> Vec<Res> {
    let n = g.n();
    let mut db = vec![Val::Unknown; n];
    let win = Val::Dec(0, 1);
    let loss = Val::Dec(0, 0);
    let mut w: Set = (0..n)
        .filter(|&u| g.outside[u].contains(&Res::Loss))
        .collect();
    let mut l: Set = (0..n)
        .filter(|&u| g.moves[u].is_empty() && g.outside[u].iter().all(|&r| r == Res::Win))
        .filter(|u| !w.contains(u))
        .collect();
    loop {
        loop {
            for &u in &l {
                db[u] = loss;
                for v in 0..n {
                    if g.has_move(v, u) && unknown(&db, v) {
                        w.insert(v);
                    }
                }
            }
            l.clear();
            for &v in &w {
                db[v] = win;
            }
            for &v in &w {
                for u in 0..n {
                    if g.has_move(u, v) && unknown(&db, u) && all_children_win(g, &db, u) {
                        l.insert(u);
                    }
                }
            }
            w.clear();
            if w.is_empty() && l.is_empty() {
                break;
            }
        }
        if rules == Rules::None {
            break;
        }
        let mut checks = Set::new();
        for attacker_red in [true, false] {
            let king = |red| Piece::King { red };
            checks.extend(
                alg4(
                    g,
                    &db,
                    attacker_red,
                    king(attacker_red),
                    king(!attacker_red),
                )
                .1,
            );
        }
        if !checks.is_empty() {
            l = checks;
            continue;
        }
        if rules == Rules::Check {
            break;
        }
        let mut chases = Set::new();
        for (attacker_red, ids) in [(true, &g.red_pieces), (false, &g.black_pieces)] {
            for &p in ids {
                chases.extend(alg5(g, &db, attacker_red, Piece::Other(p)).1);
            }
        }
        if chases.is_empty() {
            break;
        }
        l = chases;
    }
    db.iter().map(|v| v.f().unwrap_or(Res::Draw)).collect()
}

/// The database after the first propagation phase of Algorithm 8 (no rules applied).
pub fn propagated(g: &Graph) -> Db {
    let mut db = alg8(g, Rules::None, false);
    for v in db.iter_mut() {
        if *v == Val::Draw {
            *v = Val::Unknown;
        }
    }
    db
}
