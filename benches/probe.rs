//! Random probes of KRNKAABB (issue 9) through the probing API ([`Tablebase`]): WDL and DTC
//! probes per second with a warm block cache, and single-probe latency with a cold one (a fresh
//! `Tablebase`: nothing open, nothing decompressed, the files in the page cache) and with a cold
//! page cache as well (the table's pages evicted). Each probe is what an engine does: find the
//! table, encode the position, read the entry; a DTC probe of a win whose distance the file
//! does not store (a win at once, format 3) also probes the WDL of the children that could
//! prove it. The file layer's probes (a `TableFile`'s WDL symbol and stored value, as format 2's
//! figures in formats/table.md §13 were measured) are timed warm as well.
//!
//! `cargo bench --bench probe`. Tables are taken from `$XQTB_BENCH_TABLES` (default
//! `target/bench-tables`) and built there first if missing or of an older format (about a minute and a
//! half on two cores). Format 1's figures (formats/table.md §13) came from this file run against
//! the format-1 reader at commit 00b7cf9.

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use xqtb::table::TableFile;
use xqtb::tablebase::Tablebase;
use xqtb::{Color, Indexer, Material, Position};

fn tables() -> PathBuf {
    let dir = std::env::var_os("XQTB_BENCH_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-tables"));
    let material: Material = "KRNKAABB".parse().unwrap();
    // `build` does nothing when every table is present and of this version; it rebuilds those
    // of an older format.
    {
        std::fs::create_dir_all(&dir).unwrap();
        eprintln!("KRNKAABB and its supporting tables in {}", dir.display());
        let opts = xqtb::builder::BuildOptions {
            memory: 1 << 30,
            checkpoint_interval: std::time::Duration::from_secs(3600),
            ..xqtb::builder::BuildOptions::new(dir.clone())
        };
        xqtb::builder::build(material, &opts, &xqtb::builder::Silent).unwrap();
    }
    dir
}

/// 20,000 random legal positions (both sides to move), from uniformly drawn indices.
fn sample(ix: &Indexer) -> Vec<Position> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let mut out = Vec::new();
    while out.len() < 20_000 {
        let turn = Color::ALL[rng.gen_range(0..2)];
        if let Some(p) = ix.decode(rng.gen_range(0..ix.size()), turn) {
            if !p.opponent_in_check() {
                out.push(p);
            }
        }
    }
    out
}

fn wdl(tb: &Tablebase, p: &Position) -> u8 {
    tb.probe_wdl(p).unwrap() as u8
}

fn dtc(tb: &Tablebase, p: &Position) -> u32 {
    tb.probe_dtc(p).unwrap().code()
}

/// The file layer alone (format 2's figures were measured so): the WDL symbol, and the stored
/// value (no look at the moves).
fn file_wdl(t: &TableFile, ix: &Indexer, p: &Position) -> u8 {
    t.outcome_legal(p.turn(), ix.encode(p).unwrap()).unwrap() as u8
}

fn file_stored(t: &TableFile, ix: &Indexer, p: &Position) -> u32 {
    t.stored_legal(p.turn(), ix.encode(p).unwrap())
        .unwrap()
        .code()
}

fn bench_probe(c: &mut Criterion) {
    let dir = tables();
    let path = xqtb::table::table_path(&dir, "KRNKAABB".parse().unwrap());
    let ix = Indexer::new("KRNKAABB".parse().unwrap()).unwrap();
    let positions = sample(&ix);
    // (The table is returned so that dropping it is not timed.)
    // A cache that holds every block: after one pass, nothing is decompressed again.
    let warm = Tablebase::new(&dir, 1 << 30);
    for p in &positions {
        black_box(dtc(&warm, p));
    }
    let mut g = c.benchmark_group("probe KRNKAABB");
    g.sample_size(20);
    g.throughput(Throughput::Elements(positions.len() as u64));
    let file = TableFile::open(&path, 1 << 30).unwrap();
    for p in &positions {
        black_box(file_stored(&file, &ix, p));
    }
    g.bench_function("file layer: WDL, warm cache (probes/s)", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| file_wdl(&file, &ix, p) as u64)
                .sum::<u64>()
        })
    });
    g.bench_function("file layer: stored DTC, warm cache (probes/s)", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| file_stored(&file, &ix, p) as u64)
                .sum::<u64>()
        })
    });
    drop(file);
    g.bench_function("WDL, warm cache (probes/s)", |b| {
        b.iter(|| positions.iter().map(|p| wdl(&warm, p) as u64).sum::<u64>())
    });
    g.bench_function("DTC, warm cache (probes/s)", |b| {
        b.iter(|| positions.iter().map(|p| dtc(&warm, p) as u64).sum::<u64>())
    });
    g.throughput(Throughput::Elements(1));
    let mut k = 0;
    let mut next_file = || {
        k = (k + 7919) % positions.len();
        (TableFile::open(&path, 1 << 20).unwrap(), &positions[k])
    };
    g.bench_function("file layer: WDL, cold cache (one probe)", |b| {
        b.iter_batched(
            &mut next_file,
            |(t, p)| (file_wdl(&t, &ix, p), t),
            BatchSize::PerIteration,
        )
    });
    let mut k = 0;
    let mut next = || {
        k = (k + 7919) % positions.len();
        (Tablebase::new(&dir, 1 << 20), &positions[k])
    };
    g.bench_function("WDL, cold cache (one probe)", |b| {
        b.iter_batched(&mut next, |(t, p)| (wdl(&t, p), t), BatchSize::PerIteration)
    });
    let mut k = 0;
    let mut next = || {
        k = (k + 7919) % positions.len();
        (Tablebase::new(&dir, 1 << 20), &positions[k])
    };
    g.bench_function("DTC, cold cache (one probe)", |b| {
        b.iter_batched(&mut next, |(t, p)| (dtc(&t, p), t), BatchSize::PerIteration)
    });
    drop(warm);
    // Cold page cache too: the file's pages are evicted before each probe (posix_fadvise
    // DONTNEED on this file alone, unlike dropping every cache of a shared machine; pages no
    // process maps are dropped).
    let evict = || {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::open(&path).unwrap();
        // Safety: a valid open descriptor; the call only advises the kernel.
        let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(r, 0, "posix_fadvise");
    };
    for (name, f) in [
        (
            "WDL, cold page cache (one probe)",
            wdl as fn(&Tablebase, &Position) -> _,
        ),
        (
            "DTC, cold page cache (one probe)",
            |t: &Tablebase, p: &Position| dtc(t, p) as u8,
        ),
    ] {
        let mut k = 0;
        g.bench_function(name, |b| {
            b.iter_batched(
                || {
                    k = (k + 7919) % positions.len();
                    evict();
                    (Tablebase::new(&dir, 1 << 20), &positions[k])
                },
                |(t, p)| (f(&t, p), t),
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, bench_probe);
criterion_main!(benches);
