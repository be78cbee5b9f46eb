//! Warm WDL probes per second from Rust (`Tablebase::probe_wdl`), the yardstick of
//! `examples/c/bench.c`, which does the same through the C ABI's board form; `scripts/c-bench.sh`
//! runs both in alternation.
//!
//! ```text
//! wdl_bench list <MATERIAL> <k>                      every k-th legal position's FEN, both sides
//! wdl_bench run <tables-dir> <positions-file> <threads> <passes>
//! ```
//!
//! `run` parses the FENs once, probes each once to warm the block caches (every probe must
//! succeed), then times `threads` threads sharing one `Tablebase`, each probing the whole list
//! `passes` times from its own place in it, and prints the line `bench.c` prints, `rust` first.

use std::process::ExitCode;
use std::time::Instant;
use xqtb_core::{parse_fen, to_fen, Color, Indexer, Outcome, Position, Tablebase};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let done = match args[..] {
        ["list", material, k] => list(material, k),
        ["run", dir, file, threads, passes] => run(dir, file, threads, passes),
        _ => Err(
            "usage: wdl_bench list <MATERIAL> <k> | run <dir> <positions-file> <threads> <passes>"
                .into(),
        ),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wdl_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Prints every k-th index's legal position of `material`, Red to move then Black.
fn list(material: &str, k: &str) -> Result<()> {
    let indexer = Indexer::new(material.parse()?)?;
    let k: usize = k.parse()?;
    for i in (0..indexer.size()).step_by(k.max(1)) {
        for side in Color::ALL {
            match indexer.decode(i, side) {
                Some(pos) if !pos.opponent_in_check() => println!("{}", to_fen(&pos)),
                _ => {}
            }
        }
    }
    Ok(())
}

fn run(dir: &str, file: &str, threads: &str, passes: &str) -> Result<()> {
    let (threads, passes): (usize, usize) = (threads.parse()?, passes.parse()?);
    let text = std::fs::read_to_string(file)?;
    let positions = text
        .lines()
        .map(parse_fen)
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if positions.is_empty() || threads == 0 {
        return Err("no positions, or no threads".into());
    }
    let tb = Tablebase::open(dir)?;
    for pos in &positions {
        tb.probe_wdl(pos)?;
    }
    let start = Instant::now();
    let wins: usize = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (tb, positions) = (&tb, &positions[..]);
                s.spawn(move || work(tb, positions, positions.len() * t / threads, passes))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a worker panicked"))
            .sum()
    });
    let seconds = start.elapsed().as_secs_f64();
    let probes = positions.len() * passes * threads;
    println!(
        "rust threads={threads} positions={} probes={probes} wins={wins} seconds={seconds:.3} probes_per_s={:.0}",
        positions.len(),
        probes as f64 / seconds
    );
    Ok(())
}

/// Probes the list `passes` times from `start` on; the wins it met (checked against bench.c's).
fn work(tb: &Tablebase, positions: &[Position], start: usize, passes: usize) -> usize {
    let mut wins = 0;
    for _ in 0..passes {
        let (head, tail) = positions.split_at(start);
        for pos in tail.iter().chain(head) {
            // Warmed above: every probe succeeds.
            wins += usize::from(tb.probe_wdl(pos).ok() == Some(Outcome::Win));
        }
    }
    wins
}
