//! Distance to mate in the API and on the query page: `/api/probe` carries `dtm` where the DTM
//! tables are (and nothing changes where they are not), formats/api.md's DTM examples are the
//! real answers, and the page shows DTM beside DTC, with a metric switch, in a real browser
//! (skipped as `query_page` is without one). Screenshots go to
//! `target/tmp/browser-screenshots/dtm-*.png`.

use crate::common::{assert_ok, build_cmd, probe_batch, xqtb};
use crate::support::{enc, get, Server};
use crate::webdriver::{self, Browser};
use serde_json::{json, Value};
use std::cmp::Ordering;
use std::path::Path;
use xqtb::{to_fen, Color, Indexer};

/// KNKA's longest mate (37 plies; 29 to conversion).
const LONGEST: &str = "9/9/4ka3/9/9/9/9/9/9/5K2N w";
/// KNKA: DTC's best move takes the advisor (c9d7, conversion in 1), DTM's mates in 7 (d0e0).
const SPLIT: &str = "2N6/9/3a1k3/9/9/9/9/9/9/3K5 w";
/// KRKN: Red wins at DTM level (1) in 1 ply.
const LEVEL: &str = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w";

/// `materials` (and their supporting tables) built with `--metric both` into a new directory.
fn built_both(materials: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for m in materials {
        let out = build_cmd(m, dir.path(), &["--metric", "both", "--quiet"])
            .output()
            .unwrap();
        assert_ok(&format!("xqtb build {m} --metric both"), &out);
    }
    dir
}

