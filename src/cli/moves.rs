//! `xqtb moves <POSITION>`

use xqtb::to_fen;

/// The arguments of `xqtb moves`.
#[derive(clap::Args)]
pub struct Args {
    /// Position: FEN, or the query system's position string.
    position: String,
    /// Print `{"fen": ..., "moves": [...]}`.
    #[arg(long)]
    json: bool,
}

/// Prints the legal moves of a position in UCCI, one a line (or as JSON).
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let pos = super::position(&args.position)?;
    let moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::json!({ "fen": to_fen(&pos), "moves": moves })
        )?;
    } else {
        for m in moves {
            writeln!(out, "{m}")?;
        }
    }
    Ok(())
}
