//! `verify`'s marks of the legal entries and of the wins and losses at once (found table-wide,
//! from the cornered entries' predecessors) against the reader's own rule applied to every entry
//! one position at a time.

use xqtb::retro::Bitmap;
use xqtb::table::{distance_implied, resolve};
use xqtb::verify::at_once_marks;
use xqtb::{build, BuildOptions, ByColor, Color, Outcome, Rules, Silent, Tablebase, Value};

/// The marks of a table built in a temporary directory, and the reader's own rule applied to
/// every entry, one position at a time ([`Tablebase::wins_at_once`],
/// [`Position::has_legal_quiet`], [`Tablebase::derive`], as `probe_dtc` applies them).
fn marks_and_reference(material: &str, rules: Rules) -> Compared {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = BuildOptions::new(dir.path());
    opts.rules = rules;
    let material = material.parse().unwrap();
    build(material, &opts, &Silent).unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let t = tb.table(material).unwrap();
    let marks = at_once_marks(&tb, material).unwrap();
    let h = t.file.header();
    let legal = ByColor::new(|_| Bitmap::new(h.entries));
    let at_once = ByColor::new(|_| Bitmap::new(h.entries));
    let mut found = [0u64; 2];
    for turn in Color::ALL {
        for block in 0..h.blocks_per_side() {
            let codes = t.file.read_stored_raw(turn, block).unwrap();
            for (k, &code) in codes.iter().enumerate() {
                let index = block * h.block_entries as u64 + k as u64;
                let Some(pos) = t.indexer().decode(index, turn) else {
                    continue;
                };
                if pos.opponent_in_check() {
                    continue;
                }
                legal[turn].set(index);
                if h.derived == Some(turn) {
                    continue;
                }
                let stored = Value::from_code(code).unwrap();
                let value = resolve(
                    stored,
                    || tb.wins_at_once(&pos),
                    || pos.has_legal_quiet(),
                    || tb.derive(&pos, stored.outcome()),
                )
                .unwrap();
                if distance_implied(value) {
                    at_once[turn].set(index);
                    found[(value.outcome() == Outcome::Loss) as usize] += 1;
                }
            }
        }
    }
    Compared {
        marks,
        legal,
        at_once,
        found,
    }
}

/// `verify`'s marks `(legal, at_once)`, the reference's, and how many wins and how many losses
/// at once the reference found.
struct Compared {
    marks: (ByColor<Bitmap>, ByColor<Bitmap>),
    legal: ByColor<Bitmap>,
    at_once: ByColor<Bitmap>,
    found: [u64; 2],
}

/// Asserts the marks equal the reference's, and that the table has wins at once on its
/// stored sides (else the comparison would prove little); returns the wins and losses at once.
fn agrees(material: &str, rules: Rules) -> [u64; 2] {
    let Compared {
        marks,
        legal,
        at_once,
        found,
    } = marks_and_reference(material, rules);
    for turn in Color::ALL {
        let n = legal[turn].words() as u64 * 64;
        for index in 0..n {
            assert_eq!(
                marks.0[turn].get(index),
                legal[turn].get(index),
                "{material} legal {turn:?} {index}"
            );
            assert_eq!(
                marks.1[turn].get(index),
                at_once[turn].get(index),
                "{material} at once {turn:?} {index}"
            );
        }
    }
    assert!(found[0] > 0, "{material}: no win at once");
    found
}

#[test]
fn the_marks_are_the_readers_rule_entry_by_entry() {
    let losses: u64 = [
        agrees("KRKN", Rules::None),
        agrees("KRKN", Rules::Asian),
        agrees("KRKC", Rules::Asian),
        // A defender's quiet move from a position whose defenders are symmetric (its own
        // entry, its mirror image another) into a cornered one numbered through its mirror
        // image.
        agrees("KCPAKA", Rules::None),
    ]
    .iter()
    .map(|found| found[1])
    .sum();
    assert!(losses > 0, "no loss at once");
}
