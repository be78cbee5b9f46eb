//! Argument parsing and dispatch.

mod build;
mod index;
mod moves;
mod perft;
mod plan;
mod probe;
mod serve;
mod show;
mod stats;
mod usage;
mod verify;

use clap::{Parser, Subcommand};
use std::io::{self, Write};

#[derive(Parser)]
#[command(
    name = "xqtb",
    version,
    about = "Xiangqi endgame tablebases: build, verify, probe"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the legal moves of a position (FEN or query-system string).
    Moves(moves::Args),
    /// Count the leaf nodes of the legal move tree.
    Perft(perft::Args),
    /// Report a material's index size and legal positions per side to move.
    Index(index::Args),
    /// Show a position: diagram, FEN, query-system string, material, check.
    Show(show::Args),
    /// Build a table (and every supporting table it needs) by out-of-core retrograde analysis.
    Build(build::Args),
    /// The tables a build would take, in order, with the memory, disk and time each needs.
    Plan(plan::Args),
    /// Per side to move: legal positions, wins, draws, losses, longest win, distance histogram.
    Stats(stats::Args),
    /// The value of a position and of every move from it (best moves `*`, captures `c`).
    Probe(probe::Args),
    /// Check every checksum, then every entry against its children (Fang 5.4).
    Verify(verify::Args),
    /// Serve the query pages and JSON API over the tables of a directory.
    Serve(serve::Args),
}

/// Runs the command line; returns the process exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = match cli.command {
        Command::Moves(a) => moves::run(a, &mut out),
        Command::Perft(a) => perft::run(a, &mut out),
        Command::Index(a) => index::run(a, &mut out),
        Command::Show(a) => show::run(a, &mut out),
        Command::Build(a) => build::run(a, &mut out),
        Command::Plan(a) => plan::run(a, &mut out),
        Command::Stats(a) => stats::run(a, &mut out),
        Command::Probe(a) => probe::run(a, &mut out),
        Command::Verify(a) => verify::run(a, &mut out),
        Command::Serve(a) => serve::run(a, &mut out),
    }
    .and_then(|()| out.flush().map_err(Into::into));
    match result {
        Ok(()) => 0,
        // A closed pipe (`xqtb moves ... | head -1`) is the reader's choice, not an error.
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            0
        }
        Err(e) => {
            // Even a closed stderr must not turn an error into a panic.
            let _ = writeln!(io::stderr(), "xqtb: error: {e}");
            1
        }
    }
}

/// Errors reach the user as one line naming what is wrong.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Where a subcommand writes its results.
pub type Out<'a> = &'a mut dyn Write;

/// Parses a position given as FEN or query-system string, naming the input on error.
fn position(text: &str) -> Result<xqtb::Position> {
    xqtb::parse_position(text).map_err(|e| format!("bad position {text:?}: {e}").into())
}

/// A progress bar on stderr showing positions done, rate and ETA; hidden when stderr is not a
/// terminal or with `--quiet`.
fn progress_bar(len: u64, label: &str, quiet: bool) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let target = if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    let style = ProgressStyle::with_template(
        "{msg}: {human_pos}/{human_len} positions [{bar:30}] {rate} ETA {eta}",
    )
    .expect("valid template")
    .with_key(
        "rate",
        |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.1} M/s", s.per_sec() / 1e6);
        },
    )
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(label.to_string());
    bar
}

/// The default memory budget: three quarters of the memory the system reports available.
fn default_budget() -> u64 {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    (sys.available_memory() / 4 * 3).max(xqtb::builder::MIN_BUDGET)
}

/// Sets the worker thread count (default: rayon's, one per core).
fn init_threads(threads: Option<usize>) -> Result<()> {
    if let Some(n) = threads {
        // Far beyond any machine's cores; starting more threads only hangs the machine.
        const MAX_THREADS: usize = 1024;
        if n == 0 || n > MAX_THREADS {
            return Err(format!("--threads must be between 1 and {MAX_THREADS}, not {n}").into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?;
    }
    Ok(())
}

/// Parses a byte size: a number with an optional K, M, G or T suffix (powers of 1024; a
/// trailing `B` or `iB` is allowed): `64M`, `1.5G`, `512MiB`, `1000000`.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let upper = t.to_ascii_uppercase();
    let upper = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (num, mult) = match upper.chars().last() {
        Some('K') => (&upper[..upper.len() - 1], 1u64 << 10),
        Some('M') => (&upper[..upper.len() - 1], 1 << 20),
        Some('G') => (&upper[..upper.len() - 1], 1 << 30),
        Some('T') => (&upper[..upper.len() - 1], 1 << 40),
        _ => (upper, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("bad size {text:?}: use e.g. 64M, 2G or a byte count"))?;
    if !v.is_finite() || v < 0.0 || v * mult as f64 > u64::MAX as f64 {
        return Err(format!("bad size {text:?}"));
    }
    Ok((v * mult as f64) as u64)
}

/// A count as people read it: `21,366`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 ply`, `29 plies`.
fn plies(n: u64) -> String {
    format!("{} {}", grouped(n), if n == 1 { "ply" } else { "plies" })
}

#[cfg(test)]
mod tests {
    use super::{grouped, plies};

    #[test]
    fn counts_are_grouped_and_plies_agree_in_number() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(4_921_349_400), "4,921,349,400");
        assert_eq!(plies(1), "1 ply");
        assert_eq!(plies(0), "0 plies");
        assert_eq!(plies(29), "29 plies");
    }
}
