//! `xqtb verify --dir <DIR> [--metric dtc|dtm|both] [<MATERIAL>...]`

use super::build::MetricArg;
use std::path::{Path, PathBuf};
use xqtb::builder::Metrics;
use xqtb::table::{metric_table_path, read_header, Metric};
use xqtb::tablebase::Tablebase;
use xqtb::verify::{DtcCheck, Report};
use xqtb::Material;

/// The arguments of `xqtb verify`.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    dir: PathBuf,
    /// Tables to verify (default: every table of the metric in the directory).
    materials: Vec<String>,
    /// Which tables to verify: `dtc` (`<M>.xqtb`), `dtm` (distance to mate, `<M>.xqdtm`: its
    /// entries, and its win/draw/loss against `<M>.xqtb` if present) or `both`.
    #[arg(long, value_enum, default_value_t = MetricArg::Dtc)]
    metric: MetricArg,
    /// Block cache per open table, e.g. 64M (DTC; a DTM check holds every value in memory).
    #[arg(long, value_parser = super::parse_size, default_value = "64M")]
    cache: u64,
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, short)]
    quiet: bool,
}

/// Verifies the given tables of each metric asked for (default: every table of that metric in
/// `--dir`, smallest first), checksums then entries, printing one line per table; an error if
/// any fails.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    super::init_threads(args.threads)?;
    let given: Vec<Material> = args
        .materials
        .iter()
        .map(|m| m.parse::<Material>().map(|m| m.canonical()))
        .collect::<Result<_, _>>()?;
    let mut bad = 0;
    for &metric in Metrics::from(args.metric).list() {
        let materials = match given.is_empty() {
            true => tables_in(&args.dir, metric)?,
            false => given.clone(),
        };
        bad += match metric {
            Metric::Dtc => verify_dtc(&args, &materials, out)?,
            Metric::Dtm => verify_dtm(&args, &materials, out)?,
        };
    }
    if bad > 0 {
        return Err(format!("{bad} table(s) failed verification").into());
    }
    Ok(())
}

/// The materials of every table of `metric` in `dir`, smallest first.
fn tables_in(dir: &Path, metric: Metric) -> super::Result<Vec<Material>> {
    let mut materials =
        xqtb::table::materials_in(dir, metric).map_err(|e| format!("{}: {e}", dir.display()))?;
    materials.sort_by_key(|m| (m.piece_count(), m.to_string()));
    if materials.is_empty() {
        return Err(match metric {
            Metric::Dtc => format!("no tables in {}", dir.display()),
            Metric::Dtm => format!("no distance-to-mate tables (*.xqdtm) in {}", dir.display()),
        }
        .into());
    }
    Ok(materials)
}

/// Verifies DTC tables, a line each; returns how many failed.
fn verify_dtc(args: &Args, materials: &[Material], out: super::Out) -> super::Result<usize> {
    let tb = Tablebase::new(&args.dir, args.cache as usize);
    let mut bad = 0;
    for &m in materials {
        let entries = tb
            .table(m)
            .map(|t| 2 * xqtb::verify::PASSES * t.file.header().entries)
            .unwrap_or(0);
        let bar = super::progress_bar(entries, &format!("verify {m}"), args.quiet);
        let result = xqtb::verify::verify_table(&tb, m, &|n| bar.inc(n));
        bar.finish_and_clear();
        let line = match result {
            Ok(r) => report_lines(&m.to_string(), &r, "", "their children"),
            Err(e) => Err(format!("{m}: FAILED: {e}")),
        };
        bad += print(line, out)?;
    }
    Ok(bad)
}

/// Verifies DTM tables, a line each; returns how many failed.
fn verify_dtm(args: &Args, materials: &[Material], out: super::Out) -> super::Result<usize> {
    let mut bad = 0;
    for &m in materials {
        let name = format!("{m} dtm");
        let path = metric_table_path(&args.dir, m, Metric::Dtm);
        let header = read_header(&path).ok();
        let entries = header.as_ref().map_or(0, |h| 2 * h.entries);
        // Without own phases there are no seeds to speak of.
        let phases = header.is_some_and(|h| h.max_order > 0);
        let bar = super::progress_bar(entries, &format!("verify {name}"), args.quiet);
        let result = xqtb::verify::verify_dtm(&args.dir, m, &|n| bar.inc(n));
        bar.finish_and_clear();
        let line = match result {
            Ok(r) => report_lines(
                &name,
                &r.report,
                &dtc_note(&r.dtc, phases),
                "their children or the DTC table",
            ),
            Err(e) => Err(format!("{name}: FAILED: {e}")),
        };
        bad += print(line, out)?;
    }
    Ok(bad)
}

/// What a DTM table's line says of the comparison with its DTC table (Theorem 7); the seeds
/// are named only if the table has own phases.
fn dtc_note(check: &DtcCheck, phases: bool) -> String {
    let seeds = match phases {
        true => " and phase seeds",
        false => "",
    };
    match check {
        DtcCheck::Compared(p) => format!("; win/draw/loss{seeds} as {}", p.display()),
        DtcCheck::Absent(p) if phases => format!(
            "; {} absent: win/draw/loss not compared with DTC (Theorem 7), phase seeds checked \
             against their moves only",
            p.display()
        ),
        DtcCheck::Absent(p) => format!(
            "; {} absent: win/draw/loss not compared with DTC (Theorem 7)",
            p.display()
        ),
    }
}

/// A table's lines: `Ok` if it passed, `Err` with its failures if not.
fn report_lines(name: &str, r: &Report, note: &str, against: &str) -> Result<String, String> {
    if r.failure_count == 0 {
        return Ok(format!(
            "{name}: ok ({} entries{note})",
            super::grouped(r.entries_checked)
        ));
    }
    let mut s = format!(
        "{name}: FAILED: {} entries contradict {against}",
        r.failure_count
    );
    for f in &r.failures {
        s.push_str(&format!("\n  {}: {}", f.fen, f.what));
    }
    Err(s)
}

/// Prints a table's lines at once (stdout is buffered); returns 1 if it failed.
fn print(lines: Result<String, String>, out: super::Out) -> super::Result<usize> {
    let (text, bad) = match lines {
        Ok(s) => (s, 0),
        Err(s) => (s, 1),
    };
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(bad)
}
