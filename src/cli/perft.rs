//! `xqtb perft <DEPTH> [--fen <POSITION>] [--divide]`

use xqtb::{perft, Position};

/// The arguments of `xqtb perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies.
    depth: u32,
    /// Start from this position (FEN or query-system string) instead of the initial position.
    #[arg(long)]
    fen: Option<String>,
    /// Also list each legal move with the leaf count below it (for comparing move generators).
    #[arg(long)]
    divide: bool,
    /// Print `{"depth": D, "nodes": N}` (with `--divide`, also `"divide": {"h2e2": n, ...}`).
    #[arg(long)]
    json: bool,
}

/// Beyond this the tree is astronomically large (and the recursion would exhaust the stack).
const MAX_DEPTH: u32 = 64;

/// Counts the leaves of the legal move tree to the given depth (per move with `--divide`).
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
    if !args.divide || args.depth == 0 {
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
        return Ok(());
    }
    let mut divide = Vec::new();
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.play(m);
        divide.push((m.to_string(), perft(&child, args.depth - 1)));
    }
    let nodes: u64 = divide.iter().map(|(_, n)| n).sum();
    if args.json {
        let map: serde_json::Map<String, serde_json::Value> =
            divide.into_iter().map(|(m, n)| (m, n.into())).collect();
        writeln!(
            out,
            "{}",
            serde_json::json!({ "depth": args.depth, "nodes": nodes, "divide": map })
        )?;
    } else {
        for (m, n) in &divide {
            writeln!(out, "{m}: {n}")?;
        }
        writeln!(out, "total: {nodes}")?;
    }
    Ok(())
}
