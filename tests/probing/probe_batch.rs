//! `xqtb probe -` (batch) beyond `tests/build/faults.rs` (which checks that each answer comes
//! while stdin is still open): the text of each error line, CRLF and a last line without newline,
//! the classic position string, and the text (non-JSON) batch.

use crate::common::{built, xqtb};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

fn batch(dir: &Path, json: bool) -> std::process::Child {
    let mut cmd = xqtb();
    cmd.args(["probe", "--dir"]).arg(dir).arg("-");
    if json {
        cmd.arg("--json");
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xqtb probe")
}

const EXAMPLE: &str = "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1";

#[test]
fn json_batch_names_each_bad_line_and_reads_every_form() {
    let dir = built(&["KNKA"]);
    let mut child = batch(dir.path(), true);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(format!("{EXAMPLE}\n").as_bytes()).unwrap();
    // Then: a non-UTF-8 line, blank lines, a bad position, a classic string with CRLF, and
    // one without a final newline.
    stdin
        .write_all(b"4k4/4a4/9/9/9/4N4/9/5K3/9/9 \xff\xfe w\n")
        .unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.write_all(b"   \n").unwrap();
    stdin.write_all(b"4k4/9/9 w\n").unwrap();
    stdin.write_all(b"4K44B49994n495k399\r\n").unwrap();
    stdin.write_all(b"4K44B49994n495k3990").unwrap(); // no final newline
    drop(stdin);
    let rest: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).expect("every output line is JSON"))
        .collect();
    let status = child.wait().unwrap();
    assert!(status.success(), "JSON batch exits 0 even with bad lines");
    assert_eq!(rest.len(), 7, "one output line per input line: {rest:?}");
    assert_eq!(rest[0]["fen"], EXAMPLE);
    assert_eq!(rest[0]["result"], "win");
    let rest = &rest[1..];

    assert_eq!(
        rest[0]["fen"], "4k4/4a4/9/9/9/4N4/9/5K3/9/9 \u{fffd}\u{fffd} w",
        "lossy text of the line"
    );
    assert!(rest[0]["error"].as_str().unwrap().contains("UTF-8"));
    for blank in &rest[1..3] {
        assert!(blank["error"].as_str().unwrap().contains("empty line"));
    }
    assert_eq!(rest[3]["fen"], "4k4/9/9 w");
    assert!(rest[3]["error"]
        .as_str()
        .unwrap()
        .contains("3 ranks, expected 10"));
    assert_eq!(rest[4]["fen"], EXAMPLE);
    assert!(rest[4].get("error").is_none());
    assert_eq!(rest[5]["fen"], "4k4/4a4/9/9/9/4N4/9/5K3/9/9 b - - 0 1");
    assert!(rest[5].get("error").is_none());
}

#[test]
fn text_batch_keeps_lines_aligned_too() {
    let dir = built(&["KNKA"]);
    let mut child = batch(dir.path(), false);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\n\xff\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].contains("empty line"));
    assert!(lines[1].starts_with('\u{fffd}') && lines[1].contains("UTF-8"));
    assert!(
        !out.status.success(),
        "text batch reports failures in its exit code"
    );
}
