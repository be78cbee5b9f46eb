//! `xqtb build <MATERIAL> --dir <DIR> [--memory <SIZE>] [--threads <N>] [--tmp <DIR>]`

use indicatif::ProgressBar;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use xqtb::builder::{self, BuildOptions, Progress};
use xqtb::fang::Rules;
use xqtb::Material;

use super::usage::{bytes, RssPeak, Usage};

/// What a build makes and within what, shared by `xqtb build` and `xqtb plan`.
#[derive(clap::Args)]
pub struct Shape {
    /// Material signatures, e.g. KRNKAABB (a material and its colour-flipped twin share a
    /// table), or table sets, e.g. 'all(attackers<=2,per-side<=1)' (formats/plan.md §1).
    #[arg(required = true, num_args = 1..)]
    pub materials: Vec<String>,
    /// Directory of the final tables (supporting tables are built or reused here).
    #[arg(long)]
    pub dir: PathBuf,
    /// Memory budget for the whole process, e.g. 64M, 2G (at least 64M). Default: three
    /// quarters of the available memory.
    #[arg(long, value_parser = super::parse_size)]
    pub memory: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Rules on endless play: `asian` (perpetual check and forbidden perpetual chase lose),
    /// `check` (only perpetual check loses) or `none` (endless play is a draw).
    #[arg(long, value_enum, default_value_t = RulesArg::Asian)]
    pub rules: RulesArg,
    /// Which tables to build: `dtc` (distance to conversion: what every probe needs, the
    /// smaller and faster files), `dtm` (distance to mate, `<M>.xqdtm`), or `both`.
    #[arg(long, value_enum, default_value_t = MetricArg::Dtc)]
    pub metric: MetricArg,
}

/// The arguments of `xqtb build`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    shape: Shape,
    /// Directory for working files (default: <DIR>/.work). Keep it to resume a killed build.
    #[arg(long)]
    tmp: Option<PathBuf>,
    /// No progress bars or notes (the result, a line per table, still goes to standard output).
    #[arg(long, short)]
    quiet: bool,
    /// Print each phase (init, each ply, write) as it ends: wall time, rate, CPU % of all
    /// threads, bytes the process wrote to and read from storage; and after each table built,
    /// the bytes its working store wrote and read, by kind of file.
    #[arg(long, short)]
    verbose: bool,
    /// At most this many entries per working chunk (testing and tuning; a streamed build takes
    /// shorter chunks if that makes room for its unresolved filter).
    #[arg(long, hide = true, default_value_t = builder::DEFAULT_CHUNK_LEN)]
    chunk_len: u64,
    /// Stream through chunk files even when the table fits in memory (testing).
    #[arg(long, hide = true)]
    stream: bool,
    /// One of the two builds of a partial table (testing; `formats/partial.md`): these
    /// supporting tables are withheld, their captures valued as the best for `--best-for`.
    #[arg(long, hide = true, value_delimiter = ',', requires = "best_for")]
    withhold: Vec<xqtb::Material>,
    /// With `--withhold`: whom the withheld tables' captures are the best for.
    #[arg(long, hide = true, value_enum, requires = "withhold")]
    best_for: Option<SideArg>,
    /// Build a partial table (formats/partial.md): the `--without` tables (without any named:
    /// every table the captures lead to that is not in the directory) are withheld, the others
    /// built; each position gets bounds (at least a draw, at most a draw, ...) and its exact
    /// value where they meet. Two builds, into <DIR>/partial/red-best and .../black-best.
    #[arg(long, conflicts_with = "withhold")]
    partial: bool,
    /// With `--partial`: supporting tables to withhold even if present, e.g. KRK,KNK.
    #[arg(long, value_delimiter = ',', requires = "partial")]
    without: Vec<xqtb::Material>,
    /// Stream with the frontiers as lists on disk even when their bitmaps fit (testing and
    /// measuring).
    #[arg(long, hide = true)]
    frontier_lists: bool,
    /// Stream with frontier lists and one side's unresolved filter in RAM at a time, the other
    /// parked on disk (testing and measuring).
    #[arg(long, hide = true)]
    park_filter: bool,
    /// Push every win ply from its frontier, never pull it (testing and measuring).
    #[arg(long, hide = true)]
    push_only: bool,
    /// Stream, and compute the rule stage's patterns in slices even where their bitmaps fit
    /// (testing and measuring).
    #[arg(long, hide = true)]
    pattern_slices: bool,
    /// If another build (process or machine) holds a table this build needs, fail at once
    /// instead of building the other tables meanwhile and waiting for it (formats/locks.md).
    #[arg(long)]
    no_wait: bool,
    /// Keep the DTM tables' derived values (4 bytes an entry of one side) under --tmp when the
    /// build ends: a later build of a table above, with the same --tmp, reads them instead of
    /// finding them again from the moves (building a family table by table).
    #[arg(long)]
    keep_derived: bool,
    /// Seconds between checkpoints, and at least ten times the last checkpoint's cost (0: at
    /// every pass boundary; `inf`: none).
    #[arg(long, default_value = "60", value_parser = parse_seconds, allow_hyphen_values = true)]
    checkpoint_secs: Duration,
}

