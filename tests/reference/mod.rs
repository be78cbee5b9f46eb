//! A deliberately naive, independent reference implementation of Xiangqi move legality.
//!
//! Written from the rules alone (Yen et al., "Computer Chinese Chess", section 2.1.2, plus the
//! usual UCCI coordinates) and shares no code or tables with the crate: the board is a plain
//! `[[Option<(bool, char)>; 9]; 10]` indexed `[rank][file]`, every piece's moves are computed by
//! walking the board step by step, and even the points a piece can ever occupy are derived by
//! flood-filling its moves from its starting points on an empty board. Nothing here is fast; it
//! is meant to be obviously correct.
//!
//! Conventions: files a–i are 0–8, ranks 0–9, rank 0 is Red's back rank and Red moves up.
//! A piece is `(red, role)` with role one of `K A B N R C P` (king, advisor, elephant, horse,
//! rook, cannon, pawn).
//!
//! At the end, what the naive distance solvers (`dtc.rs`, `dtm.rs`) share: every legal position
//! of a material by enumeration, the moves between them as an explicit graph, the recursion over
//! smaller materials, and the check of a solved table against its definition.

#![allow(dead_code)]

use rand::Rng;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

/// A point: (file, rank).
pub type Pt = (i32, i32);
/// A piece: (is it Red?, role letter in upper case).
pub type Pc = (bool, char);
/// The board, `board[rank][file]`.
pub type Board = [[Option<Pc>; 9]; 10];

pub const ROLES: [char; 7] = ['K', 'A', 'B', 'N', 'R', 'C', 'P'];

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RefPos {
    pub board: Board,
    pub red_to_move: bool,
}

/// A move, from one point to another.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub struct RefMove {
    pub from: Pt,
    pub to: Pt,
}

pub fn pt_name(p: Pt) -> String {
    format!("{}{}", (b'a' + p.0 as u8) as char, p.1)
}

impl RefMove {
    /// UCCI text, e.g. `h2e2`.
    pub fn uci(&self) -> String {
        format!("{}{}", pt_name(self.from), pt_name(self.to))
    }
}

pub fn on_board(p: Pt) -> bool {
    p.0 >= 0 && p.0 <= 8 && p.1 >= 0 && p.1 <= 9
}

/// Is point `p` inside the palace of the given side? (files d–f; ranks 0–2 for Red, 7–9 for
/// Black).
pub fn in_palace(red: bool, p: Pt) -> bool {
    let files_ok = p.0 >= 3 && p.0 <= 5;
    let ranks_ok = if red {
        p.1 >= 0 && p.1 <= 2
    } else {
        p.1 >= 7 && p.1 <= 9
    };
    files_ok && ranks_ok
}

/// Is point `p` on the given side's own half of the river? (Red: ranks 0–4.)
pub fn own_side(red: bool, p: Pt) -> bool {
    if red {
        p.1 <= 4
    } else {
        p.1 >= 5
    }
}

impl RefPos {
    pub fn empty(red_to_move: bool) -> RefPos {
        RefPos {
            board: [[None; 9]; 10],
            red_to_move,
        }
    }

    pub fn at(&self, p: Pt) -> Option<Pc> {
        self.board[p.1 as usize][p.0 as usize]
    }

    pub fn set(&mut self, p: Pt, pc: Option<Pc>) {
        self.board[p.1 as usize][p.0 as usize] = pc;
    }

    /// Every piece with its point, rank by rank.
    pub fn pieces(&self) -> Vec<(Pt, Pc)> {
        let mut v = Vec::new();
        for rank in 0..10 {
            for file in 0..9 {
                if let Some(pc) = self.at((file, rank)) {
                    v.push(((file, rank), pc));
                }
            }
        }
        v
    }

    pub fn king(&self, red: bool) -> Option<Pt> {
        self.pieces()
            .into_iter()
            .find(|&(_, pc)| pc == (red, 'K'))
            .map(|(p, _)| p)
    }

