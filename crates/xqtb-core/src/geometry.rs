//! Precomputed move geometry, built at compile time: steps of each piece kind from each point,
//! with the point that must be empty (elephant's eye, horse's leg), and the four rays.

use crate::piece::{Color, Role};
use crate::square::{can_occupy, in_palace, Square};

/// Up to `N` target points, each with an auxiliary point (eye or leg; unused for plain steps).
#[derive(Clone, Copy)]
pub struct Steps<const N: usize> {
    len: u8,
    to: [u8; N],
    aux: [u8; N],
}

impl<const N: usize> Steps<N> {
    const EMPTY: Self = Steps {
        len: 0,
        to: [0; N],
        aux: [0; N],
    };

    const fn push(mut self, to: u8, aux: u8) -> Self {
        self.to[self.len as usize] = to;
        self.aux[self.len as usize] = aux;
        self.len += 1;
        self
    }

    /// Target points.
    #[inline]
    pub fn targets(&self) -> &[u8] {
        &self.to[..self.len as usize]
    }

    /// (target, auxiliary point) pairs.
    #[inline]
    pub fn with_aux(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.to[..self.len as usize]
            .iter()
            .copied()
            .zip(self.aux[..self.len as usize].iter().copied())
    }
}

const fn in_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn sq(f: i32, r: i32) -> u8 {
    (r * 9 + f) as u8
}

/// In either palace (the palace rule itself lives in `square`).
const fn palace(f: i32, r: i32) -> bool {
    let s = Square::from_coords(f as u8, r as u8);
    in_palace(Color::Red, s) || in_palace(Color::Black, s)
}

/// Same palace (the two palaces are apart, so a step between palaces never happens anyway).
const fn same_half(r0: i32, r1: i32) -> bool {
    (r0 <= 4) == (r1 <= 4)
}

const ORTHO: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// One step in the given directions without leaving the palace: king (orthogonal) and advisor
/// (diagonal).
const fn palace_steps(dirs: [(i32, i32); 4]) -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if palace(f, r) {
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + dirs[d].0, r + dirs[d].1);
                if in_board(nf, nr) && palace(nf, nr) && same_half(r, nr) {
                    t[s] = t[s].push(sq(nf, nr), 0);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
}

/// Elephant steps (two points diagonally, never across the river); aux is the eye.
const fn elephant_steps() -> [Steps<4>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (nf, nr) = (f + 2 * DIAG[d].0, r + 2 * DIAG[d].1);
            if in_board(nf, nr) && same_half(r, nr) {
                t[s] = t[s].push(sq(nf, nr), sq(f + DIAG[d].0, r + DIAG[d].1));
            }
            d += 1;
        }
        s += 1;
    }
    t
}

const HORSE: [(i32, i32); 8] = [
    (1, 2),
    (-1, 2),
    (1, -2),
    (-1, -2),
    (2, 1),
    (2, -1),
    (-2, 1),
    (-2, -1),
];

/// The horse's leg for a jump by (df, dr): the point next to the origin along the long side.
const fn horse_leg(f: i32, r: i32, df: i32, dr: i32) -> u8 {
    if dr == 2 || dr == -2 {
        sq(f, r + dr / 2)
    } else {
        sq(f + df / 2, r)
    }
}

