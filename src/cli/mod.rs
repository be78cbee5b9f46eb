//! Argument parsing and dispatch.

mod index;
mod moves;
mod perft;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "xqtb",
    version,
    about = "Xiangqi endgame tablebases: rules, indexing, building and probing"
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
}

/// Runs the command line; returns the process exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves(a) => moves::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Index(a) => index::run(a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("xqtb: error: {e}");
            1
        }
    }
}

/// Errors reach the user as one line naming what is wrong.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Parses a position given as FEN or query-system string, naming the input on error.
fn position(text: &str) -> Result<xqtb::Position> {
    xqtb::parse_position(text).map_err(|e| format!("bad position {text:?}: {e}").into())
}
