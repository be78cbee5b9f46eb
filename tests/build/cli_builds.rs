//! End-to-end builds through the CLI: the published win/draw/loss figures, semantic
//! verification of every table built, and byte-identical output across thread counts and
//! between a resident build and a streaming one that holds a small fraction of the table.

use crate::common::{tables, xqtb as command};
use std::path::Path;

fn xqtb(args: &[&str]) -> String {
    xqtb_both(args).0
}

/// Runs xqtb, which must succeed; its standard output and standard error.
fn xqtb_both(args: &[&str]) -> (String, String) {
    let out = command().args(args).output().expect("run xqtb");
    assert!(
        out.status.success(),
        "xqtb {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn dir_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Red to move W/D/L, Black to move W/D/L, longest win in plies, as independently computed
/// (the figures; `tests/engine/dtc_reference.rs` reproduces the first four with a naive
/// forward solver).
const FIGURES: [(&str, [u64; 6], u64); 5] = [
    ("KRK", [3834, 0, 0, 0, 108, 4806], 3),
    ("KNK", [4590, 0, 0, 0, 108, 4806], 13),
    ("KPK", [2394, 432, 0, 0, 546, 2469], 19),
    ("KNKA", [21366, 60, 0, 0, 816, 21990], 29),
    ("KRKAABB", [590094, 129438, 0, 0, 408288, 432474], 35),
];

#[test]
fn published_figures_and_verification() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir_str(dir.path());
    for m in ["KRKAABB", "KNKA", "KPK"] {
        xqtb(&["build", m, "--dir", d, "--quiet", "--memory", "256M"]);
    }
    for (m, wdl, longest) in FIGURES {
        let j: serde_json::Value =
            serde_json::from_str(&xqtb(&["stats", "--dir", d, m, "--json"])).unwrap();
        let side = |s: &str, k: &str| j["sides"][s][k].as_u64().unwrap();
        let got = [
            side("w", "win"),
            side("w", "draw"),
            side("w", "loss"),
            side("b", "win"),
            side("b", "draw"),
            side("b", "loss"),
        ];
        assert_eq!(got, wdl, "{m} W/D/L");
        let lw = ["w", "b"]
            .iter()
            .filter_map(|s| j["sides"][s]["longest_win"]["distance"].as_u64())
            .max()
            .unwrap();
        assert_eq!(lw, longest, "{m} longest win");
        // The longest win's example position really is that far from conversion.
        let fen = j["sides"]["w"]["longest_win"]["fen"].as_str().unwrap();
        let p: serde_json::Value =
            serde_json::from_str(&xqtb(&["probe", "--dir", d, "--json", fen])).unwrap();
        assert_eq!(p["result"], "win");
        assert_eq!(
            p["distance"].as_u64().unwrap(),
            j["sides"]["w"]["longest_win"]["distance"].as_u64().unwrap()
        );
    }
    // Fang 5.4 over every table in the directory (supporting tables included).
    let report = xqtb(&["verify", "--dir", d, "--quiet"]);
    assert!(report.lines().count() >= 20, "{report}");
    assert!(
        report
            .lines()
            .all(|l| l.ends_with("entries)") && l.contains(": ok")),
        "{report}"
    );
}

/// The same bytes whatever the threads, the budget, the chunks, and whether win plies are
/// pulled (the default, where that costs less) or all pushed (`--push-only`): under the Asian
/// rules (the frontiers as lists, the patterns in slices), and under `--rules none`, whose
/// builds have no rule stage and may also park the unresolved filter.
#[test]
fn output_does_not_depend_on_threads_or_memory() {
    let stream_small_chunks = [
        "--threads",
        "2",
        "--memory",
        "64M",
        "--stream",
        "--chunk-len",
        "16384",
    ];
    const ASIAN_RUNS: usize = 9;
    let runs: [&[&str]; 14] = [
        &["--threads", "1"],
        &["--threads", "2", "--verbose"],
        &["--threads", "8"],
        &["--threads", "8", "--memory", "64M", "--stream"],
        // 16384-entry chunks: KRKAABB's working state is split into 35 chunks per side, and
        // the build streams them through chunk files and update logs.
        &[&stream_small_chunks[..], &["--verbose"]].concat(),
        &["--threads", "2", "--push-only"],
        &[&stream_small_chunks[..], &["--push-only", "--verbose"]].concat(),
        // The rule stage with frontier lists, and with its patterns in slices.
        &[&stream_small_chunks[..], &["--frontier-lists", "--verbose"]].concat(),
        &[&stream_small_chunks[..], &["--pattern-slices", "--verbose"]].concat(),
        // `--rules none` from here on (ASIAN_RUNS): compared with the first of them...
        &["--threads", "1"],
        &["--threads", "2", "--memory", "64M", "--stream"],
        // ... the frontiers as per-chunk lists on disk instead of bitmaps (no pulled plies).
        &[&stream_small_chunks[..], &["--frontier-lists", "--verbose"]].concat(),
        &[
            "--threads",
            "1",
            "--memory",
            "64M",
            "--frontier-lists",
            "--verbose",
        ],
        // And one side's unresolved filter in RAM at a time, the other parked on disk.
        &[&stream_small_chunks[..], &["--park-filter", "--verbose"]].concat(),
    ];
    let mut outputs = Vec::new();
    for (i, extra) in runs.into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["build", "KRKAABB", "--dir", dir_str(dir.path())];
        if i >= ASIAN_RUNS && !extra.contains(&"--rules") {
            args.extend(["--rules", "none"]);
        }
        if !extra.contains(&"--verbose") {
            args.push("--quiet");
        }
        args.extend_from_slice(extra);
        let (out, err) = xqtb_both(&args);
        let lists = extra.contains(&"--frontier-lists") || extra.contains(&"--park-filter");
        if extra.contains(&"--stream") || lists {
            assert!(out.contains("streamed"), "{out}");
        }
        if extra.contains(&"--pattern-slices") {
            assert!(err.contains("rule patterns in slices"), "{err}");
        }
        if extra.contains(&"--park-filter") {
            assert!(
                err.contains("frontier lists, unresolved filter parked by side)"),
                "{err}"
            );
        } else if lists {
            assert!(err.contains("frontier lists)"), "{err}");
        }
        if lists {
            let listed = out
                .lines()
                .find(|l| l.starts_with("KRKAABB ") && l.contains(" store "));
            assert!(
                listed.is_some_and(|l| !l.contains("frontier lists 0 kB")),
                "{out}"
            );
        }
        if extra.contains(&"--verbose") {
            // The default pulls some win plies; --push-only none.
            let pulled = err.lines().filter(|l| l.contains("(pulled)")).count();
            let lists = extra.contains(&"--frontier-lists") || extra.contains(&"--park-filter");
            if extra.contains(&"--push-only") || lists {
                assert_eq!(pulled, 0, "{err}");
            } else {
                assert!(pulled > 10, "{pulled} plies pulled: {err}");
            }
        }
        outputs.push(tables(dir.path()));
    }
    assert_eq!(outputs[0].len(), 18, "KRKAABB and its 17 supporting tables");
    for (i, o) in outputs.iter().enumerate() {
        let first = &outputs[if i < ASIAN_RUNS { 0 } else { ASIAN_RUNS }];
        assert_eq!(o.len(), first.len());
        for (a, b) in first.iter().zip(o) {
            assert_eq!(a.0, b.0);
            assert!(a.1 == b.1, "{} differs", a.0);
        }
    }
}

