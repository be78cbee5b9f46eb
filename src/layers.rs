//! The layers of `docs/architecture.md`, checked on the source: which modules a layer's files
//! name, and no two modules of one directory naming each other.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The Rust files under `dir` (relative to `src/`), recursively.
fn files(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    if root.is_file() {
        return vec![root];
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// The code of a file without its comments (doc links may name any layer).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths `prefix…` a file's code names, up to the next non-identifier character.
fn named(code: &str, prefix: &str) -> BTreeSet<String> {
    code.match_indices(prefix)
        .map(|(at, _)| {
            let rest = &code[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches(':').to_string()
        })
        .collect()
}

#[test]
fn each_layer_names_only_the_layers_below_it() {
    let rules: [(&str, &[&str]); 6] = [
        ("fang", &["retro", "builder", "verify", "query", "server"]),
        ("retro", &["builder", "verify", "query", "server"]),
        ("builder", &["verify", "query", "server"]),
        (
            "verify",
            &[
                "builder",
                "retro::pattern",
                "retro::orders",
                "retro::candidates",
                "retro::RuleState",
                "query",
                "server",
            ],
        ),
        (
            "query.rs",
            &["builder", "verify", "retro", "fang", "server"],
        ),
        ("server", &["builder", "verify", "retro", "fang"]),
    ];
    let mut wrong = Vec::new();
    for (layer, never) in rules {
        for f in files(layer) {
            for path in named(&code(&f), "crate::") {
                if never
                    .iter()
                    .any(|n| path == *n || path.starts_with(&format!("{n}::")))
                {
                    wrong.push(format!("{} names crate::{path}", f.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn no_two_modules_of_a_directory_name_each_other() {
    for dir in ["builder", "retro", "fang", "verify", "server", "cli"] {
        let mut edges = BTreeSet::new();
        for f in files(dir) {
            let me = f.file_stem().unwrap().to_string_lossy().to_string();
            for path in named(&code(&f), "super::") {
                let other = path.split("::").next().unwrap_or("").to_string();
                if !other.is_empty() && other != me {
                    edges.insert((me.clone(), other));
                }
            }
        }
        let loops: Vec<_> = edges
            .iter()
            .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
            .collect();
        assert!(
            loops.is_empty(),
            "{dir}: modules naming each other: {loops:?}"
        );
    }
}

/// The checks above see what they look for (they could not fail otherwise).
#[test]
fn the_checks_see_names_in_code_not_in_comments() {
    let f = std::env::temp_dir().join(format!("xqtb-layers-{}.rs", std::process::id()));
    std::fs::write(
        &f,
        "// crate::server::x\nuse crate::builder::work::{Work};\n",
    )
    .unwrap();
    let got = named(&code(&f), "crate::");
    std::fs::remove_file(&f).unwrap();
    assert_eq!(got, BTreeSet::from(["builder::work".to_string()]));
}
