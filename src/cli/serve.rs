//! `xqtb serve --dir <DIR> [--addr 127.0.0.1:8080]`: the query pages and JSON API.

use std::net::SocketAddr;
use std::path::PathBuf;

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
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(xqtb::server::run(config))?;
    Ok(())
}