#[test]
fn build_reuses_intact_tables_and_rebuilds_damaged_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir_str(dir.path());
    xqtb(&["build", "KNKA", "--dir", d, "--quiet"]);
    let before = tables(dir.path());
    let out = xqtb(&["build", "KNKA", "--dir", d, "--quiet"]);
    assert!(out.lines().all(|l| l.contains("present")), "{out}");
    // Damage a supporting table: it is rebuilt, identically.
    let knk = dir.path().join("KNK.xqtb");
    let mut bytes = std::fs::read(&knk).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&knk, bytes).unwrap();
    let out = xqtb(&["build", "KNKA", "--dir", d, "--quiet"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("KNK ") && l.contains("built")),
        "{out}"
    );
    assert_eq!(tables(dir.path()), before);

    // A table whose completion record names another builder (an older engine, or a file from
    // elsewhere) is not trusted, even with every checksum right: it is rebuilt.
    let knka = dir.path().join("KNKA.xqtb");
    let mut bytes = std::fs::read(&knka).unwrap();
    assert!(
        bytes[204..236].starts_with(b"xqtb "),
        "completion record at header bytes 204..236"
    );
    bytes[204..236].fill(0);
    bytes[204..204 + 19].copy_from_slice(b"xqtb 0.0.1 engine 1");
    let crc = crc32fast::hash(&bytes[..252]);
    bytes[252..256].copy_from_slice(&crc.to_le_bytes());
    let end = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..end]);
    bytes[end..].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&knka, bytes).unwrap();
    let out = xqtb(&["build", "KNKA", "--dir", d, "--quiet"]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("KNKA ") && l.contains("built")),
        "{out}"
    );
    assert_eq!(tables(dir.path()), before);
}

