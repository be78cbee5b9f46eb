//! A deliberately naive, independent reference for distance-to-conversion (DTC) values.
//!
//! Written from the definition alone, on top of the naive rules in `tests/reference/mod.rs`
//! (and nothing from the crate). For each material every legal position is enumerated by brute
//! force over the points each piece can occupy; the values are then computed by forward,
//! ply-by-ply fixpoint iteration over that explicit set of positions (no retrograde moves, no
//! counting of children). Captures lead to smaller materials, which are solved first by the same
//! solver, recursively down to `KK`.
//!
//! The definition: for each legal position (side to move; legal = the side not to move is not in
//! check) the value is a draw, or a distance `d` in plies, `d` odd = win for the side to move,
//! `d` even = loss.
//! - A conversion is a capture (the value of the child comes from the smaller material) or
//!   having no legal move.
//! - No legal move: loss, `d = 0` (checkmate and stalemate alike).
//! - A capture into a position lost for the opponent (any `d`): win, `d = 1`.
//! - Otherwise: win with `d = 1 +` the smallest `d` among quiet children lost for the opponent;
//!   loss with `d = 1 +` the largest `d` among quiet children won by the opponent when every
//!   child (quiet and capture) is won by the opponent (capture children do not extend it: a
//!   position whose every move is a capture won by the opponent is a loss with `d = 0`);
//!   everything never resolved is a draw.
//!
//! Iteration: step 0 resolves the conversions (no move: loss 0; a capture into a lost position:
//! win 1; every move a capture into a won position: loss 0). At step `k = 1, 2, ...` an
//! unresolved position becomes a win `d = k` if it has a quiet child resolved as a loss with
//! `d = k - 1`, and a loss `d = k` if every child is won by the opponent (captures by the smaller
//! table, quiet children resolved as wins with `d < k`) and the largest quiet `d` is
//! `k - 1`. Each step only reads values resolved at earlier steps. Stop when a step resolves
//! nothing.

#![allow(dead_code)]

use crate::reference::{
    in_check, legal_moves, role_index, split_material, to_fen, Board, Occupancy, Pc, RefPos,
};
use std::collections::{HashMap, HashSet};

/// The value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Value {
    Draw,
    /// Win in `d` plies (`d` odd).
    Win(u32),
    /// Loss in `d` plies (`d` even).
    Loss(u32),
}

impl Value {
    pub fn result(&self) -> &'static str {
        match self {
            Value::Draw => "draw",
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
        }
    }

    pub fn distance(&self) -> Option<u32> {
        match *self {
            Value::Draw => None,
            Value::Win(d) | Value::Loss(d) => Some(d),
        }
    }
}

/// A position as a map key: the board and whether Red is to move.
pub type Key = (Board, bool);

pub fn key_of(pos: &RefPos) -> Key {
    (pos.board, pos.red_to_move)
}

pub fn pos_of(key: &Key) -> RefPos {
    RefPos {
        board: key.0,
        red_to_move: key.1,
    }
}

/// A material as the role letters of each side, kings first, the others in `K A B N R C P`
/// order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Mat {
    pub red: Vec<char>,
    pub black: Vec<char>,
}

impl Mat {
    pub fn parse(s: &str) -> Mat {
        let (mut red, mut black) = split_material(s);
        red.sort_by_key(|&r| role_index(r));
        black.sort_by_key(|&r| role_index(r));
        assert_eq!(red.iter().filter(|&&r| r == 'K').count(), 1, "{s}");
        assert_eq!(black.iter().filter(|&&r| r == 'K').count(), 1, "{s}");
        Mat { red, black }
    }

    pub fn name(&self) -> String {
        self.red.iter().chain(self.black.iter()).collect()
    }

    /// The materials one capture away: one non-king piece of either side removed.
    pub fn captures(&self) -> Vec<Mat> {
        let mut v: Vec<Mat> = Vec::new();
        for side in [true, false] {
            let roles = if side { &self.red } else { &self.black };
            for (i, &role) in roles.iter().enumerate() {
                if role == 'K' {
                    continue;
                }
                let mut m = self.clone();
                if side {
                    m.red.remove(i);
                } else {
                    m.black.remove(i);
                }
                if !v.contains(&m) {
                    v.push(m);
                }
            }
        }
        v
    }

    /// The material of a position (by its pieces).
    pub fn of_pos(pos: &RefPos) -> Mat {
        let mut red = Vec::new();
        let mut black = Vec::new();
        for (_, (is_red, role)) in pos.pieces() {
            if is_red {
                red.push(role);
            } else {
                black.push(role);
            }
        }
        red.sort_by_key(|&r| role_index(r));
        black.sort_by_key(|&r| role_index(r));
        Mat { red, black }
    }
}

