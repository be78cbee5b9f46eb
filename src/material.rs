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
    #[error("material {0:?} must start with K (Red's king)")]
    NoRedKing(String),
    #[error("material {0:?} has no second K: Black's pieces start with Black's king")]
    NoBlackKing(String),
    #[error("material {0:?}: a third king")]
    ThirdKing(String),
    #[error("material {text:?}: unknown piece letter {letter:?} (use K R C N P A B)")]
    UnknownLetter { text: String, letter: char },
    #[error("material {text:?}: {count} {role}s for one side, at most {max}", role = .role.name())]
    TooMany {
        text: String,
        role: Role,
        count: u8,
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

    pub fn is_canonical(&self) -> bool {
        self.canonical() == *self
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
