//! `xqtb perft <DEPTH> [--fen <POSITION>]`

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

/// Beyond this the tree is astronomically large (and the recursion would exhaust the stack).
const MAX_DEPTH: u32 = 64;

pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    if args.depth > MAX_DEPTH {
        return Err(format!(
            "perft depth {} is out of reach; at most {MAX_DEPTH}",
            args.depth
        )
        .into());
    }
    let pos = match &args.fen {
        Some(text) => super::position(text)?,
        None => Position::startpos(),
    };
    let nodes = perft(&pos, args.depth);
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::json!({ "depth": args.depth, "nodes": nodes })
        )?;
    } else {
        writeln!(out, "{nodes}")?;
    }
    Ok(())
}