/// Every legal position of a material with the given side to move, by brute force: each piece
/// on each point it can occupy, no two on one point, deduplicated by board (identical pieces
/// give the same board), keeping those in which the side not to move is not in check. Sorted by
/// FEN so the order is deterministic.
pub fn enumerate(occ: &Occupancy, mat: &Mat, red_to_move: bool) -> Vec<RefPos> {
    let mut pieces: Vec<Pc> = mat.red.iter().map(|&r| (true, r)).collect();
    pieces.extend(mat.black.iter().map(|&r| (false, r)));
    let mut seen: HashSet<Board> = HashSet::new();
    let mut pos = RefPos::empty(red_to_move);
    place(occ, &pieces, 0, &mut pos, &mut seen);
    let mut v: Vec<RefPos> = seen
        .into_iter()
        .map(|board| RefPos { board, red_to_move })
        .filter(|p| !in_check(p, !red_to_move))
        .collect();
    v.sort_by_cached_key(to_fen);
    v
}

fn place(occ: &Occupancy, pieces: &[Pc], i: usize, pos: &mut RefPos, seen: &mut HashSet<Board>) {
    if i == pieces.len() {
        seen.insert(pos.board);
        return;
    }
    let (red, role) = pieces[i];
    for &p in occ.of(red, role) {
        if pos.at(p).is_some() {
            continue;
        }
        pos.set(p, Some((red, role)));
        place(occ, pieces, i + 1, pos, seen);
        pos.set(p, None);
    }
}

/// One solved material: its legal positions (both sides to move) and their values.
pub struct Table {
    pub mat: Mat,
    pub positions: Vec<RefPos>,
    pub values: Vec<Value>,
    pub index: HashMap<Key, usize>,
    /// Number of iteration steps that resolved something (after step 0).
    pub steps: u32,
}

impl Table {
    pub fn value(&self, pos: &RefPos) -> Option<Value> {
        self.index.get(&key_of(pos)).map(|&i| self.values[i])
    }
}

/// Win/draw/loss counts and the longest win for one side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SideStats {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub longest_win: u32,
    pub longest_loss: u32,
}

impl Table {
    pub fn stats(&self, red_to_move: bool) -> SideStats {
        let mut s = SideStats::default();
        for (p, v) in self.positions.iter().zip(&self.values) {
            if p.red_to_move != red_to_move {
                continue;
            }
            match *v {
                Value::Win(d) => {
                    s.wins += 1;
                    s.longest_win = s.longest_win.max(d);
                }
                Value::Draw => s.draws += 1,
                Value::Loss(d) => {
                    s.losses += 1;
                    s.longest_loss = s.longest_loss.max(d);
                }
            }
        }
        s
    }
}

/// A child of a position for the iteration: either a quiet move to a position of the same
/// material (by index) or a capture whose value is already final (from the smaller table).
#[derive(Clone, Copy, Debug)]
enum Child {
    Quiet(usize),
    Capture(Value),
}

/// Solves materials on demand, smaller ones first, and keeps every solved table.
pub struct Solver {
    pub occ: Occupancy,
    pub tables: HashMap<Mat, Table>,
}

impl Solver {
    pub fn new() -> Solver {
        Solver {
            occ: Occupancy::new(),
            tables: HashMap::new(),
        }
    }

    /// The value of any legal position whose material has been solved.
    pub fn value(&self, pos: &RefPos) -> Option<Value> {
        self.tables.get(&Mat::of_pos(pos))?.value(pos)
    }

    pub fn solve_str(&mut self, material: &str) -> &Table {
        let mat = Mat::parse(material);
        self.solve(&mat);
        &self.tables[&mat]
    }

    pub fn solve(&mut self, mat: &Mat) {
        if self.tables.contains_key(mat) {
            return;
        }
        for sub in mat.captures() {
            self.solve(&sub);
        }
        let table = self.solve_one(mat);
        self.tables.insert(mat.clone(), table);
    }

