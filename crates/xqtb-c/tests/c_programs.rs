//! The C programs of `examples/c/`, compiled with the system C compiler (`cc`, or `$CC`) against
//! the library cargo built for this test, and checked against `xqtb probe --json`, the command
//! line's answers (an implementation of its own of values, best moves and distances to mate):
//! `probe.c` line by line on hundreds of positions, `threads.c` with 8 threads sharing one
//! handle, and the status names and messages of failures as a C program prints them.
//! Without a C compiler the tests are skipped with a notice, unless `CI=true`: then they fail.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::OnceLock;
use xqtb_core::{to_fen, Color, Indexer, Tablebase, Value};

/// Where this test's cargo profile put things (`target/debug`, or `target/release` under
/// `--release`): the test runs as `<profile>/deps/c_programs-<hash>`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_owned()
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The C compiler and its leading arguments (`$CC` may be `ccache gcc`), or None, with a
/// notice, if there is none (a failure under CI=true).
fn c_compiler() -> Option<Vec<String>> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let words: Vec<String> = cc.split_whitespace().map(String::from).collect();
    let found = words.first().is_some_and(|program| {
        Command::new(program)
            .args(&words[1..])
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found {
        return Some(words);
    }
    assert!(
        !in_ci(),
        "no C compiler ({cc:?}): CI must test the C programs"
    );
    eprintln!("notice: no C compiler ({cc:?}): the C programs are not tested");
    None
}

/// The C programs, compiled once into a temporary directory (None without a C compiler).
///
/// They link the static library of the crate under test from `<profile>/deps/libxqtb_c.a`:
/// rustc makes it in the same invocation as the rlib this test links (the lib target is
/// compiled once for all its crate types), so it is this very code on a clean clone or after
/// any edit, with no nested cargo build and no search for a shared library at run time. (cargo
/// copies it up to `<profile>/` only for `cargo build`.)
fn programs() -> Option<&'static Path> {
    static DIR: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let cc = c_compiler()?;
        let lib = profile_dir().join("deps").join("libxqtb_c.a");
        assert!(lib.exists(), "{} is missing", lib.display());
        let out = tempfile::tempdir().unwrap();
        for name in ["probe", "threads"] {
            compile(&cc, name, &lib, &out.path().join(name));
        }
        Some(out)
    });
    dir.as_ref().map(|d| d.path())
}

fn compile(cc: &[String], name: &str, lib: &Path, exe: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = root.join("../../examples/c").join(format!("{name}.c"));
    let out = Command::new(&cc[0])
        .args(&cc[1..])
        .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-pthread", "-I"])
        .arg(root.join("include"))
        .arg(&source)
        .arg(lib)
        // What rustc names for a static library on Linux (`--print native-static-libs`).
        .args(["-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-o"])
        .arg(exe)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed to compile:\n{stderr}",
        source.display()
    );
    // Warnings are shown, not fatal: another compiler's version may warn of other things.
    eprint!("{stderr}");
}

/// The command line `xqtb`, whose `probe --json` is the reference. `cargo test` at the
/// workspace root builds it beside this test (the top package is a default member with
/// integration tests); a run of this package alone does not, so it is built then, in this
/// test's profile, if it is not there (one there is used as it is: after changing the command
/// line, test at the root). Under CI=true, a missing binary means the tests were not run as CI
/// runs them, and is a failure.
fn xqtb() -> &'static Path {
    static XQTB: OnceLock<PathBuf> = OnceLock::new();
    XQTB.get_or_init(|| {
        let profile = profile_dir();
        let exe = profile.join(format!("xqtb{}", std::env::consts::EXE_SUFFIX));
        if !exe.exists() {
            assert!(
                !in_ci(),
                "{} is missing: CI runs `cargo test --locked` at the workspace root, which builds it",
                exe.display()
            );
            let mut cargo = Command::new(env!("CARGO"));
            cargo.args(["build", "--locked", "-p", "xqtb", "--bin", "xqtb", "--target-dir"]);
            cargo.arg(profile.parent().unwrap());
            if profile.ends_with("release") {
                cargo.arg("--release");
            } else {
                cargo.args(["--profile", "test"]);
            }
            assert!(cargo.status().unwrap().success(), "cannot build {}", exe.display());
        }
        exe
    })
}

