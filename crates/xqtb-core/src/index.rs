//! Position indexing: a dense numbering of the placements of a material, per side to move.
//!
//! Layout (specified byte-exactly in `formats/index.md`):
//! `index = pair * others_size + others`, where
//! - `pair` numbers the joint placements of both sides' *defenders* (king, advisors, elephants:
//!   pieces confined to their own palace or half), folded under the left–right mirror so that of
//!   a mirror pair only the canonical one is numbered;
//! - `others` is a mixed-radix number over the groups of Red's then Black's rooks, cannons,
//!   horses and pawns, each group of identical pieces ranked as an unordered combination
//!   (combinatorial number system) over the points that piece can occupy.
//!
//! Entries whose pieces collide decode to `None`; entries whose side not to move is in check are
//! illegal too (see [`Position::opponent_in_check`]).

use crate::geometry::{ADVISOR_STEPS, ELEPHANT_STEPS, KING_STEPS};
use crate::material::Material;
use crate::piece::{Color, Piece, Role};
use crate::position::{BitIter, Position};
use crate::square::{can_occupy, Square};
use strength_reduce::StrengthReducedU64;
use thiserror::Error;

/// Version of the index scheme; stored in table headers.
pub const INDEX_SCHEME_VERSION: u32 = 1;

/// Why a position could not be indexed, or an index not built.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum IndexError {
    /// The position's material is not the indexer's.
    #[error("position has material {found}, the index is for {expected}")]
    WrongMaterial {
        /// The indexer's material.
        expected: Material,
        /// The position's material.
        found: Material,
    },
    /// A piece stands on a point outside its role's domain, which the index does not number.
    #[error("{color:?} {role} on {square}, a point it can never occupy", role = .role.name())]
    BadSquare {
        /// The piece's side.
        color: Color,
        /// The piece's role.
        role: Role,
        /// The point it stands on.
        square: Square,
    },
    /// The material's index would not fit in a `u64`.
    #[error("the index of {0} would have more than 2^64 entries")]
    TooLarge(Material),
}