    fn solve_one(&self, mat: &Mat) -> Table {
        let mut positions = enumerate(&self.occ, mat, true);
        positions.extend(enumerate(&self.occ, mat, false));
        let index: HashMap<Key, usize> = positions
            .iter()
            .enumerate()
            .map(|(i, p)| (key_of(p), i))
            .collect();

        // The children of every position, found by playing every legal move forward.
        let children: Vec<Vec<Child>> = positions
            .iter()
            .map(|p| {
                legal_moves(p)
                    .into_iter()
                    .map(|m| {
                        let child = p.after(m);
                        if p.at(m.to).is_some() {
                            let v = self.value(&child).unwrap_or_else(|| {
                                panic!(
                                    "capture {} from {} leads to {}, not in a solved table",
                                    m.uci(),
                                    to_fen(p),
                                    to_fen(&child)
                                )
                            });
                            Child::Capture(v)
                        } else {
                            let i = *index.get(&key_of(&child)).unwrap_or_else(|| {
                                panic!(
                                    "quiet move {} from {} leads to {}, not enumerated",
                                    m.uci(),
                                    to_fen(p),
                                    to_fen(&child)
                                )
                            });
                            Child::Quiet(i)
                        }
                    })
                    .collect()
            })
            .collect();

        // `None` = not resolved (yet).
        let mut values: Vec<Option<Value>> = vec![None; positions.len()];

        // Step 0: conversions.
        for (i, ch) in children.iter().enumerate() {
            if ch.is_empty() {
                values[i] = Some(Value::Loss(0));
            } else if ch
                .iter()
                .any(|c| matches!(c, Child::Capture(Value::Loss(_))))
            {
                values[i] = Some(Value::Win(1));
            } else if ch
                .iter()
                .all(|c| matches!(c, Child::Capture(Value::Win(_))))
            {
                values[i] = Some(Value::Loss(0));
            }
        }

        // Steps k = 1, 2, ...: each reads only values resolved before it.
        let mut k = 0u32;
        loop {
            k += 1;
            let mut new: Vec<(usize, Value)> = Vec::new();
            for (i, ch) in children.iter().enumerate() {
                if values[i].is_some() {
                    continue;
                }
                // Win: a quiet child lost in exactly k - 1.
                let wins = ch.iter().any(|c| match *c {
                    Child::Quiet(j) => values[j] == Some(Value::Loss(k - 1)),
                    Child::Capture(_) => false,
                });
                if wins {
                    new.push((i, Value::Win(k)));
                    continue;
                }
                // Loss: every child won by the opponent, the largest quiet distance k - 1.
                let mut all_won = true;
                let mut largest_quiet: Option<u32> = None;
                for c in ch {
                    match *c {
                        Child::Capture(Value::Win(_)) => {}
                        Child::Capture(_) => all_won = false,
                        Child::Quiet(j) => match values[j] {
                            Some(Value::Win(d)) if d < k => {
                                largest_quiet = Some(largest_quiet.map_or(d, |x| x.max(d)));
                            }
                            _ => all_won = false,
                        },
                    }
                }
                if all_won && largest_quiet == Some(k - 1) {
                    new.push((i, Value::Loss(k)));
                }
            }
            if new.is_empty() {
                break;
            }
            for (i, v) in new {
                values[i] = Some(v);
            }
        }

        Table {
            mat: mat.clone(),
            positions,
            values: values
                .into_iter()
                .map(|v| v.unwrap_or(Value::Draw))
                .collect(),
            index,
            steps: k - 1,
        }
    }
}

/// Checks a solved table against the definition directly (a non-iterative restatement): every
/// value must be consistent with its children's values. Returns the first violation.
pub fn check_consistency(solver: &Solver, mat: &Mat) -> Result<(), String> {
    let table = &solver.tables[mat];
    for (p, &v) in table.positions.iter().zip(&table.values) {
        let moves = legal_moves(p);
        let kids: Vec<(bool, Value)> = moves
            .iter()
            .map(|&m| {
                let c = p.after(m);
                (p.at(m.to).is_some(), solver.value(&c).expect("child value"))
            })
            .collect();
        let expected = if kids.is_empty() {
            Some(Value::Loss(0))
        } else if kids
            .iter()
            .any(|&(cap, v)| cap && matches!(v, Value::Loss(_)))
        {
            Some(Value::Win(1))
        } else if let Some(d) = kids
            .iter()
            .filter_map(|&(cap, v)| match v {
                Value::Loss(d) if !cap => Some(d),
                _ => None,
            })
            .min()
        {
            Some(Value::Win(d + 1))
        } else if kids.iter().all(|&(_, v)| matches!(v, Value::Win(_))) {
            let largest = kids
                .iter()
                .filter_map(|&(cap, v)| match v {
                    Value::Win(d) if !cap => Some(d),
                    _ => None,
                })
                .max();
            Some(Value::Loss(largest.map_or(0, |d| d + 1)))
        } else {
            // Some child is a draw and none is lost: must be a draw.
            Some(Value::Draw)
        };
        if expected != Some(v) {
            return Err(format!(
                "{}: value {v:?}, children imply {expected:?}",
                to_fen(p)
            ));
        }
    }
    Ok(())
}
