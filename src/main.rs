//! The `xqtb` command line: a thin layer over the library, one file per subcommand.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