#[test]
fn bad_arguments_are_clear_errors() {
    let run = |args: &[&str]| {
        let out = command().args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir_str(dir.path());
    assert!(run(&["build", "KRQK", "--dir", d]).contains("unknown piece letter"));
    assert!(run(&["build", "KRK", "--dir", d, "--memory", "10M"]).contains("64 MiB"));
    assert!(run(&["build", "KRK", "--dir", d, "--memory", "lots"]).contains("bad size"));
    assert!(run(&["probe", "--dir", d, "3k5/9/9/9/9/9/9/9/9/4K1R2 w"])
        .contains("no table for material KRK"));
    assert!(run(&["stats", "--dir", d, "KRK"]).contains("no table"));
}

/// The store's traffic that `build --verbose` reports is the bytes its files took: a streamed
/// build writes every chunk file at least once (initialisation: at least the 32-byte header, a
/// frame's length and a block, and the crc32 of a chunk, formats/build.md §4), reads back at least what its later passes rewrote, and logs
/// updates; a resident build that never checkpoints writes nothing there.
#[test]
fn store_traffic_counts_the_working_files() {
    use xqtb::builder::{build, BuildOptions};
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        memory: 64 << 20,
        chunk_len: 1 << 16,
        force_streaming: true,
        ..BuildOptions::new(dir.path())
    };
    let reports = build("KRKAB".parse().unwrap(), &opts, &xqtb::retro::Silent).unwrap();
    let top = reports.last().unwrap();
    let n = top.entries;
    let chunks = n.div_ceil(1 << 16);
    let t = top.traffic;
    assert!(t.chunks_written > 2 * 40 * chunks, "{t:?}");
    assert!(t.chunks_read > 0 && t.updates_written > 0, "{t:?}");
    assert_eq!(
        t.updates_read, t.updates_written,
        "every logged update is read back"
    );
    assert_eq!(
        t.written(),
        t.chunks_written + t.updates_written + t.resolved_written
    );
    let dir = tempfile::tempdir().unwrap();
    let reports = build(
        "KRKAB".parse().unwrap(),
        &BuildOptions::new(dir.path()),
        &xqtb::retro::Silent,
    )
    .unwrap();
    assert_eq!(reports.last().unwrap().traffic, Default::default());
    // The command line prints it after the table's line.
    let dir = tempfile::tempdir().unwrap();
    let out = xqtb(&[
        "build",
        "KRKA",
        "--dir",
        dir_str(dir.path()),
        "--stream",
        "--memory",
        "64M",
        "--verbose",
    ]);
    assert!(
        out.lines()
            .any(|l| l.starts_with("KRKA ") && l.contains("store     wrote")),
        "{out}"
    );
}

