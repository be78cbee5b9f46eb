//! Perft against published counts (tests/data/perft.txt names the sources).

use xqtb::{parse_fen, perft};

const LIMIT: u64 = 10_000_000;

/// (FEN, count per depth from 1; `None` where no published count exists).
fn cases() -> Vec<(String, Vec<Option<u64>>)> {
    include_str!("../data/perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut fields = l.split('|').map(str::trim);
            let fen = fields.next().unwrap().to_string();
            (
                fen,
                fields
                    .map(|n| (n != "-").then(|| n.parse().unwrap()))
                    .collect(),
            )
        })
        .collect()
}

fn check(small: bool) {
    let cases = cases();
    assert!(cases.len() >= 12);
    for (fen, counts) in cases {
        let pos = parse_fen(&fen).unwrap();
        for (depth, want) in (1..).zip(counts) {
            let Some(want) = want else { continue };
            if (want <= LIMIT) == small {
                assert_eq!(perft(&pos, depth), want, "perft({depth}) of {fen}");
            }
        }
    }
}

#[test]
fn perft_published_counts_shallow() {
    check(true);
}

/// The deep counts (up to 140 million nodes, about 8 s with the test profile's opt-level 3).
#[test]
fn perft_published_counts_deep() {
    check(false);
}

#[test]
fn perft_depth_zero_is_one() {
    assert_eq!(perft(&xqtb::Position::startpos(), 0), 1);
}