/// KNKA and KRKN with their supporting tables, DTC and DTM: wins, draws and losses, captures,
/// mates, and KRKN's order 1 (perpetual check and chase rulings).
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let mut opts = builder::builder::BuildOptions::new(d.path());
        opts.metrics = builder::builder::Metrics::Both;
        for material in ["KNKA", "KRKN"] {
            builder::builder::build(material.parse().unwrap(), &opts, &builder::Silent).unwrap();
        }
        d
    })
    .path()
}

/// KRK alone, without DTM tables.
fn dtc_only() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let opts = builder::builder::BuildOptions::new(d.path());
        builder::builder::build("KRK".parse().unwrap(), &opts, &builder::Silent).unwrap();
        d
    })
    .path()
}

/// Every `step`-th index's legal positions of `material` (both sides to move), and the first
/// `rare` draws, or positions at an order above 0 or at distance 0, among every 7th index:
/// these are few, and end principal lines in rulings and mates. (The Rust API only picks them;
/// the command line checks them.)
fn sample(dir: &Path, material: &str, step: u64, rare: usize) -> Vec<String> {
    let ix = Indexer::new(material.parse().unwrap()).unwrap();
    let tb = Tablebase::open(dir).unwrap();
    let (mut fens, mut rare_found) = (Vec::new(), 0);
    for i in 0..ix.size() {
        for side in Color::ALL {
            if i % step != 0 && (i % 7 != 0 || rare_found == rare) {
                continue;
            }
            let Some(pos) = ix.decode(i, side).filter(|p| !p.opponent_in_check()) else {
                continue;
            };
            let is_rare = rare_found < rare
                && match tb.probe_dtc(&pos).unwrap() {
                    Value::Decided { order, distance } => order > 0 || distance == 0,
                    Value::Draw => true,
                };
            rare_found += usize::from(is_rare);
            if i % step == 0 || is_rare {
                fens.push(to_fen(&pos));
            }
        }
    }
    fens
}