/// A side, on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SideArg {
    Red,
    Black,
}

impl From<SideArg> for xqtb::Color {
    fn from(s: SideArg) -> xqtb::Color {
        match s {
            SideArg::Red => xqtb::Color::Red,
            SideArg::Black => xqtb::Color::Black,
        }
    }
}

/// `--metric`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MetricArg {
    Dtc,
    Dtm,
    Both,
}

impl From<MetricArg> for builder::Metrics {
    fn from(m: MetricArg) -> builder::Metrics {
        match m {
            MetricArg::Dtc => builder::Metrics::Dtc,
            MetricArg::Dtm => builder::Metrics::Dtm,
            MetricArg::Both => builder::Metrics::Both,
        }
    }
}

/// `--rules`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RulesArg {
    Asian,
    Check,
    None,
}

impl From<RulesArg> for Rules {
    fn from(r: RulesArg) -> Rules {
        match r {
            RulesArg::Asian => Rules::Asian,
            RulesArg::Check => Rules::Check,
            RulesArg::None => Rules::None,
        }
    }
}

/// Progress on a terminal: one bar per phase, notes as lines (hidden with `--quiet`; bars only
/// on a terminal).
struct Bars {
    quiet: bool,
    verbose: bool,
    bar: Mutex<Option<(ProgressBar, String, Instant, Usage)>>,
    /// With `--verbose`: each phase's peak resident memory.
    rss: Option<RssPeak>,
}

impl Progress for Bars {
    fn table(&self, s: &builder::FamilyStatus) {
        if !self.quiet {
            eprintln!(
                "{}: table {} of {}, {} since the start, about {} left for the {}",
                s.table,
                s.number,
                s.count,
                duration(s.elapsed),
                duration(s.left),
                if s.count > 1 { "family" } else { "table" }
            );
        }
    }
    fn start(&self, label: &str, total: u64) {
        let bar = super::progress_bar(total, label, self.quiet);
        if let Some(rss) = &self.rss {
            rss.restart();
        }
        *self.bar.lock().unwrap() = Some((bar, label.to_string(), Instant::now(), Usage::now()));
    }
    fn advance(&self, done: u64) {
        if let Some((b, ..)) = &*self.bar.lock().unwrap() {
            b.inc(done);
        }
    }
    fn finish(&self) {
        if let Some((b, label, start, usage)) = self.bar.lock().unwrap().take() {
            b.finish_and_clear();
            if self.verbose {
                let s = start.elapsed().as_secs_f64();
                let n = b.length().unwrap_or(0);
                let peak = self
                    .rss
                    .as_ref()
                    .map_or(String::new(), |r| format!(", peak RSS {}", bytes(r.get())));
                eprintln!(
                    "{label}: {s:.2} s, {n} entries, {:.1} M/s, {}{peak}",
                    n as f64 / s.max(1e-9) / 1e6,
                    Usage::now().since(&usage, s)
                );
            }
        }
    }
    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
    fn detail(&self, line: &str) {
        if self.wants_detail() {
            eprintln!("{line}");
        }
    }
    fn wants_detail(&self) -> bool {
        self.verbose && !self.quiet
    }
}

/// Seconds as a person reads them: `42 s`, `7 min 05 s`, `3 h 12 min`.
fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

/// A stop flag raised by the first SIGINT or SIGTERM: the build checkpoints at the next pass
/// boundary and exits, and the message says how to resume. A second one ends the process at
/// once (exit status 1), as without the handler.
fn stop_on_signals() -> std::io::Result<builder::StopFlag> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = builder::StopFlag::default();
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 1, stop.0.clone())?;
        signal_hook::flag::register(signal, stop.0.clone())?;
    }
    // A handler may not print; this thread says the signal was heard (a pass can take minutes).
    let heard = stop.clone();
    std::thread::spawn(move || {
        while !heard.raised() {
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!(
            "xqtb: stopping at the next pass boundary, after a checkpoint (signal again to stop at once)"
        );
    });
    Ok(stop)
}

/// A number of seconds, at least 0; `inf` or anything too large to count means never.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("bad number of seconds {text:?}"))?;
    if v.is_nan() || v < 0.0 {
        return Err(format!("seconds must be 0 or more, not {text:?}"));
    }
    Ok(Duration::try_from_secs_f64(v).unwrap_or(Duration::MAX))
}

