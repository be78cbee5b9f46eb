//! `xqtb stats --dir <DIR> <MATERIAL> [--json]`

use std::path::PathBuf;
use xqtb::query;
use xqtb::tablebase::Tablebase;
use xqtb::Material;

/// The arguments of `xqtb stats`.
#[derive(clap::Args)]
pub struct Args {
    /// Material signature (a colour-flipped twin is reported as its stored table).
    material: String,
    #[arg(long)]
    dir: PathBuf,
    /// Print `{"material", "file", "file_bytes", "rule_set", "max_order", "sides": {"w":
    /// {"legal", "win", "draw", "loss", "longest_win": {"order", "distance", "fen"},
    /// "longest_wins": [...], "histogram": [{"order", "distance", "positions"}], "pawn_ranks"},
    /// "b": {...}}}` (`formats/api.md`).
    #[arg(long)]
    json: bool,
}

/// Prints a table's statistics per side to move (or as JSON).
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    let tb = Tablebase::new(&args.dir, 1 << 20);
    let stats = query::table_stats(&tb, material)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&stats)?)?;
        return Ok(());
    }
    for (side, st) in stats.sides.iter() {
        let pct = |x: u64| 100.0 * x as f64 / st.legal.max(1) as f64;
        writeln!(
            out,
            "{} to move: {} legal, {} win ({:.2}%), {} draw ({:.2}%), {} loss ({:.2}%)",
            if side == xqtb::Color::Red {
                "Red"
            } else {
                "Black"
            },
            st.legal,
            st.win,
            pct(st.win),
            st.draw,
            pct(st.draw),
            st.loss,
            pct(st.loss)
        )?;
        if st.longest_wins.is_empty() {
            writeln!(out, "  longest win: none")?;
        }
        for l in &st.longest_wins {
            writeln!(
                out,
                "  longest win: {} plies (order {}): {}",
                l.distance, l.order, l.fen
            )?;
        }
        for h in &st.histogram {
            writeln!(
                out,
                "  order {} distance {:>4}: {}",
                h.order, h.distance, h.positions
            )?;
        }
        for p in st.pawn_ranks.iter().flatten() {
            let rank = |r: Option<u8>| r.map_or("-".to_string(), |r| r.to_string());
            writeln!(
                out,
                "  pawns red {} black {}: {} legal, {} win, {} draw, {} loss",
                rank(p.red),
                rank(p.black),
                p.legal,
                p.win,
                p.draw,
                p.loss
            )?;
        }
    }
    writeln!(
        out,
        "rule set {}, {} order{}:",
        stats.rule_set,
        stats.orders.len(),
        if stats.orders.len() == 1 { "" } else { "s" }
    )?;
    for o in &stats.orders {
        writeln!(
            out,
            "  order {:>3}: {} win, {} loss{}",
            o.order,
            o.win,
            o.loss,
            o.longest_win.as_ref().map_or(String::new(), |l| format!(
                ", longest win {} plies: {}",
                l.distance, l.fen
            ))
        )?;
    }
    Ok(())
}
