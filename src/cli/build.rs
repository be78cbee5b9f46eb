//! `xqtb build <MATERIAL> --dir <DIR> [--memory <SIZE>] [--threads <N>] [--tmp <DIR>]`

use std::path::PathBuf;
use std::time::Duration;
use xqtb::build::{self, BuildOptions};
use xqtb::Material;

#[derive(clap::Args)]
pub struct Args {
    /// Material signature, e.g. KRNKAABB (a material and its colour-flipped twin share a table).
    material: String,
    /// Directory of the final tables (supporting tables are built or reused here).
    #[arg(long)]
    dir: PathBuf,
    /// Memory budget for the whole process, e.g. 64M, 2G (at least 64M). Default: three
    /// quarters of the available memory.
    #[arg(long, value_parser = super::parse_size)]
    memory: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Directory for working files (default: <DIR>/.build). Keep it to resume a killed build.
    #[arg(long)]
    tmp: Option<PathBuf>,
    /// No progress bars or messages.
    #[arg(long, short)]
    quiet: bool,
    /// Entries per working chunk (testing and tuning).
    #[arg(long, hide = true, default_value_t = build::DEFAULT_CHUNK_LEN)]
    chunk_len: u64,
    /// Stream through chunk files even when the table fits in memory (testing).
    #[arg(long, hide = true)]
    stream: bool,
    /// Seconds between checkpoints (0: at every pass boundary).
    #[arg(long, default_value_t = 60.0)]
    checkpoint_secs: f64,
}

pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let material: Material = args.material.parse()?;
    super::init_threads(args.threads)?;
    let quiet = args.quiet;
    let log = move |msg: &str| {
        if !quiet {
            eprintln!("{msg}");
        }
    };
    let memory = match args.memory {
        Some(m) => m,
        None => {
            let m = build::default_budget();
            log(&format!(
                "memory budget: {} MiB (3/4 of available memory)",
                m >> 20
            ));
            m
        }
    };
    let opts = BuildOptions {
        tmp: args.tmp.unwrap_or_else(|| args.dir.join(".build")),
        dir: args.dir,
        memory,
        chunk_len: args.chunk_len,
        checkpoint_interval: Duration::from_secs_f64(args.checkpoint_secs.max(0.0)),
        quiet,
        force_streaming: args.stream,
    };
    let reports = build::build(material, &opts, &log)?;
    for r in reports {
        match r.seconds {
            None => writeln!(
                out,
                "{:<12} present   {:>14} positions",
                r.material, r.positions
            )?,
            Some(s) => writeln!(
                out,
                "{:<12} built     {:>14} positions  {:>8.2} s  {:>7.2} M positions/s  {} plies  {}",
                r.material,
                r.positions,
                s,
                2.0 * r.entries as f64 / s.max(1e-9) / 1e6,
                r.plies,
                if r.resident { "resident" } else { "streamed" }
            )?,
        }
    }
    let _ = std::fs::remove_dir(&opts.tmp);
    Ok(())
}