/// A new directory with the DTC tables (`*.xqtb`) of `from` only.
fn dtc_only(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "xqtb") {
            std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn url_fen(fen: &str) -> String {
    fen.replace(' ', "_")
}

/// Legal positions spread over KNKA's index, both sides to move.
fn sample_knka(n: u64) -> Vec<String> {
    let ix = Indexer::new("KNKA".parse().unwrap()).unwrap();
    let mut out = Vec::new();
    for turn in Color::ALL {
        let step = (ix.size() / n).max(1);
        for i in (0..ix.size()).step_by(step as usize) {
            if let Some(p) = ix.decode(i, turn).filter(|p| !p.opponent_in_check()) {
                out.push(to_fen(&p));
            }
        }
    }
    out
}

/// The answer without its `dtm` fields.
fn without_dtm(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("dtm");
    for m in v["moves"].as_array_mut().unwrap() {
        m.as_object_mut().unwrap().remove("dtm");
    }
    v
}

fn moves_of(v: &Value) -> &Vec<Value> {
    v["moves"].as_array().unwrap()
}

fn names(ms: &[&Value]) -> Vec<String> {
    ms.iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

/// A move's DTM level key in the mover's table: a capture's child key K' is (0, K').
fn mover_key(m: &Value) -> Vec<u64> {
    let level = m["dtm"]["level"].as_array().unwrap().iter();
    let level = level.map(|x| x.as_u64().unwrap());
    if m["capture"] == true {
        std::iter::once(0).chain(level).collect()
    } else {
        level.collect()
    }
}

fn cmp_key(a: &[u64], b: &[u64]) -> Ordering {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = a.get(i).copied().unwrap_or(0);
            let y = b.get(i).copied().unwrap_or(0);
            x.cmp(&y)
        })
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Definition 9 with level keys for the mover (formats/api.md): wins first, lower key then
/// shorter; draws; losses, higher key then longer. Equal moves compare equal.
fn cmp_dtm(a: &Value, b: &Value) -> Ordering {
    let group = |m: &Value| match m["dtm"]["result"].as_str().unwrap() {
        "loss" => 0, // the mover wins
        "draw" => 1,
        _ => 2,
    };
    let d = |m: &Value| m["dtm"]["distance"].as_u64().unwrap_or(0);
    let (ga, gb) = (group(a), group(b));
    if ga != gb {
        return ga.cmp(&gb);
    }
    match ga {
        0 => cmp_key(&mover_key(a), &mover_key(b)).then(d(a).cmp(&d(b))),
        2 => cmp_key(&mover_key(b), &mover_key(a)).then(d(b).cmp(&d(a))),
        _ => Ordering::Equal,
    }
}

#[test]
fn probe_carries_dtm_only_with_dtm_tables() {
    let both = built_both(&["KNKA"]);
    let dtc = dtc_only(both.path());
    let with = Server::start(both.path());
    let without = Server::start(dtc.path());

    let mut fens = sample_knka(60);
    fens.extend([LONGEST.to_string(), SPLIT.to_string()]);
    let cli = probe_batch(both.path(), &fens);
    let mut seen_best_differ = false;
    for (fen, want) in fens.iter().zip(&cli) {
        let path = format!("/api/probe?fen={}", enc(fen));
        let a = get(&with.url(&path));
        assert_eq!(a.status, 200, "{fen}: {}", a.body);
        let a = a.json();
        assert_eq!(&a, want, "{fen}: the server answers as `xqtb probe --json`");
        let b = get(&without.url(&path));
        assert_eq!(b.status, 200, "{fen}: {}", b.body);
        let b = b.json();
        // Without DTM tables: no `dtm` anywhere, and the rest is the same answer.
        assert!(b.get("dtm").is_none(), "{fen}: {b}");
        assert!(moves_of(&b).iter().all(|m| m.get("dtm").is_none()), "{b}");
        assert_eq!(without_dtm(&a), b, "{fen}: DTM changes no DTC field");
        // With them: the position and every move, W/D/L as DTC's (Theorem 7).
        let d = &a["dtm"];
        assert_eq!(d["result"], a["result"], "{fen}");
        assert!(d.get("best").is_none(), "no best at the top level");
        match d["result"].as_str().unwrap() {
            "draw" => assert!(d["distance"].is_null() && d["level"].is_null(), "{d}"),
            r => {
                let n = d["distance"].as_u64().unwrap();
                assert_eq!(n % 2 == 1, r == "win", "{fen}: odd wins, even losses: {d}");
                assert_eq!(d["level"], json!([]), "KNKA has mates only: {d}");
            }
        }
        let ms = moves_of(&a);
        for m in ms {
            assert_eq!(m["dtm"]["result"], m["result"], "{fen} {}", m["move"]);
            assert!(m["dtm"]["best"].is_boolean(), "{m}");
        }
        // The DTM best moves are the first under Definition 9 with level keys.
        if let Some(first) = ms.iter().min_by(|x, y| cmp_dtm(x, y)) {
            for m in ms {
                let best = cmp_dtm(m, first).is_eq();
                assert_eq!(m["dtm"]["best"] == true, best, "{fen} {}", m["move"]);
            }
        }
        let dtc_best: Vec<_> = ms.iter().filter(|m| m["best"] == true).collect();
        let dtm_best: Vec<_> = ms.iter().filter(|m| m["dtm"]["best"] == true).collect();
        seen_best_differ |= names(&dtc_best) != names(&dtm_best);
    }
    assert!(
        seen_best_differ,
        "some position's best moves differ by metric"
    );

    let a = get(&with.url(&format!("/api/probe?fen={}", url_fen(LONGEST)))).json();
    assert_eq!(
        a["dtm"],
        json!({"result": "win", "distance": 37, "level": []})
    );
    assert_eq!(
        (a["result"].as_str(), a["distance"].as_u64()),
        (Some("win"), Some(29))
    );
    for m in moves_of(&a) {
        assert_eq!(
            m["dtm"],
            json!({"result": "loss", "distance": 36, "level": [], "best": true}),
            "{}",
            m["move"]
        );
    }
    let a = get(&with.url(&format!("/api/probe?fen={}", url_fen(SPLIT)))).json();
    let ms = moves_of(&a);
    let dtc_best: Vec<_> = ms.iter().filter(|m| m["best"] == true).collect();
    let dtm_best: Vec<_> = ms.iter().filter(|m| m["dtm"]["best"] == true).collect();
    assert_eq!(names(&dtc_best), ["c9d7"]);
    assert_eq!(names(&dtm_best), ["d0e0"]);
    assert_eq!(
        a["dtm"],
        json!({"result": "win", "distance": 7, "level": []})
    );
    let b = get(&without.url(&format!("/api/probe?fen={}", url_fen(SPLIT))));
    assert!(!b.body.contains("\"dtm\""), "{}", b.body);

    for s in [with, without] {
        let (ok, log) = s.stop();
        assert!(
            ok && !log.contains("ERROR") && !log.contains("panicked"),
            "{log}"
        );
    }
}

/// Cuts long lists as `scripts/api-examples.sh` does (the first two and `"... N more"`).
fn cut(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if let Value::Array(a) = x {
                    let long = ["moves", "steps", "histogram", "pawn_ranks", "tables"];
                    if a.len() > 3 && long.contains(&k.as_str()) {
                        let more = format!("... {} more", a.len() - 2);
                        a.truncate(2);
                        a.push(Value::String(more));
                    }
                }
                cut(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(cut),
        _ => {}
    }
}

/// The code blocks of formats/api.md's section `heading` (up to the next `## ` heading).
fn doc_blocks(heading: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/formats/api.md"))
        .expect("read formats/api.md");
    let start = doc
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let rest = &doc[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    section
        .split("```\n")
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn api_doc_dtm_examples_are_real() {
    let dir = built_both(&["KNKA", "KRKN"]);
    let server = Server::start(dir.path());

    // `### Distance to mate`: GET examples, each a request line, a status line and JSON.
    let blocks = doc_blocks("### Distance to mate: `dtm`");
    let gets = blocks
        .iter()
        .find(|b| b.starts_with("GET "))
        .expect("a block of GET examples");
    let mut n = 0;
    for ex in gets.split("GET ").skip(1) {
        let (path, rest) = ex.split_once('\n').unwrap();
        let (status, body) = rest.split_once('\n').unwrap();
        let want: Value =
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{path}: {e}\n{body}"));
        let r = get(&server.url(path));
        assert_eq!(status, format!("HTTP/1.1 {} OK", r.status), "{path}");
        assert_eq!(r.json(), want, "{path}");
        n += 1;
    }
    assert_eq!(n, 2, "the KNKA and KRKN examples");

    // `### xqtb stats --metric dtm --json`: the command, then its JSON, long lists cut.
    let blocks = doc_blocks("### `xqtb stats --metric dtm --json`");
    let (cmd, body) = blocks[0].split_once('\n').unwrap();
    assert_eq!(cmd, "xqtb stats KRKN --dir tables --metric dtm --json");
    let mut want: Value = serde_json::from_str(body).unwrap();
    let mut got = dtm_stats_json("KRKN", dir.path());
    cut(&mut got);
    // The DTM file format is young: its length is not held to the document.
    for v in [&mut got, &mut want] {
        v.as_object_mut().unwrap().remove("file_bytes");
    }
    assert_eq!(got, want);
    assert_eq!(got["metric"], "dtm");
    assert_eq!(got["levels"], json!([[], [1]]));
    let (ok, log) = server.stop();
    assert!(ok, "{log}");
}

// ---------------------------------------------------------------- the page

/// The page's move list: `[move, DTC value, DTM value, li class, flags]` in page order.
const MOVES: &str =
    "return [...document.querySelectorAll('#moves li')].map(li => [li.dataset.move, \
     li.querySelector('.v').textContent, (li.querySelector('.m') || {}).textContent || null, \
     li.className, li.querySelector('.f').textContent, \
     li.querySelector('.v').classList.contains('best'), \
     !!li.querySelector('.m.best')])";

/// Waits for the page of `fen` (its FEN box) to show its DTM headline; returns it.
fn wait_dtm(b: &Browser, fen: &str) -> String {
    let script = format!(
        "const f = document.querySelector('#fen'); const v = document.querySelector('#dtm-value'); \
         return f && f.value.startsWith({}) && v && v.textContent",
        serde_json::to_string(fen).unwrap()
    );
    b.wait_for(&format!("the DTM headline of {fen}"), &script)
        .as_str()
        .unwrap()
        .to_string()
}

fn goto_fen(b: &Browser, server: &Server, fen: &str) -> String {
    b.goto(&server.url(&format!("/?fen={}", url_fen(fen))));
    wait_dtm(b, fen)
}

fn page_moves(b: &Browser) -> Vec<Value> {
    b.eval(MOVES, json!([])).as_array().unwrap().clone()
}

fn row_names(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn dtm_on_the_query_page() {
    let Some((chromium, driver)) = webdriver::browser_for("DTM browser test") else {
        return;
    };
    let dir = built_both(&["KNKA", "KRKN"]);
    let server = Server::start(dir.path());
    let b = Browser::start(&chromium, &driver);
    let shots = webdriver::screenshots();
    let api = |fen: &str| get(&server.url(&format!("/api/probe?fen={}", url_fen(fen)))).json();

    // KNKA's longest mate: both headlines, every move's DTM beside its DTC value.
    let shown = goto_fen(&b, &server, LONGEST);
    assert_eq!(shown, "Red to move mates in 37 plies");
    assert_eq!(
        b.text("#value"),
        "Red to move wins: 29 plies to conversion, order 0",
        "the DTC headline stays"
    );
    let rows = page_moves(&b);
    assert_eq!(row_names(&rows), ["f0f1", "i0g1", "i0h2"]);
    for r in &rows {
        assert_eq!(r[1], "(0-028)", "{r}");
        assert_eq!(r[2], "M36", "{r}");
        assert!(r[3].as_str().unwrap().contains("best"), "{r}");
        assert_eq!((&r[5], &r[6]), (&json!(true), &json!(true)), "{r}");
    }
    assert_eq!(
        b.eval(
            "return document.querySelector('#metric-dtc').getAttribute('aria-pressed')",
            json!([])
        ),
        "true",
        "DTC orders the moves until the user switches"
    );
    b.screenshot(&shots.join("dtm-position.png"));

    // After a move: the loser's headline.
    b.click("#moves li[data-move='f0f1'] button");
    let shown = wait_dtm(&b, "9/9/4ka3/9/9/9/9/9/5K3/8N b");
    assert_eq!(shown, "Black to move is mated in 36 plies");
    assert_eq!(
        b.text("#value"),
        "Black to move loses: conversion in 28 plies, order 0"
    );

    // Where the metrics disagree: DTC's order and best move first, DTM's best in bold.
    goto_fen(&b, &server, SPLIT);
    let want = api(SPLIT);
    let rows = page_moves(&b);
    assert_eq!(
        row_names(&rows),
        names(&moves_of(&want).iter().collect::<Vec<_>>()),
        "DTC: the server's order"
    );
    let row = |rows: &[Value], mv: &str| rows.iter().find(|r| r[0] == mv).unwrap().clone();
    assert_eq!(rows[0][0], "c9d7");
    assert!(row(&rows, "c9d7")[3].as_str().unwrap().contains("best"));
    assert!(row(&rows, "c9d7")[4].as_str().unwrap().starts_with('*'));
    assert!(!row(&rows, "d0e0")[3].as_str().unwrap().contains("best"));
    assert_eq!(row(&rows, "d0e0")[6], true, "DTM's best value in bold");
    assert_eq!(row(&rows, "c9d7")[6], false);
    for (r, m) in rows.iter().zip(moves_of(&want)) {
        let d = &m["dtm"];
        let text = match d["distance"].as_u64() {
            Some(n) => format!("M{n}"),
            None => "M—".to_string(),
        };
        assert_eq!(r[2], text.as_str(), "{m}");
    }

    // Switch to DTM: the list reorders by Definition 9 with level keys, d0e0 first and marked.
    b.click("#metric-dtm");
    b.wait_for(
        "the DTM order",
        "return document.querySelector('#metric-dtm').getAttribute('aria-pressed') === 'true'",
    );
    let rows = page_moves(&b);
    let mut by_dtm: Vec<&Value> = moves_of(&want).iter().collect();
    by_dtm.sort_by(|x, y| cmp_dtm(x, y)); // stable: ties keep DTC's order
    assert_eq!(row_names(&rows), names(&by_dtm));
    assert_ne!(
        row_names(&rows),
        names(&moves_of(&want).iter().collect::<Vec<_>>())
    );
    assert_eq!(rows[0][0], "d0e0");
    for r in &rows {
        let best = r[3].as_str().unwrap().contains("best");
        assert_eq!(best, r[0] == "d0e0", "{r}");
        assert_eq!(r[4].as_str().unwrap().starts_with('*'), best, "{r}");
    }
    assert_eq!(
        b.eval(
            "return document.querySelectorAll('#play-line').length",
            json!([])
        ),
        0
    );
    b.screenshot(&shots.join("dtm-position-by-dtm.png"));

    // The choice is remembered (local storage, as the other settings).
    b.goto(&server.url(&format!("/?fen={}", url_fen(SPLIT))));
    wait_dtm(&b, SPLIT);
    assert_eq!(
        row_names(&page_moves(&b)),
        names(&by_dtm),
        "still DTM after a reload"
    );
    assert_eq!(
        b.eval("return localStorage.getItem('xqtb.metric')", json!([])),
        "dtm"
    );

    // The suggested move follows DTM.
    b.click("#suggest");
    let d0e0 = moves_of(&want)
        .iter()
        .find(|m| m["move"] == "d0e0")
        .unwrap()["fen"]
        .as_str()
        .unwrap()
        .to_string();
    let child = d0e0.split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(wait_dtm(&b, &child), "Black to move is mated in 6 plies");

    // "Play to mate": DTM best moves, one page a ply. Here the horse ends it by stalemate,
    // which loses in Xiangqi, in seven plies.
    goto_fen(&b, &server, SPLIT);
    let pages = |b: &Browser| b.eval("return history.length", json!([])).as_u64().unwrap();
    let before = pages(&b);
    b.click("#play-mate");
    let end = b.wait_for(
        "the end of the DTM line",
        "const e = document.querySelector('#line-end'); return e ? e.textContent : null",
    );
    assert_eq!(end, "Stalemate: a loss in Xiangqi.");
    let fen = b.eval("return document.querySelector('#fen').value", json!([]));
    let last = api(fen.as_str().unwrap());
    assert!(
        moves_of(&last).is_empty() && last["in_check"] == false,
        "{last}"
    );
    assert_eq!(b.text("#dtm-value"), "Black to move is stalemated (a loss)");
    assert_eq!(pages(&b) - before, 7, "mate in 7 plies");

    // Play mode: the tables answer with DTM's best move too.
    b.goto(&server.url(&format!("/play?fen={}&side=b", url_fen(SPLIT))));
    let want_url = format!("/play?fen={}", url_fen(&child));
    b.wait_for(
        "the tables' DTM answer",
        &format!(
            "return decodeURIComponent(location.pathname + location.search).startsWith({})",
            serde_json::to_string(&want_url).unwrap()
        ),
    );

    // Back to DTC: the server's order again.
    goto_fen(&b, &server, SPLIT);
    b.click("#metric-dtc");
    b.wait_for(
        "the DTC order",
        "return document.querySelector('#metric-dtc').getAttribute('aria-pressed') === 'true'",
    );
    assert_eq!(page_moves(&b)[0][0], "c9d7");
    assert!(
        b.eval(
            "return document.querySelectorAll('#play-line').length",
            json!([])
        )
        .as_u64()
            == Some(1)
    );

    // Chinese.
    goto_fen(&b, &server, LONGEST);
    b.click("#lang");
    b.wait_for(
        "Chinese",
        "const v = document.querySelector('#dtm-value'); return v && v.textContent.startsWith('輪')",
    );
    assert_eq!(b.text("#dtm-value"), "輪紅方走，37 步（半回合）將死對方");
    assert_eq!(
        b.text("#value"),
        "輪紅方走，勝：距轉換 29 步（半回合），階 0"
    );
    b.screenshot(&shots.join("dtm-position-zh.png"));
    b.click("#lang");
    b.wait_for(
        "English",
        "const v = document.querySelector('#dtm-value'); return v && v.textContent.startsWith('Red')",
    );

    // A level above mate (KRKN's phase 1 under the Asian rules).
    let shown = goto_fen(&b, &server, LEVEL);
    assert_eq!(
        shown,
        "Red to move wins: in 1 ply the loser can only check or chase forever (DTM level (1))"
    );
    let note = b.text("#dtm-level-note");
    assert!(
        note.starts_with("DTM level (1):")
            && note.contains("phase 1 of the Asian rules, in this table"),
        "{note}"
    );
    assert_eq!(page_moves(&b)[0][2], "M0 (1)");
    b.screenshot(&shots.join("dtm-position-level.png"));
    b.click("#moves li[data-move='d0d1'] button");
    let shown = wait_dtm(&b, "9/9/4k4/9/9/9/9/9/1n1K5/R8 b");
    assert_eq!(
        shown,
        "Black to move loses: it can only check or chase forever (DTM level (1))"
    );
    // A key through a capture, (0, 1): no table here has one, so the page's requests are
    // answered with it.
    b.eval(
        "const orig = window.fetch;
         window.fetch = async (u, o) => {
           const r = await orig(u, o);
           if (!String(u).startsWith('/api/probe')) return r;
           const j = await r.json();
           if (j.dtm && j.dtm.level && j.dtm.level.length) j.dtm.level = [0, ...j.dtm.level];
           return new Response(JSON.stringify(j), {status: r.status, headers: {'content-type': 'application/json'}});
         };
         history.back();",
        json!([]),
    );
    let shown = wait_dtm(&b, LEVEL);
    assert_eq!(
        shown,
        "Red to move wins: in 1 ply the loser can only check or chase forever (DTM level (0, 1))"
    );
    let note = b.text("#dtm-level-note");
    assert!(
        note.contains("phase 1 of the Asian rules, in the table reached after 1 capture"),
        "{note}"
    );

    // A phone: no sideways scrolling; the headlines and the move list.
    goto_fen(&b, &server, SPLIT);
    b.click("#metric-dtm");
    b.window_size(390, 844);
    goto_fen(&b, &server, SPLIT);
    let overflow = b.eval(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
        json!([]),
    );
    assert!(
        overflow.as_i64().unwrap() <= 0,
        "sideways scrolling: {overflow}"
    );
    b.screenshot(&shots.join("dtm-position-phone.png"));
    b.eval(
        "document.querySelector('#dtm-value').scrollIntoView()",
        json!([]),
    );
    b.screenshot(&shots.join("dtm-position-phone-moves.png"));
    b.window_size(1280, 1000);

    // Without DTM tables the page has no DTM at all.
    let dtc = dtc_only(dir.path());
    let plain = Server::start(dtc.path());
    b.goto(&plain.url(&format!("/?fen={}", url_fen(SPLIT))));
    b.wait_for(
        "the DTC page",
        "const v = document.querySelector('#value'); return v && v.textContent",
    );
    let dtm_things = b.eval(
        "return document.querySelectorAll('#dtm-value, #metric, #dtm-explain, #moves .m, #play-mate, .moves.dtm').length",
        json!([]),
    );
    assert_eq!(dtm_things, 0);
    assert_eq!(
        page_moves(&b)[0][0],
        "c9d7",
        "DTC's order even with DTM remembered"
    );
    assert!(
        b.eval(
            "return document.querySelectorAll('#play-line').length",
            json!([])
        ) == 1
    );

    drop(b);
    for s in [server, plain] {
        let (ok, log) = s.stop();
        assert!(ok, "{log}");
        assert!(!log.contains("ERROR") && !log.contains("panicked"), "{log}");
    }
}

/// `/api/stats/<MATERIAL>?metric=dtm` answers the object `xqtb stats --metric dtm --json` prints
/// (a non-canonical name moves to the canonical one, the metric kept; an unknown metric is a 400,
/// a missing DTM table a 404). A probe whose moves need a supporting table's DTM file that is not
/// there answers as without DTM tables.
#[test]
fn dtm_statistics_and_a_missing_supporting_dtm_table() {
    let both = built_both(&["KNKA"]);
    let server = Server::start(both.path());
    let want = dtm_stats_json("KNKA", both.path());
    let a = get(&server.url("/api/stats/KNKA?metric=dtm"));
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json(), want);
    assert_eq!(want["metric"], "dtm");
    assert_eq!(get(&server.url("/api/stats/KNKA")).json()["metric"], "dtc");
    let moved = get(&server.url("/api/stats/KAKN?metric=dtm"));
    assert_eq!(moved.status, 301, "{}", moved.body);
    assert_eq!(moved.headers["location"], "/api/stats/KNKA?metric=dtm");
    let bad = get(&server.url("/api/stats/KNKA?metric=dtz"));
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(
        bad.body.contains("unknown metric \\\"dtz\\\""),
        "{}",
        bad.body
    );

    // KNK's DTM file gone: the advisor's capture in SPLIT leads there.
    let dtc = dtc_only(both.path());
    let gone = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(both.path()).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() && p.file_name().unwrap() != "KNK.xqdtm" {
            std::fs::copy(&p, gone.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    let missing = get(&server.url("/api/stats/KRKR?metric=dtm"));
    assert_eq!(missing.status, 404, "{}", missing.body);
    let (a, b) = (Server::start(gone.path()), Server::start(dtc.path()));
    let path = format!("/api/probe?fen={}", url_fen(SPLIT));
    let (x, y) = (get(&a.url(&path)), get(&b.url(&path)));
    assert_eq!((x.status, y.status), (200, 200), "{} {}", x.body, y.body);
    assert_eq!(x.json(), y.json(), "as without DTM tables");
    for s in [server, a, b] {
        let (ok, log) = s.stop();
        assert!(ok && !log.contains("panicked"), "{log}");
    }
}

/// `xqtb stats <material> --metric dtm --json --dir <dir>`, which must succeed, as JSON.
fn dtm_stats_json(material: &str, dir: &std::path::Path) -> Value {
    let out = xqtb()
        .args(["stats", material, "--metric", "dtm", "--json", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert_ok("xqtb stats --metric dtm", &out);
    serde_json::from_slice(&out.stdout).unwrap()
}
