//! The rule passes' candidates: for each defender side and each target of the attacker (its
//! king, or one of its pieces by number), the entries that are loss candidates
//! (`formats/rules.md` §7). A maximum pattern lies among them and their predecessors.

use super::bitmap::Bitmap;
use super::numbering::Numbering;
use super::numbering::KING_BIT;
use crate::piece::{ByColor, Color};

/// The candidate bitmaps: per defender side, one per target of the attacker.
pub struct Candidates {
    pub(super) bits: ByColor<Vec<(u32, Bitmap)>>,
}

impl Candidates {
    pub(super) fn new(entries: u64, numbering: &Numbering) -> Candidates {
        Candidates {
            bits: ByColor::new(|defender| {
                std::iter::once(KING_BIT)
                    .chain(numbering.pieces(!defender).iter().map(u32::from))
                    .map(|bit| (bit, Bitmap::new(entries)))
                    .collect()
            }),
        }
    }

    /// The candidates of `defender` for the attacker's target `bit` (its king: [`KING_BIT`]).
    pub fn get(&self, defender: Color, bit: u32) -> &Bitmap {
        &self.bits[defender]
            .iter()
            .find(|(b, _)| *b == bit)
            .expect("every target has its candidates")
            .1
    }

    /// All of `defender`'s target bits.
    pub(super) fn mask(&self, defender: Color) -> u32 {
        self.bits[defender].iter().fold(0, |m, (b, _)| m | 1 << b)
    }
}