/// `xqtb plan` lists the tables `build` takes, in its order, with each one's entries (the
/// index's size), what is present, and the `--tmp` need the build checks (formats/build.md §10);
/// `--json` gives the same rows.
#[test]
fn plan_lists_the_tables_build_takes() {
    use xqtb::builder::{build, estimate, BuildOptions};
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions::new(dir.path());
    let before = estimate("KRKAB".parse().unwrap(), &opts).unwrap();
    assert!(before.iter().all(|t| !t.present && t.resident));
    let reports = build("KRKAB".parse().unwrap(), &opts, &xqtb::retro::Silent).unwrap();
    let built: Vec<_> = reports.iter().map(|r| (r.material, r.entries)).collect();
    let planned: Vec<_> = before
        .iter()
        .map(|t| (t.target.material, t.entries))
        .collect();
    assert_eq!(planned, built);
    for t in &before {
        let n = xqtb::Indexer::new(t.target.material).unwrap().size();
        assert_eq!((t.entries, t.tmp_bytes), (n, 8 * n));
    }
    let after = estimate("KRKAB".parse().unwrap(), &opts).unwrap();
    assert!(after.iter().all(|t| t.present));
    // At the smallest budget the largest table streams. (Without a rule stage: under the
    // Asian rules KRNKAABB's supporting KRNKABB needs more than 64 MiB for its rule bitmaps,
    // and frontier lists are for builds without a rule stage.)
    let none = xqtb::fang::Rules::None;
    let small = BuildOptions {
        memory: 64 << 20,
        rules: none,
        ..BuildOptions::new(dir.path())
    };
    let big = estimate("KRNKAABB".parse().unwrap(), &small).unwrap();
    assert!(!big.last().unwrap().resident);
    // It keeps its unresolved filter and frontier bitmaps there, with shorter chunks
    // (formats/build.md §9); at tighter budgets the filter beside frontier lists.
    let last = big.last().unwrap();
    assert!(last.unresolved_filter && !last.frontier_lists);
    let at = |mib: u64| {
        let opts = BuildOptions {
            memory: mib << 20,
            rules: none,
            ..BuildOptions::new(dir.path())
        };
        let t = estimate("KRNKAABB".parse().unwrap(), &opts).unwrap();
        let t = t.last().unwrap();
        (t.unresolved_filter, t.frontier_lists)
    };
    assert_eq!(at(56), (true, true));
    assert_eq!(at(40), (true, true));
    let json = xqtb(&["plan", "KRKAB", "--dir", dir_str(dir.path()), "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(rows.len(), after.len());
    assert_eq!(rows.last().unwrap()["material"], "KRKAB");
    assert_eq!(rows.last().unwrap()["present"], true);
    assert_eq!(rows.last().unwrap()["unresolved_filter"], true);
    assert_eq!(rows.last().unwrap()["frontier_lists"], false);
    let text = xqtb(&["plan", "KRKAB", "--dir", dir_str(dir.path())]);
    assert!(text.contains("0 of 8 tables to build"), "{text}");
    // Under the Asian rules, at its least budget the record table keeps frontier lists and
    // computes its patterns in slices (their bitmaps do not fit); with room for them, it does
    // not. (Its candidates take a sixteenth of a byte an entry there: 3856 MiB in all.)
    let record = |budget: &str| {
        let json = xqtb(&[
            "plan",
            "KCPAABBKAABB",
            "--dir",
            dir_str(dir.path()),
            "--memory",
            budget,
            "--json",
        ]);
        let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
        let last = rows.last().unwrap();
        (
            last["pattern_slices"].clone(),
            last["frontier_lists"].clone(),
        )
    };
    assert_eq!(record("3856M"), (true.into(), true.into()));
    assert_eq!(record("10007M"), (true.into(), false.into()));
    assert_eq!(record("23G"), (false.into(), false.into()));
}

/// Several materials and a set (`formats/plan.md`): `plan --json` lists every table once, each
/// after the tables its `depends` names, and `build` with the same arguments builds exactly
/// those tables, each once, byte-identical to a build of one material at a time.
#[test]
fn sets_plan_and_build_every_table_once() {
    let args = ["KRKN", "all(attackers<=2,per-side<=1,defenders<=0)"];
    let dir = tempfile::tempdir().unwrap();
    let d = dir_str(dir.path());
    let json = xqtb(&[&["plan"][..], &args, &["--dir", d, "--json"]].concat());
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["material"].as_str().unwrap())
        .collect();
    // 15 tables of the set (counted in `builder::set`'s tests), KRKN among them.
    assert_eq!(names.len(), 15, "{names:?}");
    for (i, r) in rows.iter().enumerate() {
        assert!(!names[..i].contains(&names[i]), "{} twice", names[i]);
        for dep in r["depends"].as_array().unwrap() {
            let dep = dep.as_str().unwrap();
            assert!(
                names[..i].contains(&dep),
                "{} before its dependency {dep}",
                names[i]
            );
        }
    }
    // Every field is documented in formats/plan.md §2's table, and nothing else is.
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/formats/plan.md")).unwrap();
    let section = &doc[doc.find("## 2.").unwrap()..];
    let mut documented: Vec<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .flat_map(|l| {
            let cell = l.split(" |").next().unwrap();
            cell.split(", ")
                .map(|f| f.trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    documented.sort();
    let mut fields: Vec<String> = rows[0].as_object().unwrap().keys().cloned().collect();
    fields.sort();
    assert_eq!(fields, documented);
    let out = xqtb(&[&["build"][..], &args, &["--dir", d, "--quiet"]].concat());
    let built: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(built, names, "{out}");
    let one = tempfile::tempdir().unwrap();
    for m in ["KPKP", "KRKN"] {
        xqtb(&["build", m, "--dir", dir_str(one.path()), "--quiet"]);
        let file = format!("{m}.xqtb");
        assert_eq!(
            std::fs::read(dir.path().join(&file)).unwrap(),
            std::fs::read(one.path().join(&file)).unwrap(),
            "{m}"
        );
    }
    let err = command()
        .args(["build", "KRKN", "KRKP", "--partial", "--dir", d])
        .output()
        .unwrap();
    assert!(!err.status.success());
    assert!(String::from_utf8_lossy(&err.stderr).contains("--partial builds one table"));
}

/// `job_memory_bytes` (`formats/plan.md` §2) is the least budget, a quarter more, under which a
/// table is planned resident: a plan at that budget keeps it resident, one at the budget below
/// the bisection's step does not (unless the floor of 64 MiB does); never above the budget asked.
#[test]
fn job_memory_is_the_least_budget_that_keeps_the_plan() {
    let d = tempfile::tempdir().unwrap();
    // The plan of `m` alone: a budget that keeps `m` resident may be too small for a larger
    // table's rule stage.
    let rows = |m: &str, memory: u64| -> Vec<serde_json::Value> {
        let out = command()
            .args([
                "plan",
                m,
                "--json",
                "--memory",
                &memory.to_string(),
                "--dir",
            ])
            .arg(d.path())
            .output()
            .unwrap();
        crate::common::assert_ok("plan", &out);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let budget = 8u64 << 30;
    let by_name = |rows: &[serde_json::Value], m: &str| {
        rows.iter().find(|r| r["material"] == m).cloned().unwrap()
    };
    let plan = rows("KRNKAABB", budget);
    for m in ["KRNK", "KRNKAB", "KRNKAABB"] {
        let row = by_name(&plan, m);
        assert_eq!(row["resident"], true, "{m}");
        let job = row["job_memory_bytes"].as_u64().unwrap();
        assert!((64 << 20..=budget).contains(&job), "{m}: {job}");
        assert_eq!(by_name(&rows(m, job), m)["resident"], true, "{m} at {job}");
        let least = job * 4 / 5;
        if least > 80 << 20 {
            let below = least - (2 << 20);
            assert_eq!(
                by_name(&rows(m, below), m)["resident"],
                false,
                "{m} at {below}"
            );
        }
    }
}