/// Runs a C program with `args` and `input` on stdin.
fn run(program: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // Written from a thread: the program's output could fill its pipe before it read all this.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

#[test]
fn probe_prints_what_the_command_line_does() {
    let Some(programs) = programs() else { return };
    let mut seen = Coverage::default();
    for (dir, materials) in [
        (tables(), &[("KNKA", 120, 30), ("KRKN", 2400, 60)][..]),
        (dtc_only(), &[("KRK", 60, 20)][..]),
    ] {
        let fens: Vec<String> = materials
            .iter()
            .flat_map(|&(m, step, rare)| sample(dir, m, step, rare))
            .collect();
        let dir_arg = dir.to_str().unwrap();
        let out = run(
            &programs.join("probe"),
            &[dir_arg],
            &(fens.join("\n") + "\n"),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let lines: Vec<&str> = text(&out.stdout).lines().collect();
        assert_eq!(lines.len(), fens.len());
        let mut cli = Cli::start(dir);
        for (fen, line) in fens.iter().zip(lines) {
            check_line(&mut cli, fen, line, &mut seen);
        }
    }
    eprintln!("{seen:?}");
    seen.assert_complete();
}

/// What the checked positions held: each kind must occur, or the test would check little.
#[derive(Debug, Default)]
struct Coverage {
    positions: usize,
    results: HashMap<String, usize>,
    orders_above_0: usize,
    ends: HashMap<&'static str, usize>,
    dtm_levels: usize,
    without_dtm: usize,
}

impl Coverage {
    fn assert_complete(&self) {
        assert!(self.positions >= 500, "{self:?}");
        for result in ["win", "draw", "loss"] {
            assert!(self.results.get(result) > Some(&0), "no {result}: {self:?}");
        }
        for end in ["capture", "mate", "ruling", "draw"] {
            assert!(
                self.ends.get(end) > Some(&0),
                "no line ends in a {end}: {self:?}"
            );
        }
        assert!(
            self.orders_above_0 > 0 && self.dtm_levels > 0 && self.without_dtm > 0,
            "{self:?}"
        );
    }
}

/// Checks probe.c's line for `fen` against the command line's answer, field by field.
fn check_line(cli: &mut Cli, fen: &str, line: &str, seen: &mut Coverage) {
    let fields: HashMap<&str, &str> = line
        .split('\t')
        .map(|f| {
            f.split_once('=')
                .unwrap_or_else(|| panic!("no key=value: {line}"))
        })
        .collect();
    let want = cli.probe(fen);
    let expected = [
        ("fen", fen.to_owned()),
        ("result", want["result"].str().to_owned()),
        ("order", number(&want["order"])),
        ("distance", number(&want["distance"])),
        ("best", best_moves(&want).join(",")),
        ("dtm", dtm(&want)),
    ];
    for (key, value) in &expected {
        let got = fields
            .get(key)
            .unwrap_or_else(|| panic!("no {key}: {line}"));
        // probe.c lists the best moves in move order, the command line best first.
        let got = if *key == "best" {
            sorted(got)
        } else {
            got.to_string()
        };
        assert_eq!(&got, value, "{key} of {fen}: {line}");
    }
    assert_eq!(
        fields.len(),
        expected.len() + 1,
        "other fields than fen..dtm, line: {line}"
    );
    let moves: Vec<&str> = match fields["line"] {
        "-" => Vec::new(),
        moves => moves.split(',').collect(),
    };
    let end = check_principal_line(cli, &want, &moves);
    seen.positions += 1;
    *seen.results.entry(fields["result"].to_owned()).or_default() += 1;
    *seen.ends.entry(end).or_default() += 1;
    seen.orders_above_0 += usize::from(want["order"].int().is_some_and(|o| o > 0));
    seen.dtm_levels += usize::from(fields["dtm"].contains(':'));
    seen.without_dtm += usize::from(want.get("dtm").is_none());
}

/// A number as probe.c prints it: `-` for null.
fn number(v: &Json) -> String {
    v.int().map_or("-".into(), |n| n.to_string())
}

/// The best moves, sorted (`-` for none).
fn best_moves(answer: &Json) -> Vec<String> {
    let mut best: Vec<String> = answer["moves"]
        .array()
        .iter()
        .filter(|m| m["best"] == Json::Bool(true))
        .map(|m| m["move"].str().to_owned())
        .collect();
    best.sort();
    if best.is_empty() {
        best.push("-".into());
    }
    best
}

fn sorted(list: &str) -> String {
    let mut moves: Vec<&str> = list.split(',').collect();
    moves.sort_unstable();
    moves.join(",")
}

/// The distance to mate as probe.c prints it: `-` without a DTM table or for a draw, else the
/// plies and, for a ruling's level, its phases after a colon.
fn dtm(answer: &Json) -> String {
    let Some(dtm) = answer.get("dtm") else {
        return "-".into();
    };
    let phases: Vec<String> = match &dtm["level"] {
        Json::Array(level) => level.iter().map(number).collect(),
        _ => Vec::new(),
    };
    match (number(&dtm["distance"]), phases.is_empty()) {
        (plies, true) => plies,
        (plies, false) => format!("{plies}:{}", phases.join(",")),
    }
}

/// Checks `moves` is the principal line of the position `start` as `Tablebase::principal_line`
/// defines it, from the command line's answers: from each position the first best move (the
/// smallest by from-point, then to-point), the distance running down by one each ply, until a
/// capture, a position without a legal move (mate, or stalemate, which loses), or distance 0 at
/// an order above 0 (where the loser has nothing left but a perpetual check or chase). How it
/// ends: "capture", "mate", "ruling", or "draw" for a drawn start, whose line is empty.
fn check_principal_line(cli: &mut Cli, start: &Json, moves: &[&str]) -> &'static str {
    let fen = start["fen"].str();
    let Some(first_distance) = start["distance"].int() else {
        assert!(moves.is_empty(), "{fen}: {moves:?} from a draw");
        return "draw";
    };
    let mut position = start.clone();
    for (k, &mv) in moves.iter().enumerate() {
        let distance = position["distance"].int();
        assert_eq!(
            distance,
            Some(first_distance - k as i64),
            "{fen}: ply {k} of {moves:?}"
        );
        let ruling = position["order"].int() > Some(0) && distance == Some(0);
        assert!(
            !ruling,
            "{fen}: {moves:?} goes on after a ruling at ply {k}"
        );
        let best = first_best(&position)
            .unwrap_or_else(|| panic!("{fen}: {moves:?} goes on after mate at ply {k}"));
        assert_eq!(best["move"].str(), mv, "{fen}: ply {k} of {moves:?}");
        if best["capture"] == Json::Bool(true) {
            assert_eq!(
                k + 1,
                moves.len(),
                "{fen}: {moves:?} goes on after a capture"
            );
            // A capture is best only as a win at once, or as the only way to lose at once.
            assert!(distance <= Some(1), "{fen}: {moves:?}");
            return "capture";
        }
        position = cli.probe(best["fen"].str());
    }
    let stop = (position["order"].int(), position["distance"].int());
    match stop {
        (_, Some(0)) if position["moves"].array().is_empty() => "mate",
        (Some(order), Some(0)) if order > 0 => "ruling",
        _ => panic!("{fen}: {moves:?} stops at {}", position["fen"].str()),
    }
}

/// The first of a position's best moves by `Move`'s order: from-point, then to-point, each
/// numbered `rank * 9 + file`.
fn first_best(position: &Json) -> Option<&Json> {
    let point = |p: &[u8]| u32::from(p[1] - b'0') * 9 + u32::from(p[0] - b'a');
    position["moves"]
        .array()
        .iter()
        .filter(|m| m["best"] == Json::Bool(true))
        .min_by_key(|m| {
            let mv = m["move"].str().as_bytes();
            (point(&mv[..2]), point(&mv[2..]))
        })
}

/// `xqtb probe --dir <dir> --json -`, asked one FEN at a time (it answers each line at once);
/// answers are kept, as principal lines of nearby positions meet.
struct Cli {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    answers: HashMap<String, Json>,
}

impl Cli {
    fn start(dir: &Path) -> Cli {
        let mut child = Command::new(xqtb())
            .args(["probe", "--json", "--dir"])
            .arg(dir)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        Cli {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            answers: HashMap::new(),
        }
    }

    fn probe(&mut self, fen: &str) -> Json {
        if let Some(answer) = self.answers.get(fen) {
            return answer.clone();
        }
        writeln!(self.stdin, "{fen}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let answer = Json::parse(&line);
        assert!(answer.get("error").is_none(), "xqtb probe {fen}: {line}");
        self.answers.insert(fen.to_owned(), answer.clone());
        answer
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn eight_threads_sharing_a_handle_answer_as_one() {
    let Some(programs) = programs() else { return };
    let mut fens = sample(tables(), "KNKA", 100, 0);
    fens.extend(sample(tables(), "KRKN", 1500, 20));
    // Failures come back the same too, with each thread's own message.
    fens.extend(["not a fen".into(), "4k4/9/9/9/9/4R4/9/5K3/9/9 w".into()]);
    fens.push("3k5/9/9/9/9/9/9/9/9/4K1C2 w".into());
    let dir = tables().to_str().unwrap();
    let out = run(
        &programs.join("threads"),
        &[dir, "-", "8", "10"],
        &(fens.join("\n") + "\n"),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "8 threads x 10 rounds x {} positions: 0 mismatches",
            fens.len()
        )),
        "{stdout}"
    );
}

#[test]
fn failures_print_their_status_name_and_message() {
    let Some(programs) = programs() else { return };
    let probe = programs.join("probe");
    let knka = "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w";
    let krk = "3k5/9/9/9/9/9/9/9/9/4K1R2 w";
    let missing = dtc_only().join("no-such-directory");
    let cases: [(&Path, &str, &[&str]); 3] = [
        (&missing, knka, &["XQTB_ERR_IO", "no-such-directory"]),
        (
            dtc_only(),
            "4k4/4a4/9/9/9/4N5/9/5K3/9/9 w",
            &["XQTB_ERR_POSITION", "bad FEN", "4N5"],
        ),
        (dtc_only(), knka, &["XQTB_ERR_MISSING_TABLE", "KNKA.xqtb"]),
    ];
    for (dir, fen, words) in cases {
        // The position that fails between two that do not: they are still answered.
        let out = run(&probe, &[dir.to_str().unwrap(), krk, fen, krk], "");
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{fen}: {stdout}{stderr}");
        for word in words {
            assert!(stderr.contains(word), "{fen}: no {word:?} in {stderr:?}");
        }
        let answered = if dir == missing { 0 } else { 2 };
        assert_eq!(stdout.lines().count(), answered, "{stdout}");
        assert!(
            stdout
                .lines()
                .all(|l| l.starts_with(&format!("fen={krk}\t"))),
            "{stdout}"
        );
    }
}

/// Just enough JSON for `xqtb probe --json`'s lines (this crate has no JSON dependency).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Json {
        let mut p = Parser {
            s: text.trim_end().as_bytes(),
            at: 0,
        };
        let v = p.value();
        assert_eq!(p.at, p.s.len(), "JSON with more after it: {text}");
        v
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> &str {
        match self {
            Json::String(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            Json::Number(n) => Some(*n as i64),
            _ => None,
        }
    }

    fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            other => panic!("not an array: {other:?}"),
        }
    }
}

