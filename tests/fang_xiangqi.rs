//! Fang's algorithms on Xiangqi materials in memory (`xqtb::fang::xiangqi`).

use xqtb::fang::xiangqi::{SideCounts, Solver};
use xqtb::fang::{Options, Rules};
use xqtb::{Color, Material};

fn counts(s: &SideCounts) -> [u64; 3] {
    [s.win, s.draw, s.loss]
}

#[test]
fn scratch() {
    for m in ["KRKC", "KRKP", "KRKR"] {
        let material: Material = m.parse().unwrap();
        let t0 = std::time::Instant::now();
        let mut asian = Solver::new(Options { rules: Rules::Asian, early_draws: true });
        let table = asian.solve(material).unwrap();
        let (red, black) = (counts(&table.counts(Color::Red)), counts(&table.counts(Color::Black)));
        println!("{m} asian: red {red:?} black {black:?} ({:?})", t0.elapsed());
        for o in table.orders() {
            println!("{o:?}");
        }
    }
}
