//! `xqtb index <MATERIAL>`

use xqtb::{Color, Indexer, Material};

/// The arguments of `xqtb index`.
#[derive(clap::Args)]
pub struct Args {
    /// Material signature, e.g. KRK or KCPABKAABB.
    material: String,
    /// Print `{"material", "table", "sides": {"w": {"index_size", "legal", "legal_entries"}, "b": {...}}}`.
    #[arg(long)]
    json: bool,
    /// No progress bar (it is shown only on a terminal anyway).
    #[arg(long, short)]
    quiet: bool,
}

/// Prints a material's index size and counts its legal positions and entries per side to move.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    let indexer = Indexer::new(material)?;
    if !args.json {
        writeln!(
            out,
            "material {material} (stored as table {})",
            material.canonical()
        )?;
        writeln!(
            out,
            "index: {} defender pairs x {} others = {} entries per side to move",
            indexer.pair_count(),
            indexer.others_size(),
            indexer.size()
        )?;
        out.flush()?;
    }
    let [w, b] = [Color::Red, Color::Black].map(|c| {
        let bar = super::progress_bar(
            indexer.size(),
            &format!("{material} {c:?} to move"),
            args.quiet,
        );
        let census = indexer.census_with_progress(c, |n| bar.inc(n));
        bar.finish_and_clear();
        census
    });
    if args.json {
        let json = serde_json::json!({
            "material": material.to_string(),
            "table": material.canonical().to_string(),
            "sides": { "w": census_json(&w), "b": census_json(&b) },
        });
        writeln!(out, "{json}")?;
    } else {
        for (name, c) in [("Red to move  ", w), ("Black to move", b)] {
            writeln!(
                out,
                "{name}: {:>12} legal positions, {:>12} legal entries ({:.1}% of the index)",
                c.legal,
                c.legal_entries,
                100.0 * c.legal_entries as f64 / c.index_size.max(1) as f64
            )?;
        }
    }
    Ok(())
}

/// A census as JSON: the fields of [`xqtb::index::Census`].
fn census_json(c: &xqtb::index::Census) -> serde_json::Value {
    serde_json::json!({
        "index_size": c.index_size,
        "legal_entries": c.legal_entries,
        "legal": c.legal,
    })
}