/// Builds the table of a material and every supporting table it needs into `--dir`
/// ([`builder::build`]), then prints one line per table: already present, or built and how fast.
pub fn run(args: Args, out: super::Out) -> super::Result<()> {
    let materials = builder::expand_sets(&args.shape.materials)?;
    if args.partial && materials.len() != 1 {
        return Err(format!(
            "--partial builds one table, not {} (formats/partial.md)",
            materials.len()
        )
        .into());
    }
    let material: Material = materials[0];
    super::init_threads(args.shape.threads)?;
    let bars = Bars {
        quiet: args.quiet,
        verbose: args.verbose,
        bar: Mutex::new(None),
        rss: if args.verbose { RssPeak::start() } else { None },
    };
    let memory = match args.shape.memory {
        Some(m) => m,
        None => {
            let m = super::default_budget();
            bars.note(&format!(
                "memory budget: {} MiB (3/4 of available memory)",
                m >> 20
            ));
            m
        }
    };
    let opts = BuildOptions {
        tmp: args.tmp.unwrap_or_else(|| args.shape.dir.join(".work")),
        dir: args.shape.dir,
        memory,
        chunk_len: args.chunk_len,
        checkpoint_interval: args.checkpoint_secs,
        force_streaming: args.stream,
        frontier_lists: args.frontier_lists,
        park_filter: args.park_filter,
        pattern_slices: args.pattern_slices,
        push_only: args.push_only,
        no_wait: args.no_wait,
        keep_derived: args.keep_derived,
        rules: args.shape.rules.into(),
        metrics: args.shape.metric.into(),
        stop: stop_on_signals()?,
        withheld: args.best_for.map(|b| builder::Withheld {
            materials: args.withhold.iter().map(|m| m.canonical()).collect(),
            best_for: b.into(),
        }),
    };
    if args.partial {
        // Named tables are withheld, and the others built; with none named, the absent ones.
        let absent = args.without.is_empty();
        let withheld = builder::withheld_tables(
            material,
            &args.without,
            (absent, opts.metrics.list()),
            &opts.dir,
        );
        let names: Vec<String> = withheld.iter().map(|m| m.to_string()).collect();
        bars.note(&format!(
            "partial build of {material} without {} (formats/partial.md): two builds, into {} \
             and {}",
            names.join(", "),
            builder::partial_dir(&opts.dir, xqtb::Color::Red).display(),
            builder::partial_dir(&opts.dir, xqtb::Color::Black).display()
        ));
        let (complete, [red, black]) = builder::build_partial(material, &withheld, &opts, &bars)?;
        print_reports(out, &complete, "", args.verbose)?;
        print_reports(out, &red, " red-best", args.verbose)?;
        return print_reports(out, &black, " black-best", args.verbose);
    }
    // Several materials: each builds what it needs that the ones before did not.
    let mut shown = std::collections::HashSet::new();
    for material in materials {
        let reports = builder::build(material, &opts, &bars)?;
        let new: Vec<_> = reports
            .into_iter()
            .filter(|r| shown.insert((r.material, r.metric)))
            .collect();
        print_reports(out, &new, "", args.verbose)?;
        note_superseded_partial(material, (&opts.dir, opts.metrics.list()), &bars);
    }
    Ok(())
}

/// After a complete build of `material` in `metrics`: its partial tables of those metrics, if
/// `dir` has them, answer no probe any more (the complete table comes first); say so, and how
/// to remove them.
fn note_superseded_partial(
    material: xqtb::Material,
    (dir, metrics): (&std::path::Path, &[xqtb::table::Metric]),
    bars: &Bars,
) {
    let m = material.canonical();
    let builds = xqtb::Color::ALL.map(|c| builder::partial_dir(dir, c));
    let files: Vec<_> = builds
        .iter()
        .flat_map(|d| {
            metrics
                .iter()
                .map(|&t| xqtb::table::metric_table_path(d, m, t))
        })
        .filter(|p| p.exists())
        .collect();
    if !files.is_empty() {
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        bars.note(&format!(
            "{m}: the complete table now answers every probe; its partial table is superseded \
             (remove it: rm {})",
            names.join(" ")
        ));
    }
}

/// A line per table built or present (`suffix` after its name), and with `verbose` its store's
/// traffic.
fn print_reports(
    out: super::Out,
    reports: &[builder::TableReport],
    suffix: &str,
    verbose: bool,
) -> super::Result<()> {
    for r in reports {
        let name = match r.metric {
            xqtb::table::Metric::Dtc => format!("{}{suffix}", r.material),
            xqtb::table::Metric::Dtm => format!("{} dtm{suffix}", r.material),
        };
        match r.seconds {
            None => writeln!(
                out,
                "{:<12} present   {:>17} positions",
                name,
                super::grouped(r.positions)
            )?,
            Some(s) => writeln!(
                out,
                "{:<12} built     {:>17} positions  {:>8.2} s  {:>7.2} M positions/s  {}  {}{}",
                name,
                super::grouped(r.positions),
                s,
                2.0 * r.entries as f64 / s.max(1e-9) / 1e6,
                super::plies(r.plies.into()),
                if r.resident { "resident" } else { "streamed" },
                match r.max_order {
                    0 => String::new(),
                    n => format!("  {} orders", n + 1),
                }
            )?,
        }
        let t = r.traffic;
        if verbose && t.written() + t.read() > 0 {
            writeln!(
                out,
                "{:<12} store     wrote {} (chunks {}, update logs {}, resolution logs {}, \
                 frontier lists {}, parked filters {}), read {}",
                name,
                bytes(t.written()),
                bytes(t.chunks_written),
                bytes(t.updates_written),
                bytes(t.resolved_written),
                bytes(t.frontier_written),
                bytes(t.parked_written),
                bytes(t.read())
            )?;
        }
    }
    Ok(())
}