const fn binomials() -> [[u64; 6]; 91] {
    let mut t = [[0u64; 6]; 91];
    let mut n = 0;
    while n <= 90 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 6 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

/// `BINOM[n][k]` = n choose k, for n ≤ 90, k ≤ 5.
static BINOM: [[u64; 6]; 91] = binomials();

/// Rank of a k-subset given as strictly increasing slots (colex order): Σ C(slot_i, i + 1).
#[inline]
fn comb_rank(slots: &[u8]) -> u64 {
    slots
        .iter()
        .enumerate()
        .map(|(i, &s)| BINOM[s as usize][i + 1])
        .sum()
}

/// How the rank of a group of identical pieces (`code`, each on the point whose slot `slots`
/// gives) changes when the one in slot `a` of `pos` moves to slot `b` (wrapping); `None` if no
/// such piece stands in slot `a`.
#[inline(never)]
fn twin_rank_change(slots: &[u8; 90], code: u8, a: u8, b: u8, pos: &Position) -> Option<u64> {
    // Points ascend, and so do their slots: the group's slots come sorted. The moved piece's
    // term leaves; the others between its old and new place shift one term up or down.
    let color = Piece::from_code(code).map_or(Color::Red, |p| p.color());
    let (mut old, mut n) = ([0u8; 5], 0);
    for sq in BitIter(pos.occupied_by(color)) {
        if pos.codes()[sq as usize] == code && n < old.len() {
            old[n] = slots[sq as usize];
            n += 1;
        }
    }
    if !old[..n].contains(&a) {
        return None;
    }
    let (mut new, mut k, mut placed) = ([0u8; 5], 0, false);
    for &s in old[..n].iter().filter(|&&s| s != a) {
        if !placed && b < s {
            new[k] = b;
            k += 1;
            placed = true;
        }
        new[k] = s;
        k += 1;
    }
    if !placed {
        new[k] = b;
    }
    Some(comb_rank(&new[..n]).wrapping_sub(comb_rank(&old[..n])))
}

/// Inverse of [`comb_rank`] for k = `out.len()` slots below `n`.
#[inline]
fn comb_unrank(mut rank: u64, n: usize, out: &mut [u8]) {
    let mut hi = n; // every remaining slot is < hi
    for i in (0..out.len()).rev() {
        let k = i + 1;
        if k == 1 {
            out[0] = rank as u8;
            break;
        }
        // Largest c < hi with C(c, k) <= rank.
        let (mut lo, mut up) = (i, hi - 1);
        while lo < up {
            let mid = (lo + up).div_ceil(2);
            if BINOM[mid][k] <= rank {
                lo = mid;
            } else {
                up = mid - 1;
            }
        }
        out[i] = lo as u8;
        rank -= BINOM[lo][k];
        hi = lo;
    }
}

/// Insertion sort for the few slots of one group.
#[inline]
fn small_sort(a: &mut [u8]) {
    for i in 1..a.len() {
        let mut j = i;
        while j > 0 && a[j - 1] > a[j] {
            a.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The points a piece of one colour and role may occupy, in increasing order, and the inverse.
#[derive(Clone)]
struct Domain {
    points: Vec<u8>,
    slot: [u8; 90],
}

const NO_SLOT: u8 = u8::MAX;

impl Domain {
    fn new(color: Color, role: Role) -> Domain {
        let points: Vec<u8> = Square::all()
            .filter(|&s| can_occupy(color, role, s))
            .map(|s| s.index() as u8)
            .collect();
        let mut slot = [NO_SLOT; 90];
        for (i, &p) in points.iter().enumerate() {
            slot[p as usize] = i as u8;
        }
        Domain { points, slot }
    }

    /// Sorted slots of these points, or the first point outside the domain.
    #[inline]
    fn slots<const N: usize>(
        &self,
        squares: &[u8],
        mirror: bool,
        out: &mut [u8; N],
    ) -> Result<(), u8> {
        for (o, &s) in out.iter_mut().zip(squares) {
            let s = if mirror {
                Square::new(s).mirror().index() as u8
            } else {
                s
            };
            *o = self.slot[s as usize];
            if *o == NO_SLOT {
                return Err(s);
            }
        }
        // Points arrive in increasing order and the domain is in increasing order, so slots are
        // sorted already; the mirror reverses files, so then they need sorting.
        if mirror {
            small_sort(&mut out[..squares.len()]);
        }
        Ok(())
    }
}

/// The direction of a defender's step (king ±1 file or ±1 rank, advisor ±8 or ±10 points,
/// elephant ±16 or ±20): 0 to 3, distinct for the steps of one piece from one point.
#[inline]
fn step_direction(from: u8, to: u8) -> usize {
    match to as i32 - from as i32 {
        1 | 8 | 16 => 0,
        -1 | -8 | -16 => 1,
        9 | 10 | 20 => 2,
        _ => 3,
    }
}

/// One side's defenders (king, advisors, elephants): their legal joint placements.
struct Defenders {
    color: Color,
    n_adv: usize,
    n_ele: usize,
    king: Domain,
    adv: Domain,
    ele: Domain,
    /// Squares of each placement: king, then advisors, then elephants (increasing).
    placements: Vec<[u8; 5]>,
    /// Placement number of each placement's mirror image.
    mirror: Vec<u32>,
    /// Mixed-radix raw code (king slot, advisor rank, elephant rank) → placement number.
    lookup: Vec<u32>,
    /// The placement after one step: entry `(p · 5 + k) · 4 + direction(to − from)` for piece
    /// `k` of placement `p` (king, advisors, elephants) stepping to an empty point; `NONE` if
    /// the step leaves the domain or lands on another defender.
    step: Vec<u32>,
    /// Radices of the raw code: C(5, advisors), C(7, elephants).
    a_size: u64,
    e_size: u64,
}

const NONE: u32 = u32::MAX;

impl Defenders {
    fn new(color: Color, n_adv: usize, n_ele: usize) -> Defenders {
        let king = Domain::new(color, Role::King);
        let adv = Domain::new(color, Role::Advisor);
        let ele = Domain::new(color, Role::Elephant);
        let (a_size, e_size) = (
            BINOM[adv.points.len()][n_adv],
            BINOM[ele.points.len()][n_ele],
        );
        let raw_size = king.points.len() as u64 * a_size * e_size;
        let mut d = Defenders {
            color,
            n_adv,
            n_ele,
            king,
            adv,
            ele,
            placements: Vec::new(),
            mirror: Vec::new(),
            lookup: vec![NONE; raw_size as usize],
            step: Vec::new(),
            a_size,
            e_size,
        };
        for raw in 0..raw_size {
            let (k, a, e) = (raw / (a_size * e_size), raw / e_size % a_size, raw % e_size);
            let mut sq = [u8::MAX; 5];
            sq[0] = d.king.points[k as usize];
            let mut slots = [0u8; 2];
            comb_unrank(a, d.adv.points.len(), &mut slots[..n_adv]);
            for i in 0..n_adv {
                sq[1 + i] = d.adv.points[slots[i] as usize];
            }
            comb_unrank(e, d.ele.points.len(), &mut slots[..n_ele]);
            for i in 0..n_ele {
                sq[1 + n_adv + i] = d.ele.points[slots[i] as usize];
            }
            let used = &sq[..1 + n_adv + n_ele];
            // King and advisor points overlap in the palace, and so do king and elephant at e2/e7.
            if used[1..].contains(&used[0]) {
                continue;
            }
            d.lookup[raw as usize] = d.placements.len() as u32;
            d.placements.push(sq);
        }
        d.mirror = (0..d.placements.len())
            .map(|i| {
                let sq = d.placements[i];
                d.find(&sq[..1 + n_adv + n_ele], true)
                    .expect("mirror of a placement is a placement")
            })
            .collect();
        d.step = d.steps();
        d
    }

    /// The step table (see [`Defenders::step`]), from the pieces' real steps.
    fn steps(&self) -> Vec<u32> {
        let n = 1 + self.n_adv + self.n_ele;
        let mut table = vec![NONE; self.placements.len() * 20];
        for (p, sq) in self.placements.iter().enumerate() {
            for k in 0..n {
                let targets = match k {
                    0 => KING_STEPS[sq[0] as usize].targets(),
                    k if k <= self.n_adv => ADVISOR_STEPS[sq[k] as usize].targets(),
                    _ => ELEPHANT_STEPS[sq[k] as usize].targets(),
                };
                for &t in targets {
                    if sq[..n].contains(&t) {
                        continue;
                    }
                    let mut moved = *sq;
                    moved[k] = t;
                    if k > 0 && k <= self.n_adv {
                        small_sort(&mut moved[1..1 + self.n_adv]);
                    } else if k > self.n_adv {
                        small_sort(&mut moved[1 + self.n_adv..n]);
                    }
                    if let Ok(q) = self.find(&moved[..n], false) {
                        table[(p * 5 + k) * 4 + step_direction(sq[k], t)] = q;
                    }
                }
            }
        }
        table
    }

    /// The placement after piece `from` of placement `p` steps to the empty point `to`.
    #[inline]
    fn stepped(&self, p: u32, from: u8, to: u8) -> Option<u32> {
        let sq = &self.placements[p as usize];
        let k = sq[..1 + self.n_adv + self.n_ele]
            .iter()
            .position(|&s| s == from)?;
        match self.step[(p as usize * 5 + k) * 4 + step_direction(from, to)] {
            NONE => None,
            q => Some(q),
        }
    }

    fn len(&self) -> usize {
        self.placements.len()
    }

    /// Placement number of defenders on these squares (king first, then advisors, elephants).
    #[inline]
    fn find(&self, sq: &[u8], mirror: bool) -> Result<u32, u8> {
        let (mut ks, mut a, mut e) = ([0u8; 1], [0u8; 2], [0u8; 2]);
        self.king.slots(&sq[..1], mirror, &mut ks)?;
        self.adv.slots(&sq[1..1 + self.n_adv], mirror, &mut a)?;
        self.ele.slots(&sq[1 + self.n_adv..], mirror, &mut e)?;
        let raw = (ks[0] as u64 * self.a_size + comb_rank(&a[..self.n_adv])) * self.e_size
            + comb_rank(&e[..self.n_ele]);
        match self.lookup[raw as usize] {
            NONE => Err(sq[0]), // king on a defender's point: cannot come from a real position
            p => Ok(p),
        }
    }

    fn place(&self, p: u32, pos: &mut Position) {
        let sq = &self.placements[p as usize];
        let roles = std::iter::once(Role::King)
            .chain(std::iter::repeat_n(Role::Advisor, self.n_adv))
            .chain(std::iter::repeat_n(Role::Elephant, self.n_ele));
        for (&s, role) in sq.iter().zip(roles) {
            pos.put(Square::new(s), Piece::new(self.color, role));
        }
    }
}

/// A group of identical non-defender pieces of one colour.
struct Group {
    color: Color,
    role: Role,
    count: usize,
    /// First position of this group's squares in the gather buffer.
    base: usize,
    domain: Domain,
    /// The group's radix, C(domain points, count), with its precomputed reciprocal.
    size: StrengthReducedU64,
    /// The rank of each rank's mirror image (empty for groups with more than
    /// [`MAX_MIRROR_TABLE`] ranks: five pawns would need 14 MB).
    mirror_rank: Vec<u32>,
}

/// Largest group radix given a mirror table.
const MAX_MIRROR_TABLE: u64 = 1 << 17;

/// The rank of the mirror image of each placement of `count` pieces on `domain`.
fn mirror_ranks(domain: &Domain, count: usize) -> Vec<u32> {
    let n = BINOM[domain.points.len()][count];
    if n > MAX_MIRROR_TABLE {
        return Vec::new();
    }
    (0..n)
        .map(|rank| {
            let mut slots = [0u8; 5];
            comb_unrank(rank, domain.points.len(), &mut slots[..count]);
            let squares: Vec<u8> = slots[..count]
                .iter()
                .map(|&s| domain.points[s as usize])
                .collect();
            let mut mirrored = [0u8; 5];
            domain
                .slots(&squares, true, &mut mirrored)
                .expect("attackers' domains are mirror-symmetric");
            comb_rank(&mirrored[..count]) as u32
        })
        .collect()
}

/// The index of one material (the same numbering for both sides to move).
pub struct Indexer {
    material: Material,
    defenders: [Defenders; 2],
    /// Red placements `r` with `r <= mirror(r)`, in increasing order.
    red_canon: Vec<u32>,
    /// Position of each red placement in `red_canon` (NONE if not canonical).
    red_canon_pos: Vec<u32>,
    /// First pair number of each entry of `red_canon`.
    pair_start: Vec<u64>,
    /// Black placements `b` with `b <= mirror(b)` (paired with mirror-symmetric red placements).
    black_sym: Vec<u32>,
    black_sym_rank: Vec<u32>,
    pairs: u64,
    groups: Vec<Group>,
    /// The `others` radix with its precomputed reciprocal.
    others_size: StrengthReducedU64,
    size: u64,
    /// Where each piece code's squares go in the flat gather buffer (see [`Indexer::encode`]):
    /// Red's defenders, Black's defenders, then the groups in index order.
    slot_base: [u8; 16],
    /// How many pieces of each code the material has.
    expected: [u8; 16],
    /// For an attacker's piece code (a rook, horse, cannon or pawn): its group's weight in the
    /// index (the product of the later groups' radices) and the group's number.
    attacker_group: [Option<(u64, usize)>; 16],
}

impl Indexer {
    /// Builds the index of `material` (its tables of defender placements and attacker
    /// groups); [`IndexError::TooLarge`] if it would have more than 2^64 entries.
    pub fn new(material: Material) -> Result<Indexer, IndexError> {
        let def = |c: Color| {
            Defenders::new(
                c,
                material.count(c, Role::Advisor) as usize,
                material.count(c, Role::Elephant) as usize,
            )
        };
        let defenders = [def(Color::Red), def(Color::Black)];
        let [red, black] = &defenders;

        let mut red_canon = Vec::new();
        let mut red_canon_pos = vec![NONE; red.len()];
        let mut black_sym = Vec::new();
        let mut black_sym_rank = vec![NONE; black.len()];
        for b in 0..black.len() as u32 {
            if b <= black.mirror[b as usize] {
                black_sym_rank[b as usize] = black_sym.len() as u32;
                black_sym.push(b);
            }
        }
        let mut pair_start = Vec::new();
        let mut pairs = 0u64;
        for r in 0..red.len() as u32 {
            let m = red.mirror[r as usize];
            if r <= m {
                red_canon_pos[r as usize] = red_canon.len() as u32;
                red_canon.push(r);
                pair_start.push(pairs);
                pairs += if r < m {
                    black.len() as u64
                } else {
                    black_sym.len() as u64
                };
            }
        }

        // Gather-buffer layout: each colour's king, advisors, elephants, then the groups.
        let mut slot_base = [0u8; 16];
        let mut expected = [0u8; 16];
        let mut next = 0usize;
        for color in Color::ALL {
            for role in [Role::King, Role::Advisor, Role::Elephant] {
                let code = Piece::new(color, role).code() as usize;
                slot_base[code] = next as u8;
                expected[code] = material.count(color, role);
                next += expected[code] as usize;
            }
        }
        let mut groups = Vec::new();
        for color in Color::ALL {
            for role in [Role::Rook, Role::Cannon, Role::Horse, Role::Pawn] {
                let count = material.count(color, role) as usize;
                let code = Piece::new(color, role).code() as usize;
                slot_base[code] = next as u8;
                expected[code] = count as u8;
                if count > 0 {
                    let domain = Domain::new(color, role);
                    let size = BINOM[domain.points.len()][count];
                    groups.push(Group {
                        color,
                        role,
                        count,
                        base: next,
                        mirror_rank: mirror_ranks(&domain, count),
                        domain,
                        size: StrengthReducedU64::new(size),
                    });
                }
                next += count;
            }
        }
        let too_large = || IndexError::TooLarge(material);
        let others_size = groups
            .iter()
            .try_fold(1u64, |acc, g| acc.checked_mul(g.size.get()))
            .ok_or_else(too_large)?;
        let size = pairs.checked_mul(others_size).ok_or_else(too_large)?;
        let mut attacker_group = [None; 16];
        let mut weight = 1u64;
        for (g, grp) in groups.iter().enumerate().rev() {
            attacker_group[Piece::new(grp.color, grp.role).code() as usize] = Some((weight, g));
            weight *= grp.size.get();
        }
        Ok(Indexer {
            material,
            defenders,
            red_canon,
            red_canon_pos,
            pair_start,
            black_sym,
            black_sym_rank,
            pairs,
            groups,
            others_size: StrengthReducedU64::new(others_size),
            size,
            slot_base,
            expected,
            attacker_group,
        })
    }

    /// The material this index numbers.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indices per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of (mirror-folded) joint defender placements: the `pair` range.
    pub fn pair_count(&self) -> u64 {
        self.pairs
    }

    /// Product of the group sizes: the `others` range.
    pub fn others_size(&self) -> u64 {
        self.others_size.get()
    }

    /// The placement pair of a pair number.
    #[inline]
    fn pair(&self, pair: u64) -> (u32, u32) {
        let j = self.pair_start.partition_point(|&s| s <= pair) - 1;
        let r = self.red_canon[j];
        let off = pair - self.pair_start[j];
        let b = if r < self.defenders[0].mirror[r as usize] {
            off as u32
        } else {
            self.black_sym[off as usize]
        };
        (r, b)
    }

    /// Are both sides' defenders symmetric? Then the entry and its mirror image are numbered
    /// separately; otherwise the entry stands for itself and its mirror image.
    #[inline]
    fn pair_symmetric(&self, r: u32, b: u32) -> bool {
        self.defenders[0].mirror[r as usize] == r && self.defenders[1].mirror[b as usize] == b
    }

    /// How many real positions an entry stands for: 2 (itself and its distinct mirror image),
    /// or 1 where the mirror image has an entry of its own or is the same position; 0 for an
    /// index past the end.
    #[inline]
    pub fn multiplicity(&self, index: u64) -> u8 {
        if index >= self.size {
            return 0;
        }
        let (r, b) = self.pair(index / self.others_size);
        if self.pair_symmetric(r, b) {
            1
        } else {
            2
        }
    }

    /// The position of an index with `turn` to move; `None` where two pieces would share a point.
    /// Also `None` for an index past the end.
    pub fn decode(&self, index: u64, turn: Color) -> Option<Position> {
        if index >= self.size {
            return None;
        }
        // Divisions by the fixed radices go through precomputed reciprocals: plain 64-bit
        // divisions were most of decode's time.
        let (pair, rest) = StrengthReducedU64::div_rem(index, self.others_size);
        let mut pos = self.defenders_of(pair, turn);
        self.place_others(rest, &mut pos, &mut Placed::default())
            .then_some(pos)
    }

    /// A board with the defenders of pair `pair` only.
    #[inline]
    fn defenders_of(&self, pair: u64, turn: Color) -> Position {
        let (r, b) = self.pair(pair);
        self.defenders_placed(r, b, turn)
    }

    /// A board holding the defenders of placements `r` (Red) and `b` (Black).
    fn defenders_placed(&self, r: u32, b: u32, turn: Color) -> Position {
        let mut pos = Position::empty(turn);
        self.defenders[0].place(r, &mut pos);
        self.defenders[1].place(b, &mut pos);
        pos
    }

    /// Puts the attackers of `others` on a board holding the defenders, noting their points in
    /// `placed`; false where two pieces would share a point (those placed before stay). Groups
    /// `placed` holds whole with the same rank stay on the board: consecutive indices differ
    /// mostly in the last group, so a [`Decoder`] walking them re-places one group, not all.
    #[inline]
    fn place_others(&self, mut rest: u64, pos: &mut Position, placed: &mut Placed) -> bool {
        let n = self.groups.len();
        let mut ranks = [0u64; MAX_GROUPS];
        // Sorted and consecutive indices mostly differ in the last group's rank only: within
        // the run of the last decode, no division (they were 6 % of the initialisation).
        match n.checked_sub(1) {
            Some(last)
                if placed.done == n
                    && rest
                        .checked_sub(placed.run)
                        .is_some_and(|r| r < self.groups[last].size.get()) =>
            {
                ranks = placed.ranks;
                ranks[last] = rest - placed.run;
            }
            _ => {
                let at = rest;
                for (i, g) in self.groups.iter().enumerate().rev() {
                    let (q, rank) = StrengthReducedU64::div_rem(rest, g.size);
                    rest = q;
                    ranks[i] = rank;
                }
                if let Some(last) = n.checked_sub(1) {
                    placed.run = at - ranks[last];
                }
            }
        }
        // Groups are placed from the most significant (the first), so the ones kept are a
        // prefix of what is on the board.
        let mut keep = 0;
        while keep < placed.done && placed.ranks[keep] == ranks[keep] {
            keep += 1;
        }
        let from = if keep == 0 {
            0
        } else {
            placed.ends[keep - 1] as usize
        };
        for &p in &placed.points[from..placed.len] {
            let taken = pos.remove(Square::new(p));
            debug_assert!(
                taken.is_some(),
                "a borrower left the pieces as it found them"
            );
        }
        placed.len = from;
        placed.done = keep;
        for (i, g) in self.groups.iter().enumerate().skip(keep) {
            let mut slots = [0u8; 5];
            comb_unrank(ranks[i], g.domain.points.len(), &mut slots[..g.count]);
            for &s in &slots[..g.count] {
                let point = g.domain.points[s as usize];
                if !pos.put(Square::new(point), Piece::new(g.color, g.role)) {
                    return false;
                }
                placed.points[placed.len] = point;
                placed.len += 1;
            }
            placed.ranks[i] = ranks[i];
            placed.ends[i] = placed.len as u8;
            placed.done = i + 1;
        }
        debug_assert_eq!(placed.done, n);
        true
    }

    /// The index of a position of this material (its mirror image's where that is the one
    /// numbered). The side to move is not part of the index.
    pub fn encode(&self, pos: &Position) -> Result<u64, IndexError> {
        self.encode_mirrored(pos).map(|(index, _)| index)
    }

    /// The index of the position reached from `index`'s own position `pos` (as
    /// [`Indexer::decode`] gives it) by moving its piece with `code` from `from` to `to`, where
    /// that piece is an attacker (a rook, horse, cannon or pawn): only its group's rank changes,
    /// so this is a few operations instead of a full [`Indexer::encode`]. With identical pieces
    /// (two horses, say) the rank comes from the group's other points in `pos`. `None` when the
    /// shortcut does not apply (defenders, a point outside the domain).
    #[inline]
    pub fn moved(
        &self,
        index: u64,
        code: u8,
        from: Square,
        to: Square,
        pos: &Position,
    ) -> Option<u64> {
        let (weight, g) = self.attacker_group[code as usize & 15]?;
        let grp = &self.groups[g];
        let slots = &grp.domain.slot;
        let (a, b) = (slots[from.index()], slots[to.index()]);
        if a == NO_SLOT || b == NO_SLOT {
            return None;
        }
        let delta = if grp.count == 1 {
            (b as u64).wrapping_sub(a as u64)
        } else {
            twin_rank_change(slots, code, a, b, pos)?
        };
        Some(index.wrapping_add(delta.wrapping_mul(weight)))
    }

    /// The defenders' placements and the attackers' part of an index: what
    /// [`Indexer::moved_defender`] starts from, looked up once for all the moves of a position.
    #[inline]
    pub fn split(&self, index: u64) -> Option<Split> {
        if index >= self.size {
            return None;
        }
        let (pair, others) = StrengthReducedU64::div_rem(index, self.others_size);
        let (red, black) = self.pair(pair);
        Some(Split { red, black, others })
    }

    /// The index of the position reached from `at`'s position (as [`Indexer::decode`] gives
    /// it) by moving `color`'s defender (king, advisor or elephant) from `from` to `to`, and
    /// whether it is numbered through its mirror image (as [`Indexer::encode_mirrored`] says).
    /// Only the pair changes, and with the mirror image the attackers' ranks, through tables:
    /// a few lookups instead of a full encode. New placements symmetric on both sides are
    /// answered too: their entry stands for the position alone (its mirror image has its own;
    /// predecessors are listed through [`Indexer::defender_parent`]).
    /// `None` when the shortcut does not apply: a point outside the defenders' domain, or a
    /// mirror image through a group too large for a mirror table.
    #[inline]
    pub fn moved_defender(
        &self,
        at: &Split,
        color: Color,
        from: Square,
        to: Square,
    ) -> Option<(u64, bool)> {
        let (pair, mirrored) = self.stepped_pair(at, color, from, to, true)?;
        self.in_pair(pair, mirrored, at.others)
    }

    /// For listing predecessors: [`Indexer::moved_defender`], declining new placements
    /// symmetric on both sides (such a parent of a folded entry comes with its mirror image's
    /// entry: the general path lists both). Through `cache` if given, which remembers each
    /// step's new pair for the defenders of the last pair asked about: a scan's consecutive
    /// entries mostly share their pair, and with it all but the attackers' part of the answer.
    /// A cache serves one indexer.
    #[inline]
    pub fn defender_parent(
        &self,
        cache: Option<&mut StepCache>,
        at: &Split,
        color: Color,
        from: Square,
        to: Square,
    ) -> Option<(u64, bool)> {
        let Some(cache) = cache else {
            let (pair, mirrored) = self.stepped_pair(at, color, from, to, false)?;
            return self.in_pair(pair, mirrored, at.others);
        };
        debug_assert!(cache
            .owner
            .is_none_or(|o| o == self as *const Indexer as usize));
        debug_assert!({
            cache.owner = Some(self as *const Indexer as usize);
            true
        });
        let (f, t) = (from.index(), to.index());
        let key = (color.index() * 90 + f) * 4 + step_direction(f as u8, t as u8);
        let defenders = (at.red as u64) << 32 | at.black as u64;
        if cache.slots.is_empty() {
            cache.slots = vec![(u64::MAX, 0); 2 * 90 * 4];
        }
        let slot = &mut cache.slots[key];
        if slot.0 != defenders {
            let step = self.stepped_pair(at, color, from, to, false);
            *slot = (
                defenders,
                step.map_or(StepCache::NONE, |(pair, mirrored)| {
                    pair | u64::from(mirrored) << 63
                }),
            );
        }
        match slot.1 {
            StepCache::NONE => None,
            v => self.in_pair(v & !StepCache::MIRRORED, v >> 63 != 0, at.others),
        }
    }

    /// [`Indexer::split`] through `cache`, which remembers the placements of the last pair.
    #[inline]
    pub fn split_cached(&self, cache: &mut StepCache, index: u64) -> Option<Split> {
        if index >= self.size {
            return None;
        }
        let (pair, others) = StrengthReducedU64::div_rem(index, self.others_size);
        if cache.pair.0 != pair {
            let (red, black) = self.pair(pair);
            cache.pair = (pair, red, black);
        }
        let (_, red, black) = cache.pair;
        Some(Split { red, black, others })
    }

    /// Are both sides' defenders in `at` mirror-symmetric ([`Position::defenders_symmetric`] of
    /// the position its index decodes to)?
    #[inline]
    pub fn split_symmetric(&self, at: &Split) -> bool {
        self.pair_symmetric(at.red, at.black)
    }

    /// The pair [`Indexer::moved_defender`] leads to, and whether its entry is numbered
    /// through the mirror image; new placements symmetric on both sides only if `symmetric`
    /// (else `None`).
    #[inline]
    fn stepped_pair(
        &self,
        at: &Split,
        color: Color,
        from: Square,
        to: Square,
        symmetric: bool,
    ) -> Option<(u64, bool)> {
        let (r, b) = (at.red, at.black);
        let d = &self.defenders[color.index()];
        let own = if color == Color::Red { r } else { b };
        let p = d.stepped(own, from.index() as u8, to.index() as u8)?;
        let (r, b) = if color == Color::Red { (p, b) } else { (r, p) };
        let (mr, mb) = (
            self.defenders[0].mirror[r as usize],
            self.defenders[1].mirror[b as usize],
        );
        // Placements symmetric on both sides are numbered as they stand (never mirrored); a
        // predecessor there may come with its mirror image's entry, which the caller lists.
        if r == mr && b == mb && !symmetric {
            return None;
        }
        let mirrored = r > mr || (r == mr && b > mb);
        let (r, b) = if mirrored { (mr, mb) } else { (r, b) };
        let pair = self.pair_start[self.red_canon_pos[r as usize] as usize]
            + if r < self.defenders[0].mirror[r as usize] {
                b as u64
            } else {
                self.black_sym_rank[b as usize] as u64
            };
        Some((pair, mirrored))
    }

    /// The index of `pair` with attackers of rank `others`, taken through the mirror image if
    /// `mirrored`.
    #[inline]
    fn in_pair(&self, pair: u64, mirrored: bool, others: u64) -> Option<(u64, bool)> {
        let others = if mirrored {
            self.mirror_others(others)?
        } else {
            others
        };
        Some((pair * self.others_size.get() + others, mirrored))
    }

    /// The attackers' rank of the mirror image of the attackers of rank `others`; `None` if a
    /// group has no mirror table.
    #[inline]
    fn mirror_others(&self, mut others: u64) -> Option<u64> {
        let (mut out, mut weight) = (0u64, 1u64);
        for g in self.groups.iter().rev() {
            let (q, rank) = StrengthReducedU64::div_rem(others, g.size);
            others = q;
            out += *g.mirror_rank.get(rank as usize)? as u64 * weight;
            weight *= g.size.get();
        }
        Some(out)
    }

    /// The index of a position and whether it is numbered through its mirror image (then the
    /// entry decodes to `pos.mirror()`, not `pos`).
    #[inline]
    pub fn encode_mirrored(&self, pos: &Position) -> Result<(u64, bool), IndexError> {
        // Gather the squares into a flat buffer laid out by piece code, without branching on
        // the role: points come in increasing order, so each group's squares come sorted.
        let mut buf = [0u8; 64];
        let mut count = [0u8; 16];
        let codes = pos.codes();
        for s in BitIter(pos.occupied()) {
            let code = codes[s as usize] as usize & 15;
            let k = count[code];
            count[code] = k.wrapping_add(1);
            buf[(self.slot_base[code] as usize + k as usize) & 63] = s;
        }
        if count != self.expected {
            return Err(IndexError::WrongMaterial {
                expected: self.material,
                found: Material::of(pos),
            });
        }
        let bad = |color: Color, s: u8| {
            let square = Square::new(s);
            let role = pos.piece_at(square).map_or(Role::King, |p| p.role());
            IndexError::BadSquare {
                color,
                role,
                square,
            }
        };
        let [red, black] = &self.defenders;
        let (rl, bl) = (1 + red.n_adv + red.n_ele, 1 + black.n_adv + black.n_ele);
        let mut r = red
            .find(&buf[..rl], false)
            .map_err(|s| bad(Color::Red, s))?;
        let mut b = black
            .find(&buf[rl..rl + bl], false)
            .map_err(|s| bad(Color::Black, s))?;
        let (mr, mb) = (red.mirror[r as usize], black.mirror[b as usize]);
        let mirror = r > mr || (r == mr && b > mb);
        if mirror {
            (r, b) = (mr, mb);
        }
        let j = self.red_canon_pos[r as usize] as usize;
        let pair = self.pair_start[j]
            + if r < red.mirror[r as usize] {
                b as u64
            } else {
                self.black_sym_rank[b as usize] as u64
            };
        let mut others = 0u64;
        for grp in &self.groups {
            let squares = &buf[grp.base..grp.base + grp.count];
            let mut slots = [0u8; 5];
            grp.domain.slots(squares, mirror, &mut slots).map_err(|s| {
                bad(
                    grp.color,
                    if mirror {
                        Square::new(s).mirror().index() as u8
                    } else {
                        s
                    },
                )
            })?;
            others = others * grp.size.get() + comb_rank(&slots[..grp.count]);
        }
        Ok((pair * self.others_size.get() + others, mirror))
    }
}

/// Decodes many indices of one material, keeping the board of the last pair's defenders:
/// consecutive indices share their pair (`others_size` of them in a row), so most decodes only
/// move the attackers. The same positions as [`Indexer::decode`].
pub struct Decoder<'a> {
    ix: &'a Indexer,
    pair: u64,
    /// The pair's first index.
    pair_base: u64,
    /// The last decoded position (the pair's defenders while none is), and the points of its
    /// attackers: the next decode of the same pair takes them off and puts the new ones on,
    /// instead of copying the defenders' board (`memmove` was 13 % of KRCKR's candidate refresh).
    current: Position,
    placed: Placed,
    /// The last index taken apart.
    split: Split,
}

/// Groups of attackers an index has at most: rooks, horses, cannons and pawns of each side.
const MAX_GROUPS: usize = 8;

/// The points where [`Indexer::place_others`] put attackers, group by group.
#[derive(Clone, Copy, Default)]
struct Placed {
    points: [u8; 32],
    len: usize,
    /// The groups placed whole (a prefix of the index's groups): their ranks, and `len` after
    /// each.
    done: usize,
    ranks: [u64; MAX_GROUPS],
    ends: [u8; MAX_GROUPS],
    /// The first attackers' rank (`others`) of the run that shares all but the last group's
    /// rank with the ranks noted (valid while every group is placed).
    run: u64,
}

impl<'a> Decoder<'a> {
    /// A decoder for `ix`, with no pair's defenders cached yet.
    pub fn new(ix: &'a Indexer) -> Decoder<'a> {
        Decoder {
            ix,
            pair: u64::MAX,
            pair_base: 0,
            current: Position::empty(Color::Red),
            placed: Placed::default(),
            split: Split {
                red: 0,
                black: 0,
                others: 0,
            },
        }
    }

    /// The position of an index with `turn` to move, as [`Indexer::decode`] gives it.
    #[inline]
    pub fn decode(&mut self, index: u64, turn: Color) -> Option<Position> {
        self.decode_mut(index, turn).cloned()
    }

    /// [`Decoder::decode`] without a copy: the decoder's own board, lent until the next decode.
    /// A borrower may play and take back moves and set the turn, but must leave the pieces as
    /// it found them.
    #[inline]
    pub fn decode_mut(&mut self, index: u64, turn: Color) -> Option<&mut Position> {
        self.place(index, turn).then_some(&mut self.current)
    }

    /// [`Decoder::decode_mut`], and the index taken apart ([`Indexer::split`], known here
    /// without a look-up: a defender's move needs it to find its child).
    #[inline]
    pub fn decode_split(&mut self, index: u64, turn: Color) -> Option<(&mut Position, Split)> {
        self.place(index, turn)
            .then_some((&mut self.current, self.split))
    }

    /// Puts the position of `index` on the decoder's board; false if it is not a legal one.
    #[inline]
    fn place(&mut self, index: u64, turn: Color) -> bool {
        if index >= self.ix.size {
            return false;
        }
        // The pair's indices are consecutive: no division within it.
        let (pair, rest) = match index.checked_sub(self.pair_base) {
            Some(rest) if self.pair != u64::MAX && rest < self.ix.others_size.get() => {
                (self.pair, rest)
            }
            _ => StrengthReducedU64::div_rem(index, self.ix.others_size),
        };
        if pair != self.pair {
            let (red, black) = self.ix.pair(pair);
            self.current = self.ix.defenders_placed(red, black, turn);
            self.placed = Placed::default();
            self.pair = pair;
            self.pair_base = index - rest;
            (self.split.red, self.split.black) = (red, black);
        }
        self.split.others = rest;
        self.current.set_turn(turn);
        // On a collision the attackers placed so far stay noted, for the next decode to take off.
        self.ix
            .place_others(rest, &mut self.current, &mut self.placed)
    }
}

/// Where defender steps lead ([`Indexer::defender_parent`]).
pub struct StepCache {
    /// Per side, from-point and step direction (empty until the first look-up): the defenders (`red << 32 | black` placement
    /// numbers; `u64::MAX`: none yet) the answer is for, and the answer: [`StepCache::NONE`],
    /// or the new pair with [`StepCache::MIRRORED`] set if numbered through the mirror image.
    slots: Vec<(u64, u64)>,
    /// The last pair split ([`Indexer::split_cached`]; `u64::MAX`: none) and its red and black
    /// placements.
    pair: (u64, u32, u32),
    /// The indexer it serves (checked under debug assertions).
    owner: Option<usize>,
}

impl StepCache {
    const NONE: u64 = u64::MAX;
    const MIRRORED: u64 = 1 << 63;

    /// An empty cache (it allocates its 11 KiB at the first look-up: scratches that never
    /// look one up cost nothing).
    pub fn new() -> StepCache {
        StepCache {
            slots: Vec::new(),
            pair: (u64::MAX, 0, 0),
            owner: None,
        }
    }
}

impl Default for StepCache {
    fn default() -> StepCache {
        StepCache::new()
    }
}

/// An index taken apart: both sides' defender placements and the attackers' rank
/// ([`Indexer::split`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    red: u32,
    black: u32,
    others: u64,
}

/// What enumerating every index of one side to move finds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Indices per side to move.
    pub index_size: u64,
    /// Entries that decode to a legal position.
    pub legal_entries: u64,
    /// Real legal positions they stand for: mirror images both counted, identical pieces'
    /// permutations once.
    pub legal: u64,
}

impl Indexer {
    /// Enumerates every index with `turn` to move (in parallel) and counts the legal positions.
    pub fn census(&self, turn: Color) -> Census {
        self.census_with_progress(turn, |_| ())
    }

    /// [`Indexer::census`], calling `progress(n)` as each run of `n` indices is done.
    pub fn census_with_progress(&self, turn: Color, progress: impl Fn(u64) + Sync) -> Census {
        use rayon::prelude::*;
        const CHUNK: u64 = 1 << 14;
        let (entries, legal) = (0..self.size.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let (mut e, mut l) = (0u64, 0u64);
                let (start, end) = (c * CHUNK, c * CHUNK + CHUNK.min(self.size - c * CHUNK));
                for i in start..end {
                    if let Some(pos) = self.decode(i, turn) {
                        if !pos.opponent_in_check() {
                            e += 1;
                            l += self.multiplicity(i) as u64;
                        }
                    }
                }
                progress(end - start);
                (e, l)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        Census {
            index_size: self.size,
            legal_entries: entries,
            legal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// n choose k by the multiplicative formula, independent of the table.
    fn choose(n: u64, k: u64) -> u64 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    #[test]
    fn binomial_table_matches_the_formula() {
        for n in 0..=90u64 {
            for k in 0..=5u64 {
                let want = if k > n { 0 } else { choose(n, k) };
                assert_eq!(BINOM[n as usize][k as usize], want, "C({n}, {k})");
            }
        }
    }

    /// Every k-subset of n slots, listed in colex order, gets ranks 0, 1, 2, ... and unranks back.
    #[test]
    fn combination_rank_is_a_colex_bijection() {
        for (n, k) in [
            (90usize, 1usize),
            (90, 2),
            (55, 2),
            (20, 3),
            (14, 4),
            (12, 5),
        ] {
            let mut subsets: Vec<Vec<u8>> = Vec::new();
            let mut cur: Vec<u8> = (0..k as u8).collect();
            loop {
                subsets.push(cur.clone());
                // Next subset in colex order: bump the lowest element that can move up.
                let mut i = 0;
                while i < k
                    && (if i + 1 < k {
                        cur[i] + 1 == cur[i + 1]
                    } else {
                        cur[i] as usize + 1 == n
                    })
                {
                    i += 1;
                }
                if i == k {
                    break;
                }
                cur[i] += 1;
                for (j, c) in cur.iter_mut().enumerate().take(i) {
                    *c = j as u8;
                }
            }
            assert_eq!(subsets.len() as u64, choose(n as u64, k as u64));
            for (rank, sub) in subsets.iter().enumerate() {
                assert_eq!(comb_rank(sub), rank as u64, "{sub:?}");
                let mut out = vec![0u8; k];
                comb_unrank(rank as u64, n, &mut out);
                assert_eq!(&out, sub);
            }
        }
    }
}
