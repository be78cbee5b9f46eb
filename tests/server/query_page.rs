//! End to end in a real browser: `xqtb serve` on a free loopback port, Debian's chromium driven
//! headless through chromedriver. Skipped, with a notice, when no browser is installed and CI
//! is not set; fails when CI=true and the browser is missing (`.ci/run` installs it).
//!
//! Screenshots of the pages are saved under `target/tmp/browser-screenshots/`.

use crate::common::{built, xqtb};
use crate::support::{cli_probe, Server};
use crate::webdriver::{self, Browser};
use serde_json::{json, Value};

/// The sentence the page shows for a probe answer of order 0 (English).
fn value_sentence(p: &Value) -> String {
    let side = if p["side"] == "w" { "Red" } else { "Black" };
    let plies = match p["distance"].as_u64() {
        Some(1) => "1 ply".to_string(),
        d => format!("{} plies", d.unwrap_or_default()),
    };
    match p["result"].as_str().unwrap() {
        "draw" => format!("{side} to move: draw"),
        "win" => format!(
            "{side} to move wins: {plies} to conversion, order {}",
            p["order"]
        ),
        _ if p["moves"].as_array().unwrap().is_empty() => {
            format!(
                "{side} to move has no move and loses (order {})",
                p["order"]
            )
        }
        _ => format!(
            "{side} to move loses: conversion in {plies}, order {}",
            p["order"]
        ),
    }
}

/// Waits until the page shows `want` as the value (history navigation is asynchronous: the
/// old page may still be there for a moment).
fn wait_value(b: &Browser, want: &str) {
    let script = format!(
        "const v = document.querySelector('#value'); return v && v.textContent === {}",
        serde_json::to_string(want).unwrap()
    );
    b.wait_for(&format!("the value {want:?}"), &script);
}

/// Waits for a new position's value after a move: the FEN box shows another position.
fn wait_new_value(b: &Browser, old_fen: &str) -> Value {
    let script = format!(
        "const v = document.querySelector('#value'); const f = document.querySelector('#fen'); \
         return v && f && f.value !== {} && v.textContent",
        serde_json::to_string(old_fen).unwrap()
    );
    b.wait_for("a new position", &script)
}

const VALUE_READY: &str =
    "const v = document.querySelector('#value'); return v ? v.textContent : null";
const FEN: &str = "return document.querySelector('#fen').value";
const MOVES: &str = "return [...document.querySelectorAll('#moves li')].map(li => [li.dataset.move, li.querySelector('.n').textContent, li.querySelector('.v').textContent, li.className])";