    /// The position after moving whatever stands on `m.from` to `m.to` (capturing anything
    /// there), with the other side to move.
    pub fn after(&self, m: RefMove) -> RefPos {
        let mut q = self.clone();
        let pc = q.at(m.from);
        q.set(m.from, None);
        q.set(m.to, pc);
        q.red_to_move = !self.red_to_move;
        q
    }
}

/// Parses the board and side fields of a FEN (`w`/`r` = Red, `b` = Black). Panics on malformed
/// input: this is test code.
pub fn parse_fen(fen: &str) -> RefPos {
    let mut fields = fen.split_whitespace();
    let board = fields.next().expect("empty FEN");
    let red_to_move = match fields.next() {
        None | Some("w") | Some("r") => true,
        Some("b") => false,
        Some(x) => panic!("bad side field {x:?}"),
    };
    let rows: Vec<&str> = board.split('/').collect();
    assert_eq!(rows.len(), 10, "FEN needs 10 ranks: {fen}");
    let mut pos = RefPos::empty(red_to_move);
    for (i, row) in rows.iter().enumerate() {
        // The first row of a FEN is rank 9 (Black's back rank).
        let rank = 9 - i as i32;
        let mut file = 0i32;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as i32;
            } else {
                let red = c.is_ascii_uppercase();
                let role = match c.to_ascii_uppercase() {
                    'K' => 'K',
                    'A' => 'A',
                    'B' | 'E' => 'B',
                    'N' | 'H' => 'N',
                    'R' => 'R',
                    'C' => 'C',
                    'P' => 'P',
                    _ => panic!("bad piece letter {c:?} in {fen}"),
                };
                assert!(file < 9, "rank too long in {fen}");
                pos.set((file, rank), Some((red, role)));
                file += 1;
            }
        }
        assert_eq!(file, 9, "rank {rank} has wrong length in {fen}");
    }
    pos
}

