//! `xqtb stats --dir <DIR> <MATERIAL> [--json]`

use super::build::MetricArg;
use std::path::PathBuf;
use xqtb::builder::Metrics;
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
    /// Which table: `dtc` (`<M>.xqtb`), `dtm` (`<M>.xqdtm`, built with `--metric dtm`, whose
    /// orders are levels: `formats/dtm.md`), or `both` (one after the other; with `--json` one
    /// object a line).
    #[arg(long, value_enum, default_value_t = MetricArg::Dtc)]
    metric: MetricArg,
}

/// Prints a table's statistics per side to move (or as JSON), for each metric asked.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    let tb = Tablebase::new(&args.dir, 1 << 20);
    for &metric in Metrics::from(args.metric).list() {
        let stats = query::table_stats_of(&tb, material, metric)?;
        print_stats(&stats, args.json, out)?;
    }
    Ok(())
}

/// One table's statistics, as text or a JSON line.
use super::{grouped, plies};

fn print_stats(stats: &query::TableStats, json: bool, out: super::Out) -> super::Result<()> {
    // A DTM table's orders are level indices: shown as their keys.
    let level = |order: u16| match &stats.levels {
        None => format!("order {order}"),
        Some(keys) => {
            let phases: Vec<String> = keys[order as usize].iter().map(u16::to_string).collect();
            format!("level ({})", phases.join(", "))
        }
    };
    if json {
        writeln!(out, "{}", serde_json::to_string(stats)?)?;
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
            grouped(st.legal),
            grouped(st.win),
            pct(st.win),
            grouped(st.draw),
            pct(st.draw),
            grouped(st.loss),
            pct(st.loss)
        )?;
        if st.longest_wins.is_empty() {
            writeln!(out, "  longest win: none")?;
        }
        for l in &st.longest_wins {
            writeln!(
                out,
                "  longest win: {} ({}): {}",
                plies(l.distance.into()),
                level(l.order),
                l.fen
            )?;
        }
        for h in &st.histogram {
            writeln!(
                out,
                "  {} distance {:>4}: {}",
                level(h.order),
                h.distance,
                grouped(h.positions)
            )?;
        }
        for p in st.pawn_ranks.iter().flatten() {
            let rank = |r: Option<u8>| r.map_or("-".to_string(), |r| r.to_string());
            writeln!(
                out,
                "  pawns red {} black {}: {} legal, {} win, {} draw, {} loss",
                rank(p.red),
                rank(p.black),
                grouped(p.legal),
                grouped(p.win),
                grouped(p.draw),
                grouped(p.loss)
            )?;
        }
    }
    writeln!(
        out,
        "{}, rule set {}, {} {}{}:",
        stats.metric.to_uppercase(),
        stats.rule_set,
        stats.orders.len(),
        if stats.levels.is_some() {
            "level"
        } else {
            "order"
        },
        if stats.orders.len() == 1 { "" } else { "s" }
    )?;
    for o in &stats.orders {
        writeln!(
            out,
            "  {}: {} win, {} loss{}",
            level(o.order),
            grouped(o.win),
            grouped(o.loss),
            o.longest_win.as_ref().map_or(String::new(), |l| format!(
                ", longest win {}: {}",
                plies(l.distance.into()),
                l.fen
            ))
        )?;
    }
    Ok(())
}
