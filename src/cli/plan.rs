//! `xqtb plan <MATERIAL|SET>... --dir <DIR> [--memory <SIZE>] [--threads <N>] [--json]`

use super::build::Shape;
use super::usage::bytes;
use xqtb::builder::{self, BuildOptions, TableEstimate};
use xqtb::table::Metric;

/// The arguments of `xqtb plan`: those of `xqtb build` that change what it would do.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    shape: Shape,
    /// Print one JSON object a table, an array: `{"material", "metric", "entries", "present",
    /// "resident", "unresolved_filter", "frontier_lists", "filter_parked", "pattern_slices", "memory_bytes", "job_memory_bytes", "tmp_bytes", "output_bytes",
    /// "seconds", "depends"}` (`formats/plan.md` §2).
    #[arg(long)]
    json: bool,
}

/// Prints the tables `xqtb build` would take, in order, with what each needs.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let shape = args.shape;
    let materials = builder::expand_sets(&shape.materials)?;
    super::init_threads(shape.threads)?;
    let opts = BuildOptions {
        memory: shape.memory.unwrap_or_else(super::default_budget),
        rules: shape.rules.into(),
        metrics: shape.metric.into(),
        ..BuildOptions::new(shape.dir)
    };
    let tables = builder::estimate_all(&materials, &opts)?;
    if args.json {
        let rows: Vec<serde_json::Value> = tables.iter().map(json_row).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<16} {:>14}  {:<8} {:<28} {:>10} {:>10} {:>10} {:>9}",
        "table", "entries/side", "present", "mode", "memory", "--tmp", "output", "est. s"
    )?;
    for t in &tables {
        writeln!(
            out,
            "{:<16} {:>14}  {:<8} {:<28} {:>10} {:>10} {:>10} {:>9.0}",
            name(t),
            t.entries,
            if t.present { "yes" } else { "no" },
            mode(t),
            bytes(t.memory),
            bytes(t.tmp_bytes),
            bytes(t.output_bytes),
            t.seconds
        )?;
    }
    let to_build: Vec<&TableEstimate> = tables.iter().filter(|t| !t.present).collect();
    writeln!(
        out,
        "{} of {} tables to build, about {:.0} s; at most {} of --tmp at once (the largest table's); \
         about {} of tables",
        to_build.len(),
        tables.len(),
        // A fold from 0.0: an empty f64 sum is -0.0, printed "-0".
        to_build.iter().fold(0.0, |sum, t| sum + t.seconds),
        bytes(to_build.iter().map(|t| t.tmp_bytes).max().unwrap_or(0)),
        bytes(to_build.iter().map(|t| t.output_bytes).sum())
    )?;
    Ok(())
}

/// How the table is built: resident, or streamed with what (`formats/plan.md`).
fn mode(t: &TableEstimate) -> String {
    let how = match (
        t.resident,
        t.unresolved_filter,
        t.frontier_lists,
        t.filter_parked,
    ) {
        (true, ..) => "resident",
        (false, true, false, _) => "streamed",
        (false, true, true, false) => "streamed, lists",
        (false, true, true, true) => "lists, parked filter",
        (false, false, false, _) => "streamed, no filter",
        (false, false, true, _) => "lists, no filter",
    };
    match t.pattern_slices {
        true => format!("{how}, slices"),
        false => how.to_string(),
    }
}

/// `KRK` or `KRK dtm`.
fn name(t: &TableEstimate) -> String {
    match t.target.metric {
        Metric::Dtc => t.target.material.to_string(),
        Metric::Dtm => format!("{} dtm", t.target.material),
    }
}

fn json_row(t: &TableEstimate) -> serde_json::Value {
    serde_json::json!({
        "material": t.target.material.to_string(),
        "metric": t.target.metric.name(),
        "entries": t.entries,
        "present": t.present,
        "resident": t.resident,
        "unresolved_filter": t.unresolved_filter,
        "frontier_lists": t.frontier_lists,
        "filter_parked": t.filter_parked,
        "pattern_slices": t.pattern_slices,
        "memory_bytes": t.memory,
        "job_memory_bytes": t.job_memory,
        "tmp_bytes": t.tmp_bytes,
        "output_bytes": t.output_bytes,
        "seconds": t.seconds,
        // The tables its captures lead to, of the same metric: built before it.
        "depends": t.target.material.captures_into().iter().map(|m| m.to_string()).collect::<Vec<_>>(),
    })
}
