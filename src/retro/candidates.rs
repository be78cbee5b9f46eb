//! The rule passes' candidates: for each defender side and each target of the attacker (its
//! king, or one of its pieces by number), the entries that are loss candidates
//! (`formats/rules.md` §7). A maximum pattern lies among them and their predecessors.

use super::bitmap::Bitmap;
use super::numbering::Numbering;
use super::numbering::KING_BIT;
use crate::material::Material;
use crate::piece::{ByColor, Color, Role};

/// The candidate bitmaps: per defender side, one per target of the attacker the defender can
/// ever hit ([`Material::can_hit`]); the others have none.
pub struct Candidates {
    pub(super) bits: ByColor<Vec<(u32, Bitmap)>>,
    /// What a target no move can hit has: no candidate (never written, so no memory).
    none: Bitmap,
}

impl Candidates {
    pub(super) fn new(entries: u64, numbering: &Numbering, material: Material) -> Candidates {
        Candidates {
            bits: ByColor::new(|defender| {
                let owner = !defender;
                let hittable =
                    |role: Option<Role>| role.is_some_and(|r| material.can_hit(defender, r));
                std::iter::once((KING_BIT, Some(Role::King)))
                    .chain(
                        numbering
                            .pieces(owner)
                            .iter()
                            .map(|p| (u32::from(p), numbering.role(owner, p))),
                    )
                    .filter(|&(_, role)| hittable(role))
                    .map(|(bit, _)| (bit, Bitmap::new(entries)))
                    .collect()
            }),
            none: Bitmap::new(entries),
        }
    }

    /// The candidates of `defender` for the attacker's target `bit` (its king: [`KING_BIT`]).
    pub fn get(&self, defender: Color, bit: u32) -> &Bitmap {
        self.bits[defender]
            .iter()
            .find(|(b, _)| *b == bit)
            .map_or(&self.none, |(_, map)| map)
    }

    /// All of `defender`'s target bits.
    pub(super) fn mask(&self, defender: Color) -> u32 {
        self.bits[defender].iter().fold(0, |m, (b, _)| m | 1 << b)
    }
}
