//! Material signatures: `KRK`, `KNKA`, `KCPABKAABB` — Red's pieces then Black's, each side
//! starting with its king, in the canonical order K R C N P A B.

use crate::piece::{Color, Role};
use crate::position::Position;
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Why a material signature was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MaterialError {
    /// The signature (given) does not start with `K`.
    #[error("material {0:?} must start with K (Red's king)")]
    NoRedKing(String),
    /// The signature (given) has no second `K` to start Black's pieces.
    #[error("material {0:?} has no second K: Black's pieces start with Black's king")]
    NoBlackKing(String),
    /// The signature (given) has more than two `K`s.
    #[error("material {0:?}: a third king")]
    ThirdKing(String),
    /// A letter that is not one of K R C N P A B.
    #[error("material {text:?}: unknown piece letter {letter:?} (use K R C N P A B)")]
    UnknownLetter {
        /// The signature as given.
        text: String,
        /// The offending letter (upper-cased).
        letter: char,
    },
    /// One side has more pieces of a role than the game allows.
    #[error("material {text:?}: {count} {role}s for one side, at most {max}", role = .role.name())]
    TooMany {
        /// The signature as given.
        text: String,
        /// The role with too many pieces.
        role: Role,
        /// The count reached when the limit was passed.
        count: u8,
        /// The most pieces of that role a side may have.
        max: u8,
    },
}

/// How many pieces of each role each side has.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// `counts[color][role as usize]`; index 0 unused.
    counts: [[u8; 8]; 2],
}

