//! Load generator for `scripts/loadtest.sh`: requests to a running `xqtb serve` on loopback,
//! for a bounded time, then requests/s and latency percentiles.
//!
//! ```text
//! loadtest --url http://127.0.0.1:PORT --material KRNKAABB --mode cold|warm|malformed
//!          [--seconds 15] [--threads 4] [--seed 1]
//! ```
//!
//! - `cold`: every request a different random legal position of the material, spread over the
//!   whole index, so the server's block cache almost never holds what a request needs;
//! - `warm`: 12 positions, asked once untimed, then again and again: the few hundred blocks
//!   they and their children read stay in the cache (a 32 MiB cache holds 512 blocks);
//! - `malformed`: bad positions, bad query strings, unknown paths and materials; every answer
//!   must be a 4xx.
//!
//! Exits non-zero if any answer is a 5xx, or (cold/warm) not a 200.

use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use xqtb::{to_fen, Color, Indexer, Material};

struct Opts {
    url: String,
    material: String,
    mode: String,
    seconds: u64,
    threads: usize,
    seed: u64,
}

fn opts() -> Result<Opts, String> {
    let mut o = Opts {
        url: String::new(),
        material: "KRNKAABB".into(),
        mode: String::new(),
        seconds: 15,
        threads: 4,
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut v = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--url" => o.url = v()?,
            "--material" => o.material = v()?,
            "--mode" => o.mode = v()?,
            "--seconds" => o.seconds = v()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--threads" => o.threads = v()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--seed" => o.seed = v()?.parse().map_err(|e| format!("--seed: {e}"))?,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if !o.url.starts_with("http://127.") && !o.url.starts_with("http://localhost") {
        return Err("--url must be a loopback address (http://127.x.x.x:PORT)".into());
    }
    if !["cold", "warm", "malformed"].contains(&o.mode.as_str()) {
        return Err("--mode is cold, warm or malformed".into());
    }
    o.seconds = o.seconds.min(30);
    Ok(o)
}

/// `n` random legal positions of `material`, as URL paths.
fn positions(material: &str, n: usize, seed: u64) -> Vec<String> {
    let m: Material = material.parse().expect("a material");
    let ix = Indexer::new(m).expect("an indexable material");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let turn = if rng.gen::<bool>() {
            Color::Red
        } else {
            Color::Black
        };
        if let Some(p) = ix
            .decode(rng.gen_range(0..ix.size()), turn)
            .filter(|p| !p.opponent_in_check())
        {
            let fen = to_fen(&p);
            let fen: Vec<&str> = fen.split(' ').take(2).collect();
            out.push(format!("/api/probe?fen={}", fen.join("_")));
        }
    }
    out
}

fn malformed() -> Vec<String> {
    let mut v: Vec<String> = [
        "/api/probe",
        "/api/probe?fen=",
        "/api/probe?fen=xyz",
        "/api/probe?fen=4k4/9_w",
        "/api/probe?fen=%FF%FE%00",
        "/api/probe?fen=4k4/9/9/9/9/9/9/9/9/3KR4_w",
        "/api/probe?fen=4k4/9/9/9/9/9/9/9/9/3K5_q",
        "/api/probe?fen=3k5/9/9/9/9/9/9/9/9/4K1Q2_w",
        "/api/probe?fen=kkkkkkkkk/9/9/9/9/9/9/9/9/4K4_w",
        "/api/probe?fen=rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_w",
        "/api/probe?fen=4K44B49994n495k39999",
        "/api/probe?fen=%",
        "/api/probe?fen=a&fen=b",
        "/api/mainline?fen=nonsense",
        "/api/mainline",
        "/api/stats/KQK",
        "/api/stats/",
        "/api/stats/KRRRK",
        "/api/stats/KCCKCC",
        "/api/nothing/here",
        "/no/such/page",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("/api/probe?fen={}", "9/".repeat(500)));
    v.push(format!("/api/stats/{}", "K".repeat(300)));
    v
}

fn main() {
    let o = match opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("loadtest: {e}");
            std::process::exit(2);
        }
    };
    let paths: Vec<String> = match o.mode.as_str() {
        "cold" => positions(&o.material, 400_000, o.seed),
        "warm" => positions(&o.material, 12, o.seed + 1),
        _ => malformed(),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let get = |path: &str| -> u16 {
        match agent.get(&format!("{}{path}", o.url)).call() {
            Ok(mut r) => {
                let _ = r.body_mut().with_config().limit(16 << 20).read_to_vec();
                r.status().as_u16()
            }
            Err(e) => {
                eprintln!("loadtest: GET {path}: {e}");
                0
            }
        }
    };
    if o.mode == "warm" {
        for p in &paths {
            get(p);
        }
    }
    let paths = Arc::new(paths);
    let next = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(o.seconds);
    let t0 = Instant::now();
    let workers: Vec<_> = (0..o.threads)
        .map(|_| {
            let (paths, next, get_mode) = (paths.clone(), next.clone(), o.mode.clone());
            let url = o.url.clone();
            let agent = agent.clone();
            std::thread::spawn(move || {
                let mut lat = Vec::new();
                let mut status = std::collections::BTreeMap::<u16, u64>::new();
                while Instant::now() < deadline {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let path = if get_mode == "cold" {
                        match paths.get(i) {
                            Some(p) => p,
                            None => break,
                        }
                    } else {
                        &paths[i % paths.len()]
                    };
                    let t = Instant::now();
                    let code = match agent.get(&format!("{url}{path}")).call() {
                        Ok(mut r) => {
                            let _ = r.body_mut().with_config().limit(16 << 20).read_to_vec();
                            r.status().as_u16()
                        }
                        Err(_) => 0,
                    };
                    lat.push(t.elapsed());
                    *status.entry(code).or_default() += 1;
                }
                (lat, status)
            })
        })
        .collect();
    let mut lat = Vec::new();
    let mut status = std::collections::BTreeMap::<u16, u64>::new();
    for w in workers {
        let (l, s) = w.join().expect("worker");
        lat.extend(l);
        for (k, v) in s {
            *status.entry(k).or_default() += v;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    lat.sort();
    let q = |p: f64| -> f64 {
        lat.get(((lat.len() as f64 * p) as usize).min(lat.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "{}: {} requests in {:.1} s, {} threads: {:.0} requests/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; status {:?}",
        o.mode,
        lat.len(),
        wall,
        o.threads,
        lat.len() as f64 / wall,
        q(0.5),
        q(0.9),
        q(0.99),
        lat.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0),
        status
    );
    let bad = status
        .iter()
        .filter(|(&k, _)| {
            if o.mode == "malformed" {
                !(400..500).contains(&k)
            } else {
                k != 200
            }
        })
        .map(|(_, v)| v)
        .sum::<u64>();
    if bad > 0 {
        eprintln!("loadtest: {bad} unexpected answers");
        std::process::exit(1);
    }
}