#[test]
fn the_query_page_in_a_real_browser() {
    let Some((chromium, driver)) = webdriver::browser_for("browser test") else {
        return;
    };
    let dir = built(&["KNKA", "KPK"]);
    let server = Server::start(dir.path());
    let b = Browser::start(&chromium, &driver);
    let shots = webdriver::screenshots();

    // The query system's example: value and move list as `xqtb probe --json` has them.
    let start = "4K44B49994n495k399";
    b.goto(&server.url(&format!("/?fen={start}")));
    let want = cli_probe(dir.path(), start);
    let shown = b.wait_for("the value", VALUE_READY);
    assert_eq!(shown, value_sentence(&want));
    assert_eq!(shown, "Red to move wins: 21 plies to conversion, order 0");
    let moves = b.eval(MOVES, json!([]));
    let moves = moves.as_array().unwrap();
    let want_moves = want["moves"].as_array().unwrap();
    assert_eq!(moves.len(), want_moves.len());
    for (row, m) in moves.iter().zip(want_moves) {
        assert_eq!(row[0], m["move"]);
        assert_eq!(row[1], m["zh"], "Chinese notation is the default");
        let ov = format!("({}-{:03})", m["order"], m["distance"].as_u64().unwrap());
        assert_eq!(row[2], ov.as_str());
        let class = row[3].as_str().unwrap();
        let group = match m["result"].as_str().unwrap() {
            "loss" => "win",
            "win" => "loss",
            _ => "draw",
        };
        assert!(class.starts_with(group), "{class} for {m}");
        assert_eq!(class.contains("best"), m["best"] == true);
    }
    // Nothing was fetched from anywhere but this server.
    let foreign = b.eval(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))",
        json!([]),
    );
    assert_eq!(foreign, json!([]), "requests outside the server");
    b.screenshot(&shots.join("position.png"));

    // Click a move that is not the best one; the page shows the new position's value.
    b.click("#moves li[data-move='e4g5'] button");
    let shown = b.wait_for("the new value", VALUE_READY);
    let fen = b.eval(FEN, json!([])).as_str().unwrap().to_string();
    let after = cli_probe(dir.path(), &fen);
    assert_eq!(shown, value_sentence(&after));
    assert_eq!(
        shown,
        "Black to move loses: conversion in 22 plies, order 0"
    );
    assert!(b.current_url().contains("/?fen="), "{}", b.current_url());

    // Back and forward, with the page's buttons and the browser's.
    b.click("#back");
    wait_value(&b, &value_sentence(&want));
    b.click("#forward");
    wait_value(&b, &value_sentence(&after));
    b.back();
    wait_value(&b, &value_sentence(&want));

    // "Suggested move" until the conversion: every position's value as the CLI has it, the
    // distance going down by one each ply.
    let mut seen = Vec::new();
    let mut distance = 21;
    let mut fen = b.eval(FEN, json!([])).as_str().unwrap().to_string();
    for _ in 0..40 {
        b.click("#suggest");
        let shown = wait_new_value(&b, &fen);
        fen = b.eval(FEN, json!([])).as_str().unwrap().to_string();
        let p = cli_probe(dir.path(), &fen);
        assert_eq!(shown, value_sentence(&p), "{fen}");
        seen.push(fen.clone());
        if p["material"] != "KNKA" {
            break;
        }
        distance -= 1;
        assert_eq!(p["distance"], distance, "one ply closer to conversion");
    }
    assert_eq!(seen.len(), 21, "the win converts at ply 21");
    let last = cli_probe(dir.path(), seen.last().unwrap());
    assert_eq!(last["material"], "KNK", "the horse took the advisor");

    // "Play to conversion" from the start: the line plays out ply by ply and says where it ends.
    b.goto(&server.url(&format!("/?fen={start}")));
    b.wait_for("the value", VALUE_READY);
    b.click("#play-line");
    let end = b.wait_for(
        "the end of the line",
        "const e = document.querySelector('#line-end'); return e ? e.textContent : null",
    );
    assert_eq!(end, "Conversion reached.");
    let fen = b.eval(FEN, json!([])).as_str().unwrap().to_string();
    assert_eq!(
        &fen,
        seen.last().unwrap(),
        "the same line as the suggested moves"
    );
    b.back();
    let p = cli_probe(dir.path(), &seen[seen.len() - 2]);
    wait_value(&b, &value_sentence(&p));

    // Flip the board: Red's king goes to the top half.
    b.goto(&server.url(&format!("/?fen={start}")));
    b.wait_for("the value", VALUE_READY);
    let king_y = "const g = document.querySelector(\"#board .piece[data-sq='f2']\"); return g.transform.baseVal.consolidate().matrix.f";
    let y0 = b.eval(king_y, json!([])).as_f64().unwrap();
    b.click("#flip");
    b.wait_for("the flipped board", "return document.querySelector('#board').dataset.flipped === 'true' && document.querySelector('#value')");
    let y1 = b.eval(king_y, json!([])).as_f64().unwrap();
    assert!(y0 > 330.0 && y1 < 330.0, "king at y {y0}, flipped {y1}");
    // The f key flips back.
    b.eval(
        "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', bubbles: true}))",
        json!([]),
    );
    b.wait_for("unflipped", "return document.querySelector('#board').dataset.flipped === 'false' && document.querySelector('#value')");

    // Notation switch: WXF, UCCI, back to Chinese.
    let first = "return document.querySelector('#moves li .n').textContent";
    for (value, want_first) in [("wxf", "H5+7"), ("ucci", "e4c5"), ("zh", "傌五進七")] {
        b.eval(
            "const s = document.querySelector('#notation'); s.value = arguments[0]; s.dispatchEvent(new Event('change'))",
            json!([value]),
        );
        b.wait_for("the move list", VALUE_READY);
        let got = b.wait_for("first move", first);
        assert_eq!(got, want_first, "notation {value}");
    }

    // Chinese text, and back to English.
    b.click("#lang");
    let zh = b.wait_for("Chinese value", VALUE_READY);
    assert_eq!(zh, "輪紅方走，勝：距轉換 21 步（半回合），階 0");
    b.screenshot(&shots.join("position-zh.png"));
    b.click("#lang");
    b.wait_for("English again", VALUE_READY);

    // Orders above 0 are shown and explained wherever they come (tests/server/rules_page.rs
    // has real ones): here the page's own requests are answered with order 2.
    b.eval(
        "const orig = window.fetch;
         window.fetch = async (u, o) => {
           const r = await orig(u, o);
           if (!String(u).startsWith('/api/probe')) return r;
           const j = await r.json();
           if (j.order !== null) j.order = 2;
           for (const m of j.moves || []) if (m.order !== null) m.order = 2;
           return new Response(JSON.stringify(j), {status: r.status, headers: {'content-type': 'application/json'}});
         };
         window.dispatchEvent(new PopStateEvent('popstate'));",
        json!([]),
    );
    wait_value(&b, "Red to move wins: 21 plies to conversion, order 2");
    let note = b.text("#order-note");
    assert!(
        note.starts_with("Order 2: this result rests on the Asian rules"),
        "{note}"
    );
    let ov = b.text("#moves li[data-move='e4c5'] .v");
    assert_eq!(ov, "(2-020)");
    b.goto(&server.url(&format!("/?fen={start}")));
    wait_value(&b, "Red to move wins: 21 plies to conversion, order 0");
    let notes = b.eval(
        "return document.querySelectorAll('#order-note').length",
        json!([]),
    );
    assert_eq!(notes, 0, "no order note at order 0");

    // Dark mode, and a phone-sized window.
    b.click("#theme");
    b.wait_for(
        "dark theme",
        "return document.documentElement.dataset.theme === 'dark'",
    );
    b.screenshot(&shots.join("position-dark.png"));
    b.click("#theme");
    b.window_size(390, 844);
    b.goto(&server.url(&format!("/?fen={start}")));
    b.wait_for("the value", VALUE_READY);
    let overflow = b.eval(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
        json!([]),
    );
    assert!(
        overflow.as_i64().unwrap() <= 0,
        "no sideways scrolling on a phone: {overflow}"
    );
    b.screenshot(&shots.join("position-phone.png"));
    b.window_size(1280, 1000);

    // The statistics page: W/D/L as `xqtb stats --json` has them, one chart per side and order,
    // the longest win linking to its position.
    let stats: Value = serde_json::from_slice(
        &xqtb()
            .args(["stats", "KNKA", "--json", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    b.goto(&server.url("/stats/KNKA"));
    b.wait_for("the statistics", "return document.querySelector('#wdl')");
    let red_row = b.text("#wdl tr[data-side='w']");
    assert!(
        red_row.contains("21,426") && red_row.contains("21,366 (99.72%)"),
        "{red_row}"
    );
    assert_eq!(stats["sides"]["w"]["win"], 21366);
    let charts = b.eval(
        "return document.querySelectorAll('svg.chart').length",
        json!([]),
    );
    assert_eq!(charts, 2);
    b.screenshot(&shots.join("stats.png"));
    b.click("#longest a.longest");
    let shown = b.wait_for("the longest win", VALUE_READY);
    assert_eq!(shown, "Red to move wins: 29 plies to conversion, order 0");

    // A table with pawns has the pawn split.
    b.goto(&server.url("/stats/KPK"));
    b.wait_for(
        "the pawn table",
        "return document.querySelector('table.pawns')",
    );
    b.screenshot(&shots.join("stats-pawns.png"));

    // The tables page lists every table, grouped.
    b.goto(&server.url("/tables"));
    b.wait_for(
        "the tables",
        "return document.querySelector(\"tr[data-material='KNKA']\")",
    );
    let rows = b.eval(
        "return document.querySelectorAll('tr[data-material]').length",
        json!([]),
    );
    assert_eq!(rows, 5);
    let link = b.text("tr[data-material='KNKA'] a.longest");
    assert_eq!(link, "0: 29", "order: plies of the longest win");
    b.screenshot(&shots.join("tables.png"));

    // Play mode: no values shown; the user moves, the tables answer.
    b.goto(&server.url(&format!("/play?fen={start}")));
    b.wait_for("play mode", "const s = document.querySelector('#play-status'); return s && s.textContent === 'Your move.'");
    let body = b.eval("return document.body.innerText", json!([]));
    assert!(
        !body.as_str().unwrap().contains("plies"),
        "values are hidden in play mode"
    );
    b.click("#moves li[data-move='e4c5'] button");
    b.wait_for("the tables' answer", "const s = document.querySelector('#play-status'); return s && s.textContent === 'Your move.' && location.search.includes('_w')");
    b.click("#lookup");
    let shown = b.wait_for("looked-up answers", VALUE_READY);
    assert!(
        shown
            .as_str()
            .unwrap()
            .starts_with("Red to move wins: 19 plies"),
        "{shown}"
    );

    // The editor explains an illegal setup instead of rejecting it silently.
    b.goto(&server.url("/edit?fen=4K44B49994n495k399"));
    b.wait_for(
        "the editor",
        "const s = document.querySelector('#edit-status'); return s && s.textContent",
    );
    b.click("#edit-clear");
    let msg = b.wait_for(
        "the rule",
        "const s = document.querySelector('#edit-status .error'); return s && s.textContent",
    );
    assert_eq!(msg, "Red needs exactly one king.");
    b.eval(
        "const i = document.querySelector('#edit-fen'); i.value = '4k4/9/9/9/9/9/9/9/9/4K4 w'; i.nextSibling.click()",
        json!([]),
    );
    // The old message stays until the server has answered for the new setup.
    let msg = b.wait_for(
        "the check rule",
        "const s = document.querySelector('#edit-status .error'); \
         return s && s.textContent.includes('in check') && s.textContent",
    );
    assert_eq!(
        msg,
        "Black, the side not to move, is in check: the side to move could take the king. \
         (Two kings facing each other on an open file count as check.)"
    );
    let qs = b.eval("return document.querySelector('#edit-qs').value", json!([]));
    assert_eq!(qs, "4K4999999994k4", "the classic string follows the board");
    b.screenshot(&shots.join("editor.png"));

    drop(b);
    let (ok, log) = server.stop();
    assert!(ok, "{log}");
    assert!(!log.contains("ERROR") && !log.contains("panicked"), "{log}");
}