impl std::ops::Index<&str> for Json {
    type Output = Json;

    /// A field, `Null` if absent.
    fn index(&self, key: &str) -> &Json {
        self.get(key).unwrap_or(&Json::Null)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&mut self) -> u8 {
        while self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        self.s[self.at]
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == byte;
        self.at += usize::from(found);
        found
    }

    fn value(&mut self) -> Json {
        match self.peek() {
            b'{' => Json::Object(self.items(b'}', |p| {
                let key = p.string();
                assert!(p.eat(b':'), "no colon at {}", p.at);
                (key, p.value())
            })),
            b'[' => Json::Array(self.items(b']', Parser::value)),
            b'"' => Json::String(self.string()),
            _ => self.word(),
        }
    }

    /// The items of an object or array, from its opening bracket to `close`.
    fn items<T>(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> T) -> Vec<T> {
        self.at += 1;
        let mut items = Vec::new();
        while !self.eat(close) {
            if !items.is_empty() {
                assert!(self.eat(b','), "no comma at {}", self.at);
            }
            items.push(item(self));
        }
        items
    }

    fn string(&mut self) -> String {
        assert!(self.eat(b'"'), "no string at {}", self.at);
        let mut out = Vec::new();
        loop {
            let byte = self.s[self.at];
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).unwrap(),
                b'\\' => {
                    let escaped = self.s[self.at];
                    self.at += 1;
                    let c = match escaped {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        // serde_json escapes only control characters this way.
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.at..self.at + 4]).unwrap();
                            self.at += 4;
                            char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap()
                        }
                        other => other as char,
                    };
                    out.extend(c.encode_utf8(&mut [0; 4]).bytes());
                }
                _ => out.push(byte),
            }
        }
    }

    /// `null`, `true`, `false` or a number.
    fn word(&mut self) -> Json {
        let start = self.at;
        while self.at < self.s.len() && !b",]} \n".contains(&self.s[self.at]) {
            self.at += 1;
        }
        match std::str::from_utf8(&self.s[start..self.at]).unwrap() {
            "null" => Json::Null,
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            number => Json::Number(
                number
                    .parse()
                    .unwrap_or_else(|_| panic!("not JSON: {number}")),
            ),
        }
    }
}
