//! Distance-to-mate levels across tables (`formats/dtm.md`, `formats/table.md` §4.2).
//!
//! In the DTC metric a capture ends the count, so a table's orders are its own (Fang,
//! "The Nature of Retrograde Analysis for Chinese Chess", 2005, Section 5.3). In the DTM metric
//! (Section 5.1) a capture does not: a position whose value comes through a capture carries the
//! smaller table's level on. A value's level is therefore a **key**, a sequence of phases read
//! from this table down the captures: `(k)` for a value of this table's own phase `k`, and
//! `(0, K')` for a value that came in phase 0 through a capture into a child of key `K'`. Keys
//! compare lexicographically with trailing zeros implied, so a mate through any number of
//! captures has the key `()` of a mate here. A DTM table stores per value the index of its key
//! in the table's sorted [`Levels`], and Fang's Definition 9 applies to indices as to orders.

use byteorder::{ByteOrder, LittleEndian as LE};
use std::cmp::Ordering;

/// Which distance a table's values count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Plies to the next capture or mate (Fang, Section 5.3).
    Dtc = 0,
    /// Plies to mate (Fang, Section 5.1), through captures.
    Dtm = 1,
}

impl Metric {
    /// Both metrics, in the order `--metric both` builds them.
    pub const ALL: [Metric; 2] = [Metric::Dtc, Metric::Dtm];

    /// `"dtc"` or `"dtm"`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtc => "dtc",
            Metric::Dtm => "dtm",
        }
    }

    /// The metric of header code `v`, if defined.
    pub fn from_u32(v: u32) -> Option<Metric> {
        match v {
            0 => Some(Metric::Dtc),
            1 => Some(Metric::Dtm),
            _ => None,
        }
    }
}

/// A level key: the phases of the tables a value came through, outermost first, trailing zeros
/// dropped (so one key has one representation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LevelKey(Vec<u16>);

impl LevelKey {
    /// The key of a mate, here or through captures: `()`.
    pub fn mate() -> LevelKey {
        LevelKey(Vec::new())
    }

    /// The key of this table's own phase `k` (the mates' key for 0).
    pub fn phase(k: u16) -> LevelKey {
        LevelKey::from_phases(vec![k])
    }

    /// A key from its phases (trailing zeros dropped).
    pub fn from_phases(mut phases: Vec<u16>) -> LevelKey {
        while phases.last() == Some(&0) {
            phases.pop();
        }
        LevelKey(phases)
    }

    /// The key a value of this key has one capture up: `(0, self…)`.
    pub fn through_capture(&self) -> LevelKey {
        let mut phases = Vec::with_capacity(self.0.len() + 1);
        phases.push(0);
        phases.extend_from_slice(&self.0);
        LevelKey::from_phases(phases)
    }

    /// The phases, outermost first, without trailing zeros.
    pub fn phases(&self) -> &[u16] {
        &self.0
    }

    /// Is this the key of a mate (every phase 0)?
    pub fn is_mate(&self) -> bool {
        self.0.is_empty()
    }

    /// The captures passed and the phase of the table a ruling happens in: `None` for a mate;
    /// `(j, k)` when the loser must check or chase forever in the table reached after `j`
    /// captures, in its phase `k`.
    pub fn ruling(&self) -> Option<(usize, u16)> {
        let j = self.0.len().checked_sub(1)?;
        Some((j, self.0[j]))
    }
}

