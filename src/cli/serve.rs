//! `xqtb serve --dir <DIR> [--addr 127.0.0.1:8080]`: the query pages and JSON API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The arguments of `xqtb serve`.
#[derive(clap::Args)]
pub struct Args {
    /// Directory holding the `.xqtb` table files.
    #[arg(long)]
    dir: PathBuf,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Block cache per open table, e.g. 64M.
    #[arg(long, value_parser = super::parse_size, default_value = "32M")]
    cache: u64,
    /// Do not log one line per request on stderr.
    #[arg(long)]
    quiet: bool,
    /// Connections open at once; further ones wait in the kernel's backlog until one closes.
    #[arg(long, value_name = "N", default_value_t = 512,
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    max_connections: u32,
    /// Seconds a client has to send a whole request head, from its first byte (from the
    /// connection's opening for its first request); then the connection is closed.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10")]
    header_timeout: Duration,
    /// Seconds a kept-alive connection may stay idle, or a client take without reading any of
    /// an answer, before the connection is closed.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "30")]
    idle_timeout: Duration,
}

/// A positive number of seconds, at most a day (e.g. `10`, `0.5`).
fn seconds(text: &str) -> Result<Duration, String> {
    let bad = || format!("bad duration {text:?}: a number of seconds above 0, at most 86400");
    let s: f64 = text.trim().parse().map_err(|_| bad())?;
    if !(s > 0.0 && s <= 86400.0) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(s))
}

/// Serves the query pages and JSON API over `--dir` until the process is stopped.
pub fn run(args: Args, _out: super::Out) -> super::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .init();
    let config = xqtb::server::Config {
        dir: args.dir,
        addr: args.addr,
        cache_bytes: usize::try_from(args.cache).map_err(|_| "--cache too large")?,
        log_requests: !args.quiet,
        limits: xqtb::server::Limits {
            max_connections: args.max_connections as usize,
            header_timeout: args.header_timeout,
            idle_timeout: args.idle_timeout,
        },
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(xqtb::server::run(config))?;
    Ok(())
}
