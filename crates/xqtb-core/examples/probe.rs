//! What an engine does with xqtb's tables: open a directory, probe a position's outcome (WDL) and
//! its value (DTC: order and distance to conversion), pick a best move, and follow the principal
//! line to the next conversion.
//!
//! ```text
//! cargo run --release -p xqtb-core --example probe -- tables "3k5/9/9/9/9/9/9/9/9/4K1R2 w"
//! ```
//!
//! (`bash scripts/quickstart.sh` builds a `tables` directory; `xqtb build KRK --dir tables` builds
//! the one this example probes.) Errors — a malformed FEN, an illegal position, a material
//! without a table (named with the file it would need), a corrupted file — are typed values; this
//! program prints them and exits with status 1.

use std::process::ExitCode;
use xqtb_core::repetition::{Perpetual, Ruling};
use xqtb_core::tablebase::{LineEnd, Tablebase};
use xqtb_core::value::Outcome;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, fen] = args.as_slice() else {
        eprintln!("usage: probe <TABLE DIR> <FEN or query string>");
        return ExitCode::from(2);
    };
    match run(dir, fen) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &str, fen: &str) -> Result<(), Box<dyn std::error::Error>> {
    // One Tablebase per program: it is Send + Sync, opens tables on first use and keeps a block
    // cache per table. Share it between search threads by reference or Arc.
    let tb = Tablebase::open(dir)?;
    let pos = xqtb_core::parse_position(fen)?;

    // In a search: the WDL probe reads the small WDL stream only; use it at interior nodes.
    let wdl = tb.probe_wdl(&pos)?;
    println!("WDL: {}", wdl.name());

    // At the root: the value, then the moves that keep it (Fang's Definition 9: the shortest win
    // of the lowest order, else a draw, else the longest loss of the highest order).
    let value = tb.probe_dtc(&pos)?;
    println!("DTC: {value}");
    for m in tb.best_moves(&pos)? {
        println!(
            "best move: {} (leads to {} for the opponent)",
            m.mv, m.value
        );
    }
    if wdl != Outcome::Draw {
        // The line as a game from here: past a perpetual-check or chase loss it is played on
        // until a position repeats and the Asian rules decide.
        let line = tb.line_in_game(&pos, &[])?;
        let moves: Vec<String> = line.moves.iter().map(|m| m.mv.to_string()).collect();
        let end = match line.end {
            LineEnd::Conversion => "a capture into a smaller table".to_string(),
            LineEnd::Mate => "a side without a legal move (it has lost)".to_string(),
            LineEnd::Perpetual => {
                "a side that can only check or chase forever (it has lost)".to_string()
            }
            LineEnd::Draw => "a draw".to_string(),
            LineEnd::Repetition(rep) => match rep.cycle.ruling() {
                Ruling::Loses { side, by } => format!(
                    "a repetition (plies {} and {}): {side:?} loses by perpetual {}",
                    rep.first,
                    rep.again,
                    if by == Perpetual::Check {
                        "check"
                    } else {
                        "chase"
                    }
                ),
                Ruling::Draw => "a repetition the rules call a draw".to_string(),
            },
        };
        println!("principal line: {} — ends in {end}", moves.join(" "));
    }
    Ok(())
}
