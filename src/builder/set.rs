//! Table sets (`formats/plan.md` §1): what `xqtb build` and `xqtb plan` take besides single
//! materials. A set names the tables users build together — "every table with at most two
//! attacking pieces", "the rook endgames with at most one attacker a side" — and expands to
//! canonical materials; the plan then adds every supporting table in dependency order.
//!
//! `all(attackers<=N[,per-side<=M][,defenders<=D][,type=T])`:
//! - `attackers<=N` (required, N ≤ 6): rooks, horses, cannons and pawns of both sides together;
//! - `per-side<=M`: of each side;
//! - `defenders<=D`: advisors and elephants of each side (0–4; default 4);
//! - `type=rook|knight|cannon|pawn|none`: the strongest attacking piece on the board, rook before
//!   horse before cannon before pawn (`none`: no attacker). The classic query system lists its
//!   tables as rook, knight, cannon, pawn and misc types without defining them; this is our
//!   reading of the first four.

use crate::material::Material;
use crate::piece::{Color, Role};
use thiserror::Error;

/// Why a set expression was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SetError {
    /// Neither a material nor a set.
    #[error(
        "{text:?} is neither a material (e.g. KRKN) nor a set (e.g. all(attackers<=2)): {why}"
    )]
    Unknown {
        /// The argument.
        text: String,
        /// What is wrong with it as a material.
        why: String,
    },
    /// A set whose filters are wrong.
    #[error("set {text:?}: {why} (formats/plan.md §1)")]
    BadSet {
        /// The argument.
        text: String,
        /// What is wrong.
        why: String,
    },
}

/// The most attacking pieces a set may ask for: beyond, sets run to millions of tables.
pub const MAX_ATTACKERS: u8 = 6;

/// The attacking roles, strongest first (the order `type=` reads).
const ATTACKERS: [Role; 4] = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn];

/// The filters of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Filters {
    attackers: u8,
    per_side: u8,
    defenders: u8,
    strongest: Option<Option<Role>>,
}