/// Horse jumps from a point; aux is the leg.
const fn horse_steps() -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = HORSE[d];
            if in_board(f + df, r + dr) {
                t[s] = t[s].push(sq(f + df, r + dr), horse_leg(f, r, df, dr));
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// Horse jumps *into* a point: (origin, leg of that jump). Used for check detection and retro moves.
const fn horse_sources() -> [Steps<8>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = HORSE[d];
            let (of, or) = (f - df, r - dr);
            if in_board(of, or) {
                t[s] = t[s].push(sq(of, or), horse_leg(of, or, df, dr));
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// Pawn steps for a colour (0 Red, moving up; 1 Black, moving down): forward, and sideways once
/// across the river.
const fn pawn_steps(color: usize) -> [Steps<3>; 90] {
    let mut t = [Steps::EMPTY; 90];
    let fwd = if color == 0 { 1 } else { -1 };
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_board(f, r + fwd) {
            t[s] = t[s].push(sq(f, r + fwd), 0);
        }
        let crossed = if color == 0 { r >= 5 } else { r <= 4 };
        if crossed {
            if f > 0 {
                t[s] = t[s].push(sq(f - 1, r), 0);
            }
            if f < 8 {
                t[s] = t[s].push(sq(f + 1, r), 0);
            }
        }
        s += 1;
    }
    t
}

/// Points from which a pawn of the colour steps onto each point (only points a pawn can stand
/// on: a retro move never puts a pawn back on its own back ranks or an odd file before the river).
const fn pawn_sources(color: usize) -> [Steps<3>; 90] {
    let steps = pawn_steps(color);
    let mut t = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let c = if color == 0 { Color::Red } else { Color::Black };
        if can_occupy(c, Role::Pawn, Square::new(s as u8)) {
            let mut i = 0;
            while i < steps[s].len as usize {
                let to = steps[s].to[i] as usize;
                t[to] = t[to].push(s as u8, 0);
                i += 1;
            }
        }
        s += 1;
    }
    t
}

/// A ray: points in one direction up to the edge, nearest first.
#[derive(Clone, Copy)]
pub struct Ray {
    len: u8,
    sq: [u8; 9],
}

impl Ray {
    /// The ray's points, nearest first.
    #[inline]
    pub fn squares(&self) -> &[u8] {
        &self.sq[..self.len as usize]
    }
}

const fn rays() -> [[Ray; 4]; 90] {
    let mut t = [[Ray { len: 0, sq: [0; 9] }; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (mut nf, mut nr) = (f + ORTHO[d].0, r + ORTHO[d].1);
            while in_board(nf, nr) {
                let ray = &mut t[s][d];
                ray.sq[ray.len as usize] = sq(nf, nr);
                ray.len += 1;
                nf += ORTHO[d].0;
                nr += ORTHO[d].1;
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// King steps from each point: one point orthogonally, inside the palace.
pub static KING_STEPS: [Steps<4>; 90] = palace_steps(ORTHO);
/// Advisor steps from each point: one point diagonally, inside the palace.
pub static ADVISOR_STEPS: [Steps<4>; 90] = palace_steps(DIAG);
/// Elephant steps from each point (two points diagonally, not across the river), with the eye.
pub static ELEPHANT_STEPS: [Steps<4>; 90] = elephant_steps();
/// Horse jumps from each point, with the leg.
pub static HORSE_STEPS: [Steps<8>; 90] = horse_steps();
/// Horse jumps into each point: the origins, with the leg of each jump.
pub static HORSE_SOURCES: [Steps<8>; 90] = horse_sources();
/// Pawn steps from each point, per colour (0 Red, 1 Black).
pub static PAWN_STEPS: [[Steps<3>; 90]; 2] = [pawn_steps(0), pawn_steps(1)];
/// Points from which a pawn of each colour (0 Red, 1 Black) steps onto each point.
pub static PAWN_SOURCES: [[Steps<3>; 90]; 2] = [pawn_sources(0), pawn_sources(1)];
/// [`HORSE_SOURCES`]' points as a bit set: whether any piece stands where a horse could
/// attack from, in one test.
pub static HORSE_SOURCE_MASKS: [u128; 90] = masks(&horse_sources(), false);
/// [`PAWN_SOURCES`]' points as bit sets, per colour.
pub static PAWN_SOURCE_MASKS: [[u128; 90]; 2] = [
    masks(&pawn_sources(0), false),
    masks(&pawn_sources(1), false),
];

/// The target points of each point's king, advisor, elephant and horse steps and of each
/// colour's pawn steps as bit sets: a piece with no enemy piece among them captures nothing
/// (one test).
pub static KING_STEP_MASKS: [u128; 90] = masks(&palace_steps(ORTHO), false);
/// See [`KING_STEP_MASKS`].
pub static ADVISOR_STEP_MASKS: [u128; 90] = masks(&palace_steps(DIAG), false);
/// See [`KING_STEP_MASKS`].
pub static ELEPHANT_STEP_MASKS: [u128; 90] = masks(&elephant_steps(), false);
/// See [`KING_STEP_MASKS`].
pub static HORSE_STEP_MASKS: [u128; 90] = masks(&horse_steps(), false);
/// See [`KING_STEP_MASKS`].
pub static PAWN_STEP_MASKS: [[u128; 90]; 2] =
    [masks(&pawn_steps(0), false), masks(&pawn_steps(1), false)];

/// The file and rank through each point (the point itself not included): where a rook,
/// cannon or facing king attacks along, and screens stand.
pub static LINE_MASKS: [u128; 90] = line_masks();
/// The legs of the horse jumps into each point ([`HORSE_SOURCES`]' aux points): a piece
/// leaving one may uncover a horse's attack on that point.
pub static HORSE_LEG_MASKS: [u128; 90] = masks(&horse_sources(), true);

const fn line_masks() -> [u128; 90] {
    let rays = ray_masks();
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        t[s] = rays[s][0] | rays[s][1] | rays[s][2] | rays[s][3];
        s += 1;
    }
    t
}

/// The target points of each point's steps (with `aux`, their aux points: legs, eyes) as a bit
/// set.
const fn masks<const N: usize>(steps: &[Steps<N>; 90], aux: bool) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < steps[s].len as usize {
            t[s] |= 1u128 << if aux { steps[s].aux[i] } else { steps[s].to[i] };
            i += 1;
        }
        s += 1;
    }
    t
}

/// The four orthogonal rays from each point: rank up, rank down, file up, file down.
pub static RAYS: [[Ray; 4]; 90] = rays();

/// The points of each ray as a bit set (bit `s` for point `s`), to find the first pieces along
/// a ray with bit scans. Rays 0 and 2 run towards higher point numbers ([`RAY_ASCENDS`]).
pub static RAY_MASKS: [[u128; 4]; 90] = ray_masks();
/// Whether ray `d` runs towards higher point numbers (up a file, right along a rank).
pub const RAY_ASCENDS: [bool; 4] = [true, false, true, false];

const fn ray_masks() -> [[u128; 4]; 90] {
    let rays = rays();
    let mut t = [[0u128; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut d = 0;
        while d < 4 {
            let ray = &rays[s][d];
            let mut i = 0;
            while i < ray.len as usize {
                t[s][d] |= 1u128 << ray.sq[i];
                i += 1;
            }
            d += 1;
        }
        s += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_masks_hold_the_rays_in_their_direction() {
        for s in 0..90 {
            for d in 0..4 {
                let ray = RAYS[s][d].squares();
                let mask = ray.iter().fold(0u128, |m, &q| m | 1 << q);
                assert_eq!(RAY_MASKS[s][d], mask);
                if let Some(&first) = ray.first() {
                    assert_eq!(RAY_ASCENDS[d], first as usize > s);
                }
            }
        }
    }
    use crate::square::Square;

    fn sq(name: &str) -> u8 {
        Square::parse(name).unwrap().index() as u8
    }

    fn names(pairs: impl Iterator<Item = (u8, u8)>) -> Vec<(String, String)> {
        let mut v: Vec<_> = pairs
            .map(|(a, b)| (Square::new(a).to_string(), Square::new(b).to_string()))
            .collect();
        v.sort();
        v
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut v: Vec<_> = list
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        v.sort();
        v
    }

    /// Hand-checked entries: a horse in the corner, an elephant on the river bank, a king and
    /// an advisor in the palace, pawns before and after the river.
    #[test]
    fn tables_hold_the_hand_checked_steps() {
        assert_eq!(
            names(HORSE_STEPS[sq("b0") as usize].with_aux()),
            pairs(&[("a2", "b1"), ("c2", "b1"), ("d1", "c0")])
        );
        assert_eq!(
            names(HORSE_SOURCES[sq("e9") as usize].with_aux()),
            pairs(&[("d7", "d8"), ("f7", "f8"), ("c8", "d8"), ("g8", "f8")])
        );
        assert_eq!(
            names(ELEPHANT_STEPS[sq("c4") as usize].with_aux()),
            pairs(&[("a2", "b3"), ("e2", "d3")])
        );
        assert_eq!(
            names(ELEPHANT_STEPS[sq("g5") as usize].with_aux()),
            pairs(&[("e7", "f6"), ("i7", "h6")])
        );
        let targets = |t: &[u8]| {
            let mut v: Vec<String> = t.iter().map(|&s| Square::new(s).to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(
            targets(KING_STEPS[sq("d0") as usize].targets()),
            ["d1", "e0"]
        );
        assert_eq!(
            targets(KING_STEPS[sq("e8") as usize].targets()),
            ["d8", "e7", "e9", "f8"]
        );
        assert_eq!(
            targets(ADVISOR_STEPS[sq("e1") as usize].targets()),
            ["d0", "d2", "f0", "f2"]
        );
        assert_eq!(targets(PAWN_STEPS[0][sq("c3") as usize].targets()), ["c4"]);
        assert_eq!(
            targets(PAWN_STEPS[0][sq("c5") as usize].targets()),
            ["b5", "c6", "d5"]
        );
        assert_eq!(
            targets(PAWN_STEPS[1][sq("a4") as usize].targets()),
            ["a3", "b4"]
        );
        assert_eq!(targets(PAWN_STEPS[0][sq("i9") as usize].targets()), ["h9"]);
        // A Red pawn reaches e5 from e4 or, across the river, from d5 and f5.
        assert_eq!(
            targets(PAWN_SOURCES[0][sq("e5") as usize].targets()),
            ["d5", "e4", "f5"]
        );
        // Before the river a pawn only ever stood on its file: d4 has no source behind it.
        assert_eq!(
            targets(PAWN_SOURCES[0][sq("d5") as usize].targets()),
            ["c5", "e5"]
        );
        assert_eq!(
            RAYS[sq("a0") as usize]
                .iter()
                .map(|r| r.squares().len())
                .sum::<usize>(),
            17
        );
    }
}
