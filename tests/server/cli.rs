//! The command line: output shapes the later issues' tooling reads, and clear errors.

use crate::common::xqtb as command;
use std::process::Output;

fn xqtb(args: &[&str]) -> Output {
    command().args(args).output().expect("run xqtb")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = xqtb(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn moves_plain_and_json() {
    // Red king f2, horse e4; Black king e9, advisor e8 (the query system's KNKA example).
    let out = xqtb(&["moves", "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w"]);
    assert!(out.status.success());
    let mut plain: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    plain.sort();
    // By hand: king f2→f1, f2→e2 (the advisor on e8 screens the file); horse e4 to c3 c5 d2 d6
    // f6 g3 g5 (its eighth point, f2, holds its own king).
    let mut want = vec![
        "f2f1", "f2e2", "e4c3", "e4c5", "e4d2", "e4d6", "e4f6", "e4g3", "e4g5",
    ];
    want.sort();
    assert_eq!(plain, want);
    let v = json(&["moves", "--json", "4K44B49994n495k399"]);
    assert_eq!(v["fen"], "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1");
    assert_eq!(v["moves"].as_array().unwrap().len(), 9);
}

#[test]
fn perft_json() {
    let v = json(&["perft", "3", "--json"]);
    assert_eq!(v, serde_json::json!({"depth": 3, "nodes": 79666}));
    let v = json(&[
        "perft",
        "2",
        "--json",
        "--fen",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
    ]);
    assert_eq!(v["nodes"], 1128);
}

#[test]
fn perft_divide_sums_to_the_published_count() {
    let v = json(&["perft", "3", "--divide", "--json"]);
    let divide = v["divide"].as_object().unwrap();
    assert_eq!(divide.len(), 44);
    assert_eq!(
        divide.values().map(|n| n.as_u64().unwrap()).sum::<u64>(),
        79666
    );
    assert_eq!(v["nodes"], 79666);
}

#[test]
fn index_json() {
    let v = json(&["index", "KRK", "--json"]);
    assert_eq!(v["material"], "KRK");
    assert_eq!(v["sides"]["w"]["index_size"], 4050);
    assert_eq!(v["sides"]["w"]["legal"], 3834);
    assert_eq!(v["sides"]["b"]["legal"], 4914);
    // The colour-flipped twin: Red to move in KKR is Black to move in KRK.
    let twin = json(&["index", "KKR", "--json"]);
    assert_eq!(twin["sides"]["w"]["index_size"], 4050);
    assert_eq!(twin["sides"]["w"]["legal"], 4914);
    assert_eq!(twin["sides"]["b"]["legal"], 3834);
    assert_eq!(twin["table"], "KRK");
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, needle) in [
        (vec!["moves", "4k4/9/9/9/9/9/9/9/9/3K6 w"], "rank 0"),
        (vec!["moves", "4k4/9/9/9/9/9/9/9/9/4K4 w"], "in check"),
        (
            vec!["perft", "2", "--fen", "4k4/9/9/9/9/9/9/9/9/2K6 w"],
            "c0",
        ),
        (vec!["index", "KRXK"], "unknown piece letter"),
        (vec!["index", "KRRRK"], "rook"),
        (
            vec!["perft", "20000", "--fen", "4k4/9/9/9/9/9/9/9/9/3K5 w"],
            "at most 64",
        ),
    ] {
        let out = xqtb(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn show_prints_both_notations() {
    let v = json(&["show", "--json", "4K44B49994n495k399"]);
    assert_eq!(v["fen"], "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1");
    assert_eq!(v["qstring"], "4K44B49994n495k399");
    assert_eq!(v["material"], "KNKA");
    // The stalemate of tests/rules/move_generation.rs: Black to move, no move, not in check.
    let v = json(&["show", "--json", "3k5/R8/9/9/9/9/9/9/9/4K4 b"]);
    assert_eq!(
        (
            v["moves"].as_u64(),
            v["check"].as_bool(),
            v["turn"].as_str()
        ),
        (Some(0), Some(false), Some("b"))
    );
    let text = String::from_utf8(xqtb(&["show", "3k5/R8/9/9/9/9/9/9/9/4K4 b"]).stdout).unwrap();
    assert!(text.contains("stalemated"), "{text}");
}

/// A reader that stops early (`| head -1`) is not an error.
#[test]
fn closed_stdout_is_not_an_error() {
    use std::process::Stdio;
    let mut child = command()
        .args(["perft", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // close the read end before xqtb writes
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
