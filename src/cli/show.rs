//! `xqtb show <POSITION>`

use xqtb::{to_fen, to_qstring, Material};

/// The arguments of `xqtb show`.
#[derive(clap::Args)]
pub struct Args {
    /// Position: FEN, or the query system's position string.
    position: String,
    /// Print `{"fen", "qstring", "material", "table", "turn", "check", "moves"}`.
    #[arg(long)]
    json: bool,
}

/// Prints a position: diagram, FEN, query-system string, material and check (or as JSON).
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let pos = super::position(&args.position)?;
    let material = Material::of(&pos);
    let turn = if pos.turn() == xqtb::Color::Red {
        "w"
    } else {
        "b"
    };
    let moves = pos.legal_moves().len();
    if args.json {
        let json = serde_json::json!({
            "fen": to_fen(&pos),
            "qstring": to_qstring(&pos, false),
            "material": material.to_string(),
            "table": material.canonical().to_string(),
            "turn": turn,
            "check": pos.is_check(),
            "moves": moves,
        });
        writeln!(out, "{json}")?;
    } else {
        writeln!(out, "{pos}")?;
        writeln!(out, "FEN      {}", to_fen(&pos))?;
        writeln!(out, "query    {}", to_qstring(&pos, false))?;
        writeln!(out, "material {material} (table {})", material.canonical())?;
        writeln!(
            out,
            "{} legal moves{}",
            moves,
            match (moves, pos.is_check()) {
                (0, true) => ": checkmated (a loss)",
                (0, false) => ": stalemated (a loss)",
                (_, true) => ", in check",
                _ => "",
            }
        )?;
    }
    Ok(())
}
