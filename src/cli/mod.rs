//! Argument parsing and dispatch.

mod index;
mod moves;
mod perft;
mod show;

use clap::{Parser, Subcommand};
use std::io::{self, Write};

#[derive(Parser)]
#[command(
    name = "xqtb",
    version,
    about = "Xiangqi endgame tablebases: rules core, position notation and indexing"
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
