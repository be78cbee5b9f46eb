//! The `xqtb` command line: a thin layer over the library, one file per subcommand.

mod cli;

fn main() {
    limit_malloc_arenas();
    std::process::exit(cli::run());
}

/// glibc gives every thread an allocator arena of its own and keeps what is freed there for
/// that thread; with many worker threads that memory adds up past `--memory`. The builder's hot
/// loops do not allocate, so two arenas cost nothing measurable. Must run before any thread
/// starts.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // Safety: mallopt only sets an allocator parameter; it is called before any other thread
    // exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        // Large blocks (bitmaps, chunks, buffers) are mapped and unmapped, so memory freed
        // between phases goes back to the system; a fixed threshold also turns off glibc's
        // raising it after each such free.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}
