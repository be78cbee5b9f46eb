//! `xqtb perft <DEPTH> [--fen <FEN>]`

use xqtb::{perft, Position};

#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies.
    depth: u32,
    /// Start from this position (FEN or query-system string) instead of the initial position.
    #[arg(long)]
    fen: Option<String>,
    /// Print `{"depth": D, "nodes": N}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> super::Result<()> {
    let pos = match &args.fen {
        Some(text) => super::position(text)?,
        None => Position::startpos(),
    };
    let nodes = perft(&pos, args.depth);
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "depth": args.depth, "nodes": nodes })
        );
    } else {
        println!("{nodes}");
    }
    Ok(())
}