/// The canonical materials `args` name, each a material or a set, in the order given (a set's
/// by piece count, then name), each once.
pub fn expand_all(args: &[String]) -> Result<Vec<Material>, SetError> {
    let mut out: Vec<Material> = Vec::new();
    for a in args {
        for m in expand(a)? {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

/// The canonical materials one argument names: a material, or a set.
pub fn expand(text: &str) -> Result<Vec<Material>, SetError> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("all(").and_then(|r| r.strip_suffix(')')) {
        let f = filters(text, inner)?;
        let mut out: Vec<Material> = side_counts(f)
            .iter()
            .flat_map(|red| side_counts(f).into_iter().map(move |black| (*red, black)))
            .filter(|(r, b)| attackers(r) + attackers(b) <= f.attackers)
            .map(|(r, b)| material(&r, &b).canonical())
            .filter(|m| f.strongest.is_none_or(|s| strongest(m) == s))
            .collect();
        out.sort_by_key(|m| (m.piece_count(), m.to_string()));
        out.dedup();
        return Ok(out);
    }
    t.parse::<Material>()
        .map(|m| vec![m.canonical()])
        .map_err(|e| SetError::Unknown {
            text: text.to_string(),
            why: e.to_string(),
        })
}

/// The filters of `inner`, the inside of `all(...)` of `text`.
fn filters(text: &str, inner: &str) -> Result<Filters, SetError> {
    let bad = |why: String| SetError::BadSet {
        text: text.to_string(),
        why,
    };
    let mut f = Filters {
        attackers: u8::MAX,
        per_side: u8::MAX,
        defenders: 4,
        strongest: None,
    };
    for part in inner.split(',').map(str::trim) {
        let number = |v: &str, max: u8| match v.parse::<u8>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(bad(format!("{part:?}: a number from 0 to {max}"))),
        };
        if let Some(v) = part.strip_prefix("attackers<=") {
            f.attackers = number(v, MAX_ATTACKERS)?;
        } else if let Some(v) = part.strip_prefix("per-side<=") {
            f.per_side = number(v, MAX_ATTACKERS)?;
        } else if let Some(v) = part.strip_prefix("defenders<=") {
            f.defenders = number(v, 4)?;
        } else if let Some(v) = part.strip_prefix("type=") {
            f.strongest = Some(match v {
                "rook" => Some(Role::Rook),
                "knight" | "horse" => Some(Role::Horse),
                "cannon" => Some(Role::Cannon),
                "pawn" => Some(Role::Pawn),
                "none" => None,
                _ => return Err(bad(format!("{part:?}: rook, knight, cannon, pawn or none"))),
            });
        } else {
            return Err(bad(format!(
                "unknown filter {part:?}: attackers<=N, per-side<=M, defenders<=D or type=T"
            )));
        }
    }
    if f.attackers == u8::MAX {
        return Err(bad(format!(
            "attackers<=N is required (N at most {MAX_ATTACKERS})"
        )));
    }
    Ok(f)
}

/// One side's pieces besides its king: counts of [`side_roles`].
type Side = [u8; 6];

/// The roles besides the king, in the signature's order (K R C N P A B): the attackers first.
fn side_roles() -> impl Iterator<Item = Role> {
    Role::ALL.into_iter().filter(|&r| r != Role::King)
}

/// Every side within `f`'s per-side limits.
fn side_counts(f: Filters) -> Vec<Side> {
    let mut out = vec![[0u8; 6]];
    for (i, role) in side_roles().enumerate() {
        out = out
            .into_iter()
            .flat_map(|s| {
                (0..=role.max_count()).map(move |n| {
                    let mut s = s;
                    s[i] = n;
                    s
                })
            })
            .filter(|s| attackers(s) <= f.attackers.min(f.per_side) && s[4] + s[5] <= f.defenders)
            .collect();
    }
    out
}

fn attackers(s: &Side) -> u8 {
    s[..4].iter().sum()
}

fn material(red: &Side, black: &Side) -> Material {
    let side = |s: &Side| -> String {
        let mut out = String::from("K");
        // The signature's order: K R C N P A B.
        for (i, role) in side_roles().enumerate() {
            out.extend(std::iter::repeat_n(role.char(), s[i] as usize));
        }
        out
    };
    format!("{}{}", side(red), side(black))
        .parse()
        .expect("counts within the game's limits")
}

/// The strongest attacking role on the board, if any.
fn strongest(m: &Material) -> Option<Role> {
    ATTACKERS
        .into_iter()
        .find(|&r| Color::ALL.iter().any(|&c| m.count(c, r) > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        expand(text)
            .unwrap()
            .iter()
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn a_material_is_itself_canonical() {
        assert_eq!(names("krkn"), ["KRKN"]);
        assert_eq!(names("KNKR"), ["KRKN"]);
    }

    /// Counted by hand: with no defenders, one attacker is R, C, N or P on one side (4
    /// materials, each with its twin the same table); none is KK.
    #[test]
    fn at_most_one_attacker_without_defenders() {
        assert_eq!(
            names("all(attackers<=1,defenders<=0)"),
            ["KK", "KCK", "KNK", "KPK", "KRK"]
        );
    }

    /// Two attackers, one a side, no defenders: the 5 above, the 10 two-attacker one-side
    /// tables excluded, and the 10 one-against-one pairs (4 same-kind + 6 mixed).
    #[test]
    fn one_attacker_a_side() {
        let got = names("all(attackers<=2,per-side<=1,defenders<=0)");
        assert_eq!(got.len(), 5 + 10, "{got:?}");
        assert!(got.contains(&"KRKN".to_string()) && !got.contains(&"KRRK".to_string()));
        assert!(got.contains(&"KPKP".to_string()));
    }

    /// Defenders: KRK with 0–2 advisors and 0–2 elephants on either side, when the set allows
    /// one defender a side: KRK, KRKA, KRKB, KRAK, KRBK, KRAKA, KRAKB, KRBKA, KRBKB.
    #[test]
    fn defenders_are_per_side() {
        let got = names("all(attackers<=1,defenders<=1,type=rook)");
        assert_eq!(got.len(), 9, "{got:?}");
    }

    #[test]
    fn the_strongest_attacker_gives_the_type() {
        let got = names("all(attackers<=2,defenders<=0,type=knight)");
        assert!(
            got.iter().all(|m| m.contains('N') && !m.contains('R')),
            "{got:?}"
        );
        assert!(
            got.contains(&"KNPK".to_string()) && got.contains(&"KCKN".to_string()),
            "{got:?}"
        );
        assert_eq!(
            names("all(attackers<=2,defenders<=1,type=none)"),
            ["KK", "KAK", "KBK", "KAKA", "KAKB", "KBKB"]
        );
    }

    #[test]
    fn bad_sets_say_what_is_wrong() {
        for (text, says) in [
            ("all(defenders<=1)", "attackers<=N is required"),
            ("all(attackers<=9)", "0 to 6"),
            ("all(attackers<=2,queens<=1)", "unknown filter"),
            ("all(attackers<=2,type=queen)", "rook, knight"),
            ("KQK", "neither a material"),
        ] {
            let e = expand(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn several_arguments_are_their_union_each_once() {
        let args = [
            "KRKN".to_string(),
            "all(attackers<=1,defenders<=0)".to_string(),
        ];
        let got: Vec<String> = expand_all(&args)
            .unwrap()
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(got, ["KRKN", "KK", "KCK", "KNK", "KPK", "KRK"]);
    }
}