impl Ord for LevelKey {
    fn cmp(&self, other: &LevelKey) -> Ordering {
        let n = self.0.len().max(other.0.len());
        let at = |k: &LevelKey, i: usize| k.0.get(i).copied().unwrap_or(0);
        (0..n)
            .map(|i| at(self, i).cmp(&at(other, i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

impl PartialOrd for LevelKey {
    fn partial_cmp(&self, other: &LevelKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for LevelKey {
    /// `(0, 2)`; `()` for a mate.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u16::to_string).collect();
        write!(f, "({})", parts.join(", "))
    }
}

/// A DTM table's level table: the keys its values may have, sorted, each value storing its key's
/// index. The keys of phase 0 (the mates', and one up from every key of each supporting table)
/// come first, then the table's own phases `1 ..= max_order`, so a phase's index is known before
/// the build knows how many phases there will be ([`Levels::phase_index`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Levels {
    keys: Vec<LevelKey>,
    /// Keys of phase 0 (the first ones).
    phase0: usize,
}

/// Why bytes are not a level table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLevels(pub String);

impl Levels {
    /// The phase-0 keys of a table whose captures lead to tables with level tables `subs`, and
    /// its own phases `1 ..= max_order`.
    pub fn for_table<'a>(subs: impl IntoIterator<Item = &'a Levels>, max_order: u16) -> Levels {
        let mut keys = vec![LevelKey::mate()];
        for sub in subs {
            keys.extend(sub.keys.iter().map(LevelKey::through_capture));
        }
        keys.sort();
        keys.dedup();
        let phase0 = keys.len();
        keys.extend((1..=max_order).map(LevelKey::phase));
        Levels { keys, phase0 }
    }

    /// The same phase-0 keys with own phases `1 ..= max_order`.
    pub fn with_max_order(&self, max_order: u16) -> Levels {
        let mut keys = self.keys[..self.phase0].to_vec();
        keys.extend((1..=max_order).map(LevelKey::phase));
        Levels {
            keys,
            phase0: self.phase0,
        }
    }

    /// Keys in all.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// No key (a DTC table's empty level table).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Keys of phase 0.
    pub fn phase0(&self) -> usize {
        self.phase0
    }

    /// The key of index `i`.
    pub fn key(&self, i: u16) -> Option<&LevelKey> {
        self.keys.get(i as usize)
    }

    /// The index of `key`, if the table has it.
    pub fn index_of(&self, key: &LevelKey) -> Option<u16> {
        self.keys.binary_search(key).ok().map(|i| i as u16)
    }

    /// The index of this table's own phase `k >= 1` (phase 0 has several keys).
    pub fn phase_index(&self, k: u16) -> u16 {
        debug_assert!(k >= 1);
        (self.phase0 + k as usize - 1) as u16
    }

    /// Where each key of a supporting table's `sub` lands here, one capture up, by its index.
    /// `None` if one does not (this table was not built from that table).
    pub fn capture_map(&self, sub: &Levels) -> Option<Vec<u16>> {
        sub.keys
            .iter()
            .map(|k| self.index_of(&k.through_capture()))
            .collect()
    }

    /// The level table's bytes (`formats/table.md` §4.2): the keys of phase 0, each as its
    /// length (u16) and phases (u16 each). The own phases follow from `max_order`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        for k in &self.keys[..self.phase0] {
            b.extend_from_slice(&(k.0.len() as u16).to_le_bytes());
            for &p in &k.0 {
                b.extend_from_slice(&p.to_le_bytes());
            }
        }
        b
    }

    /// The level table whose `count` phase-0 keys are `b` (all of it), with own phases
    /// `1 ..= max_order`; an error says what is wrong.
    pub fn from_bytes(b: &[u8], count: usize, max_order: u16) -> Result<Levels, BadLevels> {
        let short = || BadLevels(format!("level table of {} bytes is cut short", b.len()));
        let u16_at = |at: &mut usize| -> Result<u16, BadLevels> {
            let v = b.get(*at..*at + 2).ok_or_else(short)?;
            *at += 2;
            Ok(LE::read_u16(v))
        };
        let mut at = 0;
        let mut keys = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let n = u16_at(&mut at)?;
            let phases = (0..n)
                .map(|_| u16_at(&mut at))
                .collect::<Result<Vec<u16>, _>>()?;
            if phases.last() == Some(&0) || phases.first().is_some_and(|&p| p != 0) {
                return Err(BadLevels(format!(
                    "key {phases:?} is not one of phase 0 (it must start, and not end, with 0)"
                )));
            }
            keys.push(LevelKey(phases));
        }
        if at != b.len() {
            return Err(BadLevels(format!(
                "level table has {} bytes past its {count} keys",
                b.len() - at
            )));
        }
        if keys.first() != Some(&LevelKey::mate()) || !keys.windows(2).all(|w| w[0] < w[1]) {
            return Err(BadLevels(
                "keys are not the mates' and then in increasing order".into(),
            ));
        }
        let phase0 = keys.len();
        keys.extend((1..=max_order).map(LevelKey::phase));
        Ok(Levels { keys, phase0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl LevelKey {
        fn to_bytes_for_test(&self) -> Vec<u8> {
            Levels {
                keys: vec![self.clone()],
                phase0: 1,
            }
            .to_bytes()
        }
    }

    fn key(p: &[u16]) -> LevelKey {
        LevelKey::from_phases(p.to_vec())
    }

    #[test]
    fn keys_compare_with_trailing_zeros_implied() {
        assert_eq!(key(&[0, 0]), LevelKey::mate());
        assert!(key(&[0, 2]) < key(&[1]));
        assert!(key(&[0, 1, 3]) < key(&[0, 2]));
        assert!(LevelKey::mate() < key(&[0, 0, 1]));
        assert!(key(&[0, 0, 1]) < key(&[0, 1]));
        assert_eq!(key(&[0, 1]).through_capture(), key(&[0, 0, 1]));
        assert_eq!(LevelKey::mate().through_capture(), LevelKey::mate());
        assert_eq!(key(&[0, 0, 3]).ruling(), Some((2, 3)));
        assert_eq!(LevelKey::mate().ruling(), None);
    }

    #[test]
    fn a_table_orders_phase_zero_before_its_own_phases() {
        // A supporting table with phases 1 and 2, one with phase 1 and a key from below.
        let a = Levels::for_table([], 2);
        let b = Levels::for_table([&a], 1);
        assert_eq!(b.phase0(), 3); // (), (0, 1), (0, 2)
        let top = Levels::for_table([&a, &b], 3);
        let keys: Vec<String> = (0..top.len() as u16)
            .map(|i| top.key(i).unwrap().to_string())
            .collect();
        assert_eq!(
            keys,
            [
                "()",
                "(0, 0, 1)",
                "(0, 0, 2)",
                "(0, 1)",
                "(0, 2)",
                "(1)",
                "(2)",
                "(3)"
            ]
        );
        assert_eq!(top.phase_index(1), 5);
        assert_eq!(top.key(top.phase_index(3)), Some(&LevelKey::phase(3)));
        assert_eq!(top.capture_map(&a), Some(vec![0, 3, 4]));
        assert_eq!(top.capture_map(&b), Some(vec![0, 1, 2, 3]));
        assert_eq!(top.with_max_order(1).len(), 6);
        assert_eq!(
            Levels::from_bytes(&top.to_bytes(), top.phase0(), 3),
            Ok(top)
        );
    }

    #[test]
    fn bad_level_tables_are_refused() {
        let t = Levels::for_table([&Levels::for_table([], 2)], 1);
        let (b, n) = (t.to_bytes(), t.phase0());
        assert_eq!(n, 3);
        assert!(Levels::from_bytes(&b[..b.len() - 1], n, 1).is_err());
        assert!(Levels::from_bytes(&b, n + 1, 1).is_err());
        assert!(Levels::from_bytes(&b, n - 1, 1).is_err());
        let mut swapped = t.clone();
        swapped.keys.swap(1, 2);
        assert!(Levels::from_bytes(&swapped.to_bytes(), n, 1).is_err());
        // An own phase among phase 0's keys.
        let own = Levels::for_table([], 1);
        let mut b1 = own.to_bytes();
        b1.extend_from_slice(&LevelKey::phase(1).to_bytes_for_test());
        assert!(Levels::from_bytes(&b1, 2, 0).is_err());
    }
}