/// Writes board and side fields followed by `- - 0 1`.
pub fn to_fen(pos: &RefPos) -> String {
    let mut s = String::new();
    for rank in (0..10).rev() {
        let mut gap = 0;
        for file in 0..9 {
            match pos.at((file, rank)) {
                None => gap += 1,
                Some((red, role)) => {
                    if gap > 0 {
                        s.push_str(&gap.to_string());
                        gap = 0;
                    }
                    s.push(if red { role } else { role.to_ascii_lowercase() });
                }
            }
        }
        if gap > 0 {
            s.push_str(&gap.to_string());
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push_str(if pos.red_to_move { " w" } else { " b" });
    s.push_str(" - - 0 1");
    s
}

const ORTHO: [Pt; 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [Pt; 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The moves of the piece on `from`, by the rules of its kind, ignoring whether its own king is
/// left in check: only the board geometry, blocking, and "never capture one's own piece".
pub fn piece_moves(pos: &RefPos, from: Pt) -> Vec<RefMove> {
    let (red, role) = match pos.at(from) {
        Some(pc) => pc,
        None => return Vec::new(),
    };
    let (f, r) = from;
    let mut targets: Vec<Pt> = Vec::new();
    match role {
        // King: one orthogonal step, staying in the palace.
        'K' => {
            for (df, dr) in ORTHO {
                let t = (f + df, r + dr);
                if in_palace(red, t) {
                    targets.push(t);
                }
            }
        }
        // Advisor: one diagonal step, staying in the palace.
        'A' => {
            for (df, dr) in DIAG {
                let t = (f + df, r + dr);
                if in_palace(red, t) {
                    targets.push(t);
                }
            }
        }
        // Elephant: exactly two diagonal steps, the midpoint ("eye") must be empty, and it never
        // crosses the river.
        'B' => {
            for (df, dr) in DIAG {
                let eye = (f + df, r + dr);
                let t = (f + 2 * df, r + 2 * dr);
                if on_board(t) && own_side(red, t) && pos.at(eye).is_none() {
                    targets.push(t);
                }
            }
        }
        // Horse: one orthogonal step (the "leg", which must be empty), then one diagonal step
        // continuing outward.
        'N' => {
            for (df, dr) in ORTHO {
                let leg = (f + df, r + dr);
                if !on_board(leg) || pos.at(leg).is_some() {
                    continue;
                }
                let ends: [Pt; 2] = if df != 0 {
                    [(f + 2 * df, r + 1), (f + 2 * df, r - 1)]
                } else {
                    [(f + 1, r + 2 * dr), (f - 1, r + 2 * dr)]
                };
                for t in ends {
                    if on_board(t) {
                        targets.push(t);
                    }
                }
            }
        }
        // Rook: slides orthogonally over empty points; may stop on the first piece it meets.
        'R' => {
            for (df, dr) in ORTHO {
                let mut t = (f + df, r + dr);
                while on_board(t) {
                    targets.push(t);
                    if pos.at(t).is_some() {
                        break;
                    }
                    t = (t.0 + df, t.1 + dr);
                }
            }
        }
        // Cannon: slides orthogonally to empty points; captures only by jumping exactly one
        // piece (the screen, of either colour) and landing on the next piece beyond it.
        'C' => {
            for (df, dr) in ORTHO {
                let mut t = (f + df, r + dr);
                let mut screen_seen = false;
                while on_board(t) {
                    match (pos.at(t), screen_seen) {
                        (None, false) => targets.push(t),
                        (None, true) => {}
                        (Some(_), false) => screen_seen = true,
                        (Some(_), true) => {
                            targets.push(t);
                            break;
                        }
                    }
                    t = (t.0 + df, t.1 + dr);
                }
            }
        }
        // Pawn: one step forward; once across the river also one step sideways; never back.
        'P' => {
            let forward = if red { 1 } else { -1 };
            targets.push((f, r + forward));
            let crossed = !own_side(red, from);
            if crossed {
                targets.push((f + 1, r));
                targets.push((f - 1, r));
            }
            targets.retain(|&t| on_board(t));
        }
        _ => panic!("unknown role {role:?}"),
    }
    targets
        .into_iter()
        .filter(|&t| match pos.at(t) {
            Some((other_red, _)) => other_red != red,
            None => true,
        })
        .map(|to| RefMove { from, to })
        .collect()
}

/// All moves of one side's pieces by their geometry (own king's safety ignored).
pub fn pseudo_moves(pos: &RefPos, red: bool) -> Vec<RefMove> {
    let mut v = Vec::new();
    for (p, (pc_red, _)) in pos.pieces() {
        if pc_red == red {
            v.extend(piece_moves(pos, p));
        }
    }
    v
}

/// Do the two kings stand on one file with nothing between them?
pub fn kings_face(pos: &RefPos) -> bool {
    let (Some(rk), Some(bk)) = (pos.king(true), pos.king(false)) else {
        return false;
    };
    if rk.0 != bk.0 {
        return false;
    }
    let (lo, hi) = (rk.1.min(bk.1), rk.1.max(bk.1));
    ((lo + 1)..hi).all(|rank| pos.at((rk.0, rank)).is_none())
}

/// Is the given side's king attacked: some enemy piece could move onto it, or the kings face
/// each other? (A side without a king is never in check.)
pub fn in_check(pos: &RefPos, red: bool) -> bool {
    let Some(k) = pos.king(red) else {
        return false;
    };
    if kings_face(pos) {
        return true;
    }
    pseudo_moves(pos, !red).iter().any(|m| m.to == k)
}

/// Is `m` a legal move for the side to move: one of its pieces' moves that does not leave its
/// own king in check (which includes leaving the kings facing each other)?
pub fn is_legal(pos: &RefPos, m: RefMove) -> bool {
    let us = pos.red_to_move;
    match pos.at(m.from) {
        Some((red, _)) if red == us => {
            piece_moves(pos, m.from).contains(&m) && !in_check(&pos.after(m), us)
        }
        _ => false,
    }
}

/// Legal moves of the side to move.
pub fn legal_moves(pos: &RefPos) -> Vec<RefMove> {
    pseudo_moves(pos, pos.red_to_move)
        .into_iter()
        .filter(|&m| is_legal(pos, m))
        .collect()
}

pub fn perft(pos: &RefPos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|&m| perft(&pos.after(m), depth - 1)).sum()
}

/// Where each kind of piece starts the game (Red's view; Black's mirror across the river).
fn start_points(red: bool, role: char) -> Vec<Pt> {
    let ranks = |r: i32| if red { r } else { 9 - r };
    let files: Vec<i32> = match role {
        'K' => vec![4],
        'A' => vec![3, 5],
        'B' => vec![2, 6],
        'N' => vec![1, 7],
        'R' => vec![0, 8],
        'C' => vec![1, 7],
        'P' => vec![0, 2, 4, 6, 8],
        _ => panic!("unknown role {role:?}"),
    };
    let rank = match role {
        'C' => 2,
        'P' => 3,
        _ => 0,
    };
    files.into_iter().map(|f| (f, ranks(rank))).collect()
}

/// Every point a piece of this side and kind can ever stand on: flood fill of its own moves on
/// an otherwise empty board, starting from its starting points.
pub fn reachable_points(red: bool, role: char) -> Vec<Pt> {
    let mut seen = [[false; 9]; 10];
    let mut stack = start_points(red, role);
    for &p in &stack {
        seen[p.1 as usize][p.0 as usize] = true;
    }
    while let Some(p) = stack.pop() {
        let mut lone = RefPos::empty(red);
        lone.set(p, Some((red, role)));
        for m in piece_moves(&lone, p) {
            if !seen[m.to.1 as usize][m.to.0 as usize] {
                seen[m.to.1 as usize][m.to.0 as usize] = true;
                stack.push(m.to);
            }
        }
    }
    let mut v = Vec::new();
    for rank in 0..10 {
        for file in 0..9 {
            if seen[rank as usize][file as usize] {
                v.push((file, rank));
            }
        }
    }
    v
}

/// The reachable points of every (side, role), computed once per call site.
#[derive(Clone)]
pub struct Occupancy {
    /// `points[red as usize][role index in ROLES]`
    pub points: [[Vec<Pt>; 7]; 2],
}

pub fn role_index(role: char) -> usize {
    ROLES.iter().position(|&r| r == role).expect("role")
}

impl Occupancy {
    pub fn new() -> Occupancy {
        let side = |red: bool| ROLES.map(|role| reachable_points(red, role));
        Occupancy {
            points: [side(false), side(true)],
        }
    }

    pub fn of(&self, red: bool, role: char) -> &[Pt] {
        &self.points[red as usize][role_index(role)]
    }

    pub fn can_occupy(&self, red: bool, role: char, p: Pt) -> bool {
        self.of(red, role).contains(&p)
    }

    /// Every piece of the position stands on a point it can reach.
    pub fn all_placed_well(&self, pos: &RefPos) -> bool {
        pos.pieces()
            .into_iter()
            .all(|(p, (red, role))| self.can_occupy(red, role, p))
    }
}

/// Splits a material string such as `KRKAABB` into Red's and Black's role letters (kings
/// included).
pub fn split_material(material: &str) -> (Vec<char>, Vec<char>) {
    let chars: Vec<char> = material.chars().map(|c| c.to_ascii_uppercase()).collect();
    assert_eq!(chars[0], 'K');
    let second_k = 1 + chars[1..]
        .iter()
        .position(|&c| c == 'K')
        .expect("black king");
    (chars[..second_k].to_vec(), chars[second_k..].to_vec())
}

/// Places the pieces uniformly at random on points each can occupy, rejecting collisions.
/// The result may be illegal (the side not to move may be in check).
pub fn random_placement<R: Rng>(
    occ: &Occupancy,
    red: &[char],
    black: &[char],
    red_to_move: bool,
    rng: &mut R,
) -> RefPos {
    'retry: loop {
        let mut pos = RefPos::empty(red_to_move);
        for (is_red, roles) in [(true, red), (false, black)] {
            for &role in roles {
                let pts = occ.of(is_red, role);
                let p = pts[rng.gen_range(0..pts.len())];
                if pos.at(p).is_some() {
                    continue 'retry;
                }
                pos.set(p, Some((is_red, role)));
            }
        }
        return pos;
    }
}

/// A uniformly random position whose legality (the side not to move not in check) is `legal`:
/// like [`random_placement`], rejecting the others.
pub fn random_with_legality<R: Rng>(
    occ: &Occupancy,
    red: &[char],
    black: &[char],
    red_to_move: bool,
    legal: bool,
    rng: &mut R,
) -> RefPos {
    loop {
        let pos = random_placement(occ, red, black, red_to_move, rng);
        if in_check(&pos, !red_to_move) != legal {
            return pos;
        }
    }
}

/// A uniformly random legal position.
pub fn random_legal<R: Rng>(
    occ: &Occupancy,
    red: &[char],
    black: &[char],
    red_to_move: bool,
    rng: &mut R,
) -> RefPos {
    random_with_legality(occ, red, black, red_to_move, true, rng)
}

/// A random position that is illegal: the side not to move is in check.
pub fn random_illegal<R: Rng>(
    occ: &Occupancy,
    red: &[char],
    black: &[char],
    red_to_move: bool,
    rng: &mut R,
) -> RefPos {
    random_with_legality(occ, red, black, red_to_move, false, rng)
}

/// Calls `visit` on every legal position with these pieces (kings included) and this side to
/// move, by naive enumeration: every placement of the pieces on points they can occupy, without
/// collisions, in which the side not to move is not in check. Identical pieces are placed on
/// increasing points so each set of points is visited once.
pub fn for_each_legal(
    occ: &Occupancy,
    red: &[char],
    black: &[char],
    red_to_move: bool,
    visit: &mut dyn FnMut(&RefPos),
) {
    let mut pieces: Vec<Pc> = red.iter().map(|&r| (true, r)).collect();
    pieces.extend(black.iter().map(|&r| (false, r)));
    // Identical pieces must be adjacent in the list for the "increasing point" rule.
    pieces.sort_by_key(|&(red, role)| (!red, role_index(role)));
    let mut pos = RefPos::empty(red_to_move);
    place_rest(occ, &pieces, 0, None, &mut pos, visit);
}

/// Counts the legal positions with the given material and side to move ([`for_each_legal`]).
pub fn count_legal(occ: &Occupancy, material: &str, red_to_move: bool) -> u64 {
    let (red, black) = split_material(material);
    let mut count = 0;
    for_each_legal(occ, &red, &black, red_to_move, &mut |_| count += 1);
    count
}

fn place_rest(
    occ: &Occupancy,
    pieces: &[Pc],
    i: usize,
    prev: Option<Pt>,
    pos: &mut RefPos,
    visit: &mut dyn FnMut(&RefPos),
) {
    if i == pieces.len() {
        if !in_check(pos, !pos.red_to_move) {
            visit(pos);
        }
        return;
    }
    let (red, role) = pieces[i];
    // Point order: rank-major, as (rank, file).
    let key = |p: Pt| p.1 * 9 + p.0;
    let same_as_prev = i > 0 && pieces[i - 1] == pieces[i];
    for &p in occ.of(red, role) {
        if same_as_prev && key(p) <= key(prev.unwrap()) {
            continue;
        }
        if pos.at(p).is_some() {
            continue;
        }
        pos.set(p, Some((red, role)));
        place_rest(occ, pieces, i + 1, Some(p), pos, visit);
        pos.set(p, None);
    }
}

/// Predecessors of `p` by brute force: for each piece of the side not to move in `p` and each
/// empty point, move the piece there and hand the move to that side; keep the predecessor if it
/// is a legal table position (pieces on their points, the side not to move there not in check)
/// and its legal non-capturing moves include the move that leads back to `p`. Returned as the
/// forward moves (from = point in the predecessor).
pub fn brute_force_retro(occ: &Occupancy, p: &RefPos) -> Vec<RefMove> {
    let mover = !p.red_to_move;
    let mut out = Vec::new();
    for (sq, (red, role)) in p.pieces() {
        if red != mover {
            continue;
        }
        for rank in 0..10 {
            for file in 0..9 {
                let t = (file, rank);
                if p.at(t).is_some() {
                    continue;
                }
                let mut q = p.clone();
                q.set(sq, None);
                q.set(t, Some((red, role)));
                q.red_to_move = mover;
                if !occ.all_placed_well(&q) || in_check(&q, !mover) {
                    continue;
                }
                let back = RefMove { from: t, to: sq };
                // The move lands on `sq`, empty in `q`, so it is non-capturing.
                if is_legal(&q, back) {
                    debug_assert_eq!(q.after(back), *p);
                    out.push(back);
                }
            }
        }
    }
    out
}

// Whole materials, solved by forward iteration. What the distance-to-conversion (`dtc.rs`) and
// distance-to-mate (`dtm.rs`) references share: the positions of a material, the moves between
// them, the recursion over smaller materials, and the check of a table against its definition.
// Each of them supplies only its own rules ([`Metric`]).

/// A position as a compact map key: the piece on each point as a byte (0 = empty, else 1 + its
/// role's index in [`ROLES`], plus 7 for Red), rank by rank, and whether Red is to move. An
/// eighth of a [`Board`]'s size, so that tables of a million positions fit in memory.
pub type Key = ([u8; 90], bool);

pub fn key_of(pos: &RefPos) -> Key {
    let mut cells = [0u8; 90];
    for (cell, pc) in cells.iter_mut().zip(pos.board.iter().flatten()) {
        *cell = pc.map_or(0, |(red, role)| 1 + role_index(role) as u8 + 7 * red as u8);
    }
    (cells, pos.red_to_move)
}

pub fn pos_of(key: &Key) -> RefPos {
    let mut pos = RefPos::empty(key.1);
    for (i, &cell) in key.0.iter().enumerate() {
        if cell != 0 {
            let code = (cell - 1) as usize;
            pos.board[i / 9][i % 9] = Some((code >= 7, ROLES[code % 7]));
        }
    }
    pos
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

/// Every legal position of a material with the given side to move ([`for_each_legal`]), in the
/// enumeration's (deterministic) order.
pub fn enumerate(occ: &Occupancy, mat: &Mat, red_to_move: bool) -> Vec<Key> {
    let mut v = Vec::new();
    for_each_legal(occ, &mat.red, &mat.black, red_to_move, &mut |p| {
        v.push(key_of(p))
    });
    v
}

/// A legal move of a [`Graph`]: to a position of the same material (by index), or a capture
/// into a smaller material (`sub` indexes [`Graph::subs`], `at` that material's positions).
#[derive(Clone, Copy, Debug)]
pub enum Edge {
    Quiet(usize),
    Capture { sub: usize, at: usize },
}

/// One material's legal positions (both sides to move) and every legal move from each, found
/// by playing the move forward and looking the child up.
pub struct Graph {
    pub mat: Mat,
    /// The positions, Red to move first ([`Graph::position`] gives one as a [`RefPos`]).
    pub keys: Vec<Key>,
    pub index: HashMap<Key, usize>,
    /// The materials one capture away ([`Mat::captures`]).
    pub subs: Vec<Mat>,
    /// Each position's moves, in [`legal_moves`] order.
    pub edges: Vec<Vec<Edge>>,
}

impl Graph {
    /// `subs` are the graphs of `mat.captures()`, in that order.
    fn build(occ: &Occupancy, mat: &Mat, subs: &[Arc<Graph>]) -> Graph {
        let mut keys = enumerate(occ, mat, true);
        keys.extend(enumerate(occ, mat, false));
        let index: HashMap<Key, usize> = keys.iter().enumerate().map(|(i, &k)| (k, i)).collect();
        let edges = keys
            .iter()
            .map(|k| {
                let p = pos_of(k);
                legal_moves(&p)
                    .into_iter()
                    .map(|m| edge(&p, m, &index, subs))
                    .collect()
            })
            .collect();
        Graph {
            mat: mat.clone(),
            keys,
            index,
            subs: subs.iter().map(|g| g.mat.clone()).collect(),
            edges,
        }
    }

    pub fn position(&self, i: usize) -> RefPos {
        pos_of(&self.keys[i])
    }
}

/// The edge of move `m` from `p`: the child looked up among `index` (a quiet move) or among the
/// positions of the smaller material it captures into.
fn edge(p: &RefPos, m: RefMove, index: &HashMap<Key, usize>, subs: &[Arc<Graph>]) -> Edge {
    let child = p.after(m);
    let missing = |what: &str| -> String {
        format!(
            "move {} from {} leads to {}, {what}",
            m.uci(),
            to_fen(p),
            to_fen(&child)
        )
    };
    if p.at(m.to).is_none() {
        let i = index.get(&key_of(&child));
        return Edge::Quiet(*i.unwrap_or_else(|| panic!("{}", missing("not enumerated"))));
    }
    let mat = Mat::of_pos(&child);
    let sub = subs.iter().position(|g| g.mat == mat);
    let sub = sub.unwrap_or_else(|| panic!("{}", missing("a material not one capture away")));
    let at = subs[sub].index.get(&key_of(&child));
    let at = *at.unwrap_or_else(|| panic!("{}", missing("not enumerated there")));
    Edge::Capture { sub, at }
}

/// The graphs of every material met so far, each built once (after the smaller ones, since a
/// capture edge points into them) and shared by solvers of different metrics: cloning shares
/// the graphs.
#[derive(Clone)]
pub struct Graphs {
    pub occ: Occupancy,
    built: HashMap<Mat, Arc<Graph>>,
}

impl Graphs {
    pub fn new() -> Graphs {
        Graphs {
            occ: Occupancy::new(),
            built: HashMap::new(),
        }
    }

    pub fn get(&mut self, mat: &Mat) -> Arc<Graph> {
        if let Some(g) = self.built.get(mat) {
            return g.clone();
        }
        let subs: Vec<Arc<Graph>> = mat.captures().iter().map(|s| self.get(s)).collect();
        let g = Arc::new(Graph::build(&self.occ, mat, &subs));
        self.built.insert(mat.clone(), g.clone());
        g
    }
}

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

    /// The distance of a win.
    pub fn win(self) -> Option<u32> {
        match self {
            Value::Win(d) => Some(d),
            _ => None,
        }
    }

    /// The distance of a loss.
    pub fn loss(self) -> Option<u32> {
        match self {
            Value::Loss(d) => Some(d),
            _ => None,
        }
    }
}

/// A child of a position as a metric's iteration sees it: a quiet move to a position of the
/// same material (by index), or a capture whose value is final (from the smaller table).
#[derive(Clone, Copy, Debug)]
pub enum Child {
    Quiet(usize),
    Capture(Value),
}

/// What distinguishes one distance metric from another: how a material's values follow from
/// its children.
pub trait Metric {
    /// The values of one material's positions by forward iteration, given each position's
    /// children, and the last step that resolved something.
    fn resolve(children: &[Vec<Child>]) -> (Vec<Value>, u32);

    /// The value the definition gives a position whose legal moves lead to `kids`, each as
    /// (is it a capture, the child's value): the definition restated without iteration.
    fn from_children(kids: &[(bool, Value)]) -> Value;
}

/// A step of [`iterate`]: the value step `k` gives an unresolved position with these children,
/// or `None`.
pub type Step = fn(&[Child], &[Option<Value>], u32) -> Option<Value>;

/// Forward fixpoint iteration over one material. `values` holds what step 0 resolved (`None`:
/// not yet); at step `k = 1, 2, ...` every unresolved position takes the value `step` gives it,
/// reading only values resolved at earlier steps. It stops at the first step that resolves
/// nothing once `k >= horizon`: values known from the start (step 0's, and those of captures)
/// may resolve positions up to step `horizon`, so an empty step before it is not the end. What
/// is never resolved is a draw. Returns the values and the last step that resolved something.
pub fn iterate(
    children: &[Vec<Child>],
    mut values: Vec<Option<Value>>,
    horizon: u32,
    step: Step,
) -> (Vec<Value>, u32) {
    let (mut k, mut last) = (0u32, 0u32);
    loop {
        k += 1;
        let new: Vec<(usize, Value)> = (0..children.len())
            .filter(|&i| values[i].is_none())
            .filter_map(|i| step(&children[i], &values, k).map(|v| (i, v)))
            .collect();
        if new.is_empty() && k >= horizon {
            break;
        }
        if !new.is_empty() {
            last = k;
        }
        for (i, v) in new {
            values[i] = Some(v);
        }
    }
    let values = values.into_iter().map(|v| v.unwrap_or(Value::Draw));
    (values.collect(), last)
}

/// One solved material: its graph and the values of its positions.
pub struct Table {
    pub graph: Arc<Graph>,
    pub values: Vec<Value>,
    /// The last iteration step that resolved something.
    pub steps: u32,
}

/// Win/draw/loss counts and the longest win and loss for one side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SideStats {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub longest_win: u32,
    pub longest_loss: u32,
}

impl Table {
    /// The positions in the order of [`Table::values`].
    pub fn positions(&self) -> impl Iterator<Item = RefPos> + '_ {
        self.graph.keys.iter().map(pos_of)
    }

    pub fn value(&self, pos: &RefPos) -> Option<Value> {
        self.graph.index.get(&key_of(pos)).map(|&i| self.values[i])
    }

    pub fn stats(&self, red_to_move: bool) -> SideStats {
        let mut s = SideStats::default();
        for (p, v) in self.positions().zip(&self.values) {
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

/// Solves materials of one metric on demand, smaller ones first, and keeps every solved table.
pub struct Solver<M: Metric> {
    pub graphs: Graphs,
    pub tables: HashMap<Mat, Table>,
    metric: PhantomData<M>,
}

impl<M: Metric> Solver<M> {
    pub fn new() -> Solver<M> {
        Solver::with_graphs(Graphs::new())
    }

    /// A solver that reuses the graphs another one built.
    pub fn with_graphs(graphs: Graphs) -> Solver<M> {
        Solver {
            graphs,
            tables: HashMap::new(),
            metric: PhantomData,
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
        let graph = self.graphs.get(mat);
        let children: Vec<Vec<Child>> = graph
            .edges
            .iter()
            .map(|es| es.iter().map(|&e| self.child(&graph, e)).collect())
            .collect();
        let (values, steps) = M::resolve(&children);
        let table = Table {
            graph,
            values,
            steps,
        };
        self.tables.insert(mat.clone(), table);
    }

    /// An edge as the iteration sees it: a capture valued by the smaller table.
    fn child(&self, graph: &Graph, e: Edge) -> Child {
        match e {
            Edge::Quiet(j) => Child::Quiet(j),
            Edge::Capture { sub, at } => Child::Capture(self.tables[&graph.subs[sub]].values[at]),
        }
    }
}

/// Checks a solved table against the definition directly: every value must be the one
/// [`Metric::from_children`] gives its children, found again by playing every legal move and
/// asking the solver. Returns the first violation.
pub fn check_consistency<M: Metric>(solver: &Solver<M>, mat: &Mat) -> Result<(), String> {
    let table = &solver.tables[mat];
    for (p, &v) in table.positions().zip(&table.values) {
        let kids: Vec<(bool, Value)> = legal_moves(&p)
            .iter()
            .map(|&m| {
                let c = p.after(m);
                (p.at(m.to).is_some(), solver.value(&c).expect("child value"))
            })
            .collect();
        let expected = M::from_children(&kids);
        if expected != v {
            return Err(format!(
                "{}: value {v:?}, children imply {expected:?}",
                to_fen(&p)
            ));
        }
    }
    Ok(())
}
