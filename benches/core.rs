//! Throughput of the rules core and the index, as the builder will use them.
//!
//! `cargo bench --bench core` (or `scripts/bench.sh`). Reported in elements per second:
//! perft leaves, index entries, children.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use xqtb::{perft, Color, Indexer, Position};

fn bench_perft(c: &mut Criterion) {
    let start = Position::startpos();
    let mut g = c.benchmark_group("perft");
    g.throughput(Throughput::Elements(perft(&start, 3)));
    g.bench_function("startpos depth 3 (leaves/s)", |b| {
        b.iter(|| perft(black_box(&start), 3))
    });
    g.finish();
}

/// 20,000 indices of KRNKAABB (the benchmark family head) spread evenly over the whole
/// index, so every defender pair region is visited and caches are not flattered.
fn sample() -> (Indexer, Vec<u64>) {
    let ix = Indexer::new("KRNKAABB".parse().unwrap()).unwrap();
    let n = 20_000u64;
    // An odd stride that is not a multiple of the others range, so the others vary too.
    let stride = (ix.size() / n) | 1;
    let sample = (0..n)
        .map(|k| (k * stride + k * 7919) % ix.size())
        .collect();
    (ix, sample)
}

fn bench_index(c: &mut Criterion) {
    let (ix, sample) = sample();
    let positions: Vec<Position> = sample
        .iter()
        .filter_map(|&i| ix.decode(i, Color::Red))
        .collect();

    let mut g = c.benchmark_group("index");
    g.throughput(Throughput::Elements(sample.len() as u64));
    g.bench_function("decode (entries/s)", |b| {
        b.iter(|| {
            sample
                .iter()
                .filter_map(|&i| ix.decode(i, Color::Red))
                .count()
        })
    });
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("encode (positions/s)", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| ix.encode(p).unwrap())
                .fold(0, u64::wrapping_add)
        })
    });
    g.finish();

    // The builder's forward step: index → position → legal children → child index (quiet moves
    // stay in the table; captures leave it and are not encoded here).
    let children = |count_only: bool| {
        let mut n = 0u64;
        let mut acc = 0u64;
        for &i in &sample {
            let Some(mut pos) = ix.decode(i, Color::Red) else {
                continue;
            };
            if pos.opponent_in_check() {
                continue;
            }
            for m in pos.legal_moves() {
                if pos.is_capture(m) {
                    continue;
                }
                n += 1;
                if !count_only {
                    let u = pos.play(m);
                    acc = acc.wrapping_add(ix.encode(&pos).unwrap());
                    pos.undo(m, u);
                }
            }
        }
        n.wrapping_add(acc & 1)
    };
    let mut g = c.benchmark_group("builder step");
    g.throughput(Throughput::Elements(children(true)));
    g.bench_function("index->position->children->index (children/s)", |b| {
        b.iter(|| children(false))
    });

    // The backward step: index → position → retro moves → predecessor index.
    let retro = |count_only: bool| {
        let mut n = 0u64;
        let mut acc = 0u64;
        for &i in &sample {
            let Some(mut pos) = ix.decode(i, Color::Red) else {
                continue;
            };
            for m in pos.retro_moves() {
                n += 1;
                if !count_only {
                    pos.unplay(m);
                    acc = acc.wrapping_add(ix.encode(&pos).unwrap());
                    pos.play(m);
                }
            }
        }
        n.wrapping_add(acc & 1)
    };
    g.throughput(Throughput::Elements(retro(true)));
    g.bench_function("index->position->parents->index (parents/s)", |b| {
        b.iter(|| retro(false))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench_perft, bench_index
}
criterion_main!(benches);
