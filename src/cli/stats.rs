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
    /// Only what the file's header and value table hold: everything but `pawn_ranks`, which
    /// reads every entry (minutes to an hour for the largest tables).
    #[arg(long, conflicts_with = "partial_report")]
    no_pawn_ranks: bool,
    /// Of the directory's partial table of the material (`formats/partial.md` §7): how much
    /// is resolved — exact counts 1, a one-sided bound ½, unknown 0 — overall and, with pawns,
    /// by each side's most advanced pawn.
    #[arg(long, conflicts_with = "metric")]
    partial_report: bool,
}

/// Prints a table's statistics per side to move (or as JSON), for each metric asked.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    if args.partial_report {
        let r = query::partial_report(&args.dir, material)?;
        return print_partial(&r, args.json, out);
    }
    let tb = Tablebase::new(&args.dir, 1 << 20);
    for &metric in Metrics::from(args.metric).list() {
        let stats = match args.no_pawn_ranks {
            true => query::table_header_stats_of(&tb, material, metric)?,
            false => query::table_stats_of(&tb, material, metric)?,
        };
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

/// A partial table's resolved shares, as a table or a JSON line.
fn print_partial(r: &query::PartialReport, json: bool, out: super::Out) -> super::Result<()> {
    if json {
        writeln!(out, "{}", serde_json::to_string(r)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} without {}: partial table",
        r.material,
        r.without.join(", ")
    )?;
    writeln!(
        out,
        "{:>5} {:>5} {:>14} {:>14} {:>14} {:>14} {:>9}",
        "red", "black", "positions", "exact", "one-sided", "unknown", "resolved"
    )?;
    let row = |out: super::Out, red: &str, black: &str, s: &query::ResolvedShare| {
        writeln!(
            out,
            "{red:>5} {black:>5} {:>14} {:>14} {:>14} {:>14} {:>8.2}%",
            grouped(s.positions),
            grouped(s.exact),
            grouped(s.one_sided),
            grouped(s.unknown),
            100.0 * s.resolved
        )
    };
    row(out, "all", "all", &r.all)?;
    let rank = |x: Option<u8>| x.map_or("-".to_string(), |r| r.to_string());
    for p in r.by_pawns.iter().flatten() {
        row(out, &rank(p.red), &rank(p.black), &p.share)?;
    }
    let checks = [("", &r.against_full), (" DTM", &r.against_full_dtm)];
    for (metric, c) in checks
        .iter()
        .filter_map(|(m, c)| c.as_ref().map(|c| (m, c)))
    {
        writeln!(
            out,
            "against the complete{metric} table: {} positions, {} outside their bounds, {} \
             exact values of which {} differ{}",
            grouped(c.positions),
            grouped(c.outside),
            grouped(c.exact),
            grouped(c.exact_differs),
            c.example
                .as_ref()
                .map_or(String::new(), |f| format!(" (e.g. {f})"))
        )?;
    }
    Ok(())
}