impl Material {
    /// How many pieces of `role` `color` has (1 for the king).
    pub fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color.index()][role as usize]
    }

    /// The material of a position.
    pub fn of(pos: &Position) -> Material {
        let mut counts = [[0u8; 8]; 2];
        for color in Color::ALL {
            for role in Role::ALL {
                counts[color.index()][role as usize] = pos.count(color, role);
            }
        }
        Material { counts }
    }

    /// The colour-flipped twin (`KAKR` for `KRKA`).
    pub fn flipped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// The orientation under which the table of this material and its twin is stored: the side
    /// with more of the stronger roles (compared R, C, N, P, A, B in turn) is Red.
    pub fn canonical(&self) -> Material {
        let key = |c: usize| [2, 3, 4, 5, 6, 7].map(|r| self.counts[c][r]);
        if key(1) > key(0) {
            self.flipped()
        } else {
            *self
        }
    }

    /// Whether this is the orientation its table is stored under (see [`Material::canonical`]).
    pub fn is_canonical(&self) -> bool {
        self.canonical() == *self
    }

    /// The material after one `color` piece of `role` is captured; `None` if there is none
    /// (or it is the king, which is never captured).
    pub fn captured(&self, color: Color, role: Role) -> Option<Material> {
        let c = self.counts[color.index()][role as usize];
        (role != Role::King && c > 0).then(|| {
            let mut m = *self;
            m.counts[color.index()][role as usize] -= 1;
            m
        })
    }

    /// The tables one capture leads to: the canonical materials after one capture by either
    /// side, each once, sorted. They are a table's supporting tables, which its file names.
    pub fn captures_into(&self) -> Vec<Material> {
        let mut out: Vec<Material> = Color::ALL
            .into_iter()
            .flat_map(|c| Role::ALL.into_iter().map(move |r| (c, r)))
            .filter_map(|(c, r)| self.captured(c, r))
            .map(|m| m.canonical())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Can the rules on endless play (perpetual check and chase) change any value of this
    /// material? Yes unless neither side has an attacking piece (rook, horse, cannon or pawn):
    /// then no move gives check, and no piece can be chased (an advisor or elephant attacks only
    /// points of its own half, where the other side's advisors and elephants never stand, and
    /// kings are never chased), so every cycle of play is a draw under every rule set.
    ///
    /// Attacking pieces on one side only do not keep the rules out, whatever the literature
    /// says (Fang, "The Nature of Retrograde Analysis for Chinese Chess", 2005, Section 1, after
    /// Fang, Hsu and Hsu, 2000): the defender's advisors and elephants chase the attacker's
    /// pieces in their half, and the attacker's checks can be perpetual. In KCPKAAB, Black to
    /// move in `2P1k4/4a4/4ba3/9/9/9/9/9/4C4/3K5 b` has one move, K5=6, which lets the pinned
    /// elephant chase the unprotected pawn on c9 (the top rank): a loss of order 1 under the
    /// Asian rules.
    pub fn rules_apply(&self) -> bool {
        Color::ALL.into_iter().any(|c| self.has_attackers(c))
    }

    /// Can a forbidden chase occur in this material (`formats/rules.md`, clauses 1–5)? Only if a
    /// side can chase a piece of the other side ([`Material::can_hit`]). Where none can, the
    /// Asian rules are perpetual check alone.
    pub fn chases_possible(&self) -> bool {
        Color::ALL.into_iter().any(|c| {
            Role::ALL
                .into_iter()
                .any(|r| r != Role::King && self.count(!c, r) > 0 && self.can_hit(c, r))
        })
    }

    /// Can a move of `hitter` ever check (`target` the king) or chase (`formats/rules.md` §3) a
    /// piece of the other side of role `target`? A check needs a rook, horse, cannon or pawn.
    /// A chase needs a piece that may chase (rook, horse, cannon, advisor or elephant: kings
    /// and pawns chase freely) that can reach the target: a rook, horse or cannon any piece;
    /// an advisor or elephant, which stay in their own half, only a rook, horse, cannon or pawn
    /// (a pawn in that half has crossed the river), never the other side's advisors and
    /// elephants, which stay in theirs.
    pub fn can_hit(&self, hitter: Color, target: Role) -> bool {
        let has = |roles: &[Role]| roles.iter().any(|&r| self.count(hitter, r) > 0);
        match target {
            Role::King => self.has_attackers(hitter),
            Role::Advisor | Role::Elephant => has(&[Role::Rook, Role::Horse, Role::Cannon]),
            _ => has(&[
                Role::Rook,
                Role::Horse,
                Role::Cannon,
                Role::Advisor,
                Role::Elephant,
            ]),
        }
    }

    /// Has `color` a rook, horse, cannon or pawn?
    fn has_attackers(&self, color: Color) -> bool {
        [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .into_iter()
            .any(|r| self.count(color, r) > 0)
    }

    /// Total pieces on the board, kings included.
    pub fn piece_count(&self) -> u32 {
        self.counts.iter().flatten().map(|&c| c as u32).sum()
    }

    /// Every table a build of this material needs, itself last: the canonical materials
    /// reachable by captures, in dependency order (each after all the tables it captures into).
    pub fn supporting(&self) -> Vec<Material> {
        self.supporting_without(&[])
    }

    /// [`Material::supporting`] with the tables of `withheld` (canonical materials) left out,
    /// and those reached only through them: what a partial build builds.
    pub fn supporting_without(&self, withheld: &[Material]) -> Vec<Material> {
        fn visit(m: Material, withheld: &[Material], out: &mut Vec<Material>) {
            if out.contains(&m) || withheld.contains(&m) {
                return;
            }
            for color in Color::ALL {
                for role in Role::ALL {
                    if let Some(sub) = m.captured(color, role) {
                        visit(sub.canonical(), withheld, out);
                    }
                }
            }
            out.push(m);
        }
        let mut out = Vec::new();
        visit(self.canonical(), withheld, &mut out);
        out
    }

    fn side_string(&self, color: Color) -> String {
        Role::ALL
            .iter()
            .flat_map(|&r| std::iter::repeat_n(r.char(), self.count(color, r) as usize))
            .collect()
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(text: &str) -> Result<Material, MaterialError> {
        let upper = text.trim().to_ascii_uppercase();
        let rest = upper
            .strip_prefix('K')
            .ok_or_else(|| MaterialError::NoRedKing(text.to_string()))?;
        let split = rest
            .find('K')
            .ok_or_else(|| MaterialError::NoBlackKing(text.to_string()))?;
        let mut counts = [[0u8; 8]; 2];
        for (color, side) in [(0, &rest[..split]), (1, &rest[split + 1..])] {
            counts[color][Role::King as usize] = 1;
            for letter in side.chars() {
                if letter == 'K' {
                    return Err(MaterialError::ThirdKing(text.to_string()));
                }
                let role = Role::from_char(letter).ok_or(MaterialError::UnknownLetter {
                    text: text.to_string(),
                    letter,
                })?;
                let c = &mut counts[color][role as usize];
                *c += 1;
                if *c > role.max_count() {
                    return Err(MaterialError::TooMany {
                        text: text.to_string(),
                        role,
                        count: *c,
                        max: role.max_count(),
                    });
                }
            }
        }
        Ok(Material { counts })
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.side_string(Color::Red),
            self.side_string(Color::Black)
        )
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Material({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::Material;

    fn m(s: &str) -> Material {
        s.parse().unwrap()
    }

    /// Without a rook, horse, cannon or pawn nothing gives check and nothing can be chased;
    /// with one on either side the rules may decide (KCPKAAB: formats/table.md §4.1).
    #[test]
    fn the_rules_apply_wherever_a_side_has_an_attacking_piece() {
        for s in ["KK", "KAK", "KABKAB", "KAABBKAABB"] {
            assert!(!m(s).rules_apply(), "{s}");
        }
        for s in ["KRK", "KPK", "KNKA", "KCPKAAB", "KRKN", "KAKP"] {
            assert!(m(s).rules_apply(), "{s}");
        }
    }

    /// A chase needs a chaser (rook, horse, cannon, advisor, elephant) and a piece it can reach:
    /// kings are never chased and pawns and kings chase freely (formats/rules.md §3), and an
    /// advisor or elephant reaches only the other side's rooks, horses, cannons and pawns.
    #[test]
    fn chases_need_a_chaser_and_a_piece_it_can_reach() {
        for s in ["KRK", "KCPK", "KPPPK", "KPPPKP", "KAKA", "KABKAB", "KPKP"] {
            assert!(!m(s).chases_possible(), "{s}");
        }
        for s in ["KNKA", "KPKA", "KAKP", "KRKP", "KRKA", "KCPKAAB", "KPKB"] {
            assert!(m(s).chases_possible(), "{s}");
        }
    }

    /// What a side can ever check or chase: in the record table KCPAABBKAABB, Black (advisors
    /// and elephants) reaches only Red's cannon and pawn, Red (a cannon) all of Black; a lone
    /// pawn checks but chases nothing.
    #[test]
    fn what_a_side_can_hit() {
        use crate::piece::{Color::*, Role::*};
        let record = m("KCPAABBKAABB");
        for r in [King, Advisor, Elephant] {
            assert!(!record.can_hit(Black, r), "{r:?}");
            assert!(record.can_hit(Red, r), "{r:?}");
        }
        for r in [Cannon, Pawn] {
            assert!(record.can_hit(Black, r), "{r:?}");
        }
        let kpka = m("KPKA");
        assert!(kpka.can_hit(Red, King));
        assert!(!kpka.can_hit(Red, Advisor));
        assert!(kpka.can_hit(Black, Pawn) && !kpka.can_hit(Black, King));
    }
}
