//! `xqtb verify --dir <DIR> [<MATERIAL>...]`

use std::path::PathBuf;
use xqtb::tablebase::Tablebase;
use xqtb::Material;

/// The arguments of `xqtb verify`.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    dir: PathBuf,
    /// Tables to verify (default: every `*.xqtb` in the directory).
    materials: Vec<String>,
    /// Block cache per open table, e.g. 64M.
    #[arg(long, value_parser = super::parse_size, default_value = "64M")]
    cache: u64,
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long, short)]
    quiet: bool,
}

/// Verifies the given tables (default: every `*.xqtb` in `--dir`, smallest first), checksums
/// then entries, printing one line per table; an error if any fails.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    super::init_threads(args.threads)?;
    let mut materials: Vec<Material> = args
        .materials
        .iter()
        .map(|m| m.parse::<Material>().map(|m| m.canonical()))
        .collect::<Result<_, _>>()?;
    if materials.is_empty() {
        let rd =
            std::fs::read_dir(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
        for e in rd {
            let name = e?.file_name().to_string_lossy().into_owned();
            if let Some(m) = name
                .strip_suffix(".xqtb")
                .and_then(|m| m.parse::<Material>().ok())
            {
                materials.push(m);
            }
        }
        materials.sort_by_key(|m| (m.piece_count(), m.to_string()));
        if materials.is_empty() {
            return Err(format!("no tables in {}", args.dir.display()).into());
        }
    }
    let tb = Tablebase::new(&args.dir, args.cache as usize);
    let mut bad = 0;
    for m in materials {
        let entries = tb
            .table(m)
            .map(|t| 4 * t.file.header().entries) // two passes over both sides
            .unwrap_or(0);
        let bar = super::progress_bar(entries, &format!("verify {m}"), args.quiet);
        let result = xqtb::verify::verify_table(&tb, m, &|n| bar.inc(n));
        bar.finish_and_clear();
        match result {
            Ok(r) if r.failure_count == 0 => {
                writeln!(out, "{m}: ok ({} entries)", r.entries_checked)?;
            }
            Ok(r) => {
                bad += 1;
                writeln!(
                    out,
                    "{m}: FAILED: {} entries contradict their children",
                    r.failure_count
                )?;
                for f in &r.failures {
                    writeln!(out, "  {}: {}", f.fen, f.what)?;
                }
            }
            Err(e) => {
                bad += 1;
                writeln!(out, "{m}: FAILED: {e}")?;
            }
        }
        // Each table's line as it is done, not all at the end (stdout is buffered).
        out.flush()?;
    }
    if bad > 0 {
        return Err(format!("{bad} table(s) failed verification").into());
    }
    Ok(())
}
