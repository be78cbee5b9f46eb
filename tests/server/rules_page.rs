//! The page where the Asian rules decide (issue: orders above 0), in a real browser on KRKN
//! built under the Asian rules: the headline and marked pieces of a position of order 1, the
//! line and the suggested moves played through the perpetual check to the repetition and its
//! verdict in words (English and Chinese), play mode as Black, and the classic addresses.
//! Who loses is checked against the moves' own labels from `xqtb probe --json` (every move of
//! the loser in the cycle gives check, the winner's do not all), not against the page's text.

use crate::common::{built, xqtb};
use crate::support::{cli_probe, Server};
use crate::webdriver::{self, Browser};
use serde_json::{json, Value};
use std::path::Path;

/// KRKN, Red to move: the horse on b1 checks the king on d0; Red's one move Kd0-d1 leaves
/// Black nothing but checking with the horse (order 1, distance 1).
const ORDER1: &str = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w";

const VALUE_READY: &str =
    "const v = document.querySelector('#value'); return v ? v.textContent : null";
const RULING: &str = "const v = document.querySelector('#ruling'); return v ? v.textContent : null";
/// The game the page holds: the FENs from its start, and its moves.
const GAME: &str = "const g = history.state && history.state.game; \
    return g ? [[g.start, ...g.plies.map(p => p.fen)], g.plies.map(p => p.move)] : null";

/// The game's last position stands earlier in it; in the plies between, every move of the side
/// the rules make lose gives check and the other side's do not all (labels from the CLI).
fn assert_perpetual_check_by(dir: &Path, game: &Value, loser: &str) {
    let fens: Vec<&str> = game[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let moves: Vec<&str> = game[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let key = |f: &str| f.split('_').take(2).collect::<Vec<_>>().join(" ");
    let last = key(fens.last().unwrap());
    let first = fens.iter().position(|f| key(f) == last).unwrap();
    assert!(
        first + 4 < fens.len(),
        "a cycle of at least 4 plies: {fens:?}"
    );
    let (mut loser_checks, mut winner_checks) = (vec![], vec![]);
    for i in first..moves.len() {
        let p = cli_probe(dir, &key(fens[i]));
        let m = p["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["move"] == moves[i])
            .unwrap();
        let check = m["check"].as_bool().unwrap();
        if p["side"] == loser {
            loser_checks.push(check)
        } else {
            winner_checks.push(check)
        }
    }
    assert!(loser_checks.iter().all(|&c| c), "{loser_checks:?}");
    assert!(!winner_checks.iter().all(|&c| c), "{winner_checks:?}");
}

#[test]
fn the_rules_decide_on_the_page() {
    let Some((chromium, driver)) = webdriver::browser_for("rules browser test") else {
        return;
    };
    let dir = built(&["KRKN"]);
    let server = Server::start(dir.path());
    let b = Browser::start(&chromium, &driver);
    let shots = webdriver::screenshots();
    let fen = ORDER1.replace(' ', "_");
    let p = cli_probe(dir.path(), ORDER1);
    assert_eq!(
        (p["order"].as_u64(), p["distance"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        p["rule"],
        json!({"kind": "check", "loser": "b", "plies": 1, "by": ["b1"], "chased": null})
    );

    // The headline says what the distance counts, and the checking horse is ringed.
    b.goto(&server.url(&format!("/?fen={fen}")));
    let shown = b.wait_for("the value", VALUE_READY);
    assert_eq!(
        shown,
        "Red to move wins: within 1 ply Black has nothing left but perpetual check, which the Asian rules forbid (order 1)"
    );
    let ringed = b.eval("return [...document.querySelectorAll('#board [data-rule]')].map(e => [e.dataset.rule, e.dataset.sq])", json!([]));
    assert_eq!(ringed, json!([["rule-by", "b1"]]));
    assert!(b
        .text("#order-note")
        .contains("Order 1: this result rests on the Asian rules"));
    b.screenshot(&shots.join("rules-position.png"));

    // "Play to conversion" plays through the perpetual check to the repetition, and says who
    // loses in words.
    b.click("#play-line");
    let ruling = b.wait_for("the ruling", RULING);
    assert_eq!(
        ruling,
        "The position has repeated: Black gave check with every move since it last stood here. \
         Perpetual check loses under the Asian rules: Red wins."
    );
    let line_game = b.eval(GAME, json!([]));
    assert_perpetual_check_by(dir.path(), &line_game, "b");
    let disabled = b.eval(
        "return ['#suggest', '#play-line'].map(s => document.querySelector(s).disabled)",
        json!([]),
    );
    assert_eq!(disabled, json!([true, true]), "the game is over");
    b.screenshot(&shots.join("rules-ruling.png"));
    b.click("#lang");
    let zh = b.wait_for("the Chinese ruling", "const v = document.querySelector('#ruling'); return v && v.textContent.startsWith('局面') && v.textContent");
    assert_eq!(
        zh,
        "局面重複：自上次出現此局面以來，黑方每著都將軍。依亞洲規則長將判負：紅方勝。"
    );
    b.screenshot(&shots.join("rules-ruling-zh.png"));
    // The Chinese headline of the first position (back to the start).
    b.goto(&server.url(&format!("/?fen={fen}")));
    let zh = b.wait_for("the Chinese value", "const v = document.querySelector('#value'); return v && v.textContent.startsWith('輪') && v.textContent");
    assert_eq!(
        zh,
        "輪紅方走，勝：1 步（半回合）內黑方只剩長將，依亞洲規則判負（階 1）"
    );
    b.click("#lang");
    b.wait_for(
        "English",
        "const v = document.querySelector('#value'); return v && v.textContent.startsWith('Red')",
    );

    // "Suggested move", click by click, reaches the same repetition and stops there.
    let mut clicks = 0;
    loop {
        let before = b.eval("return document.querySelector('#fen').value", json!([]));
        if b.eval(RULING, json!([])) != Value::Null {
            break;
        }
        assert!(clicks < 40, "no ruling after {clicks} suggested moves");
        b.click("#suggest");
        clicks += 1;
        b.wait_for("the next position", &format!(
            "const f = document.querySelector('#fen'); return f && f.value !== {} && document.querySelector('#value')",
            before
        ));
    }
    assert_eq!(
        b.eval(GAME, json!([])),
        line_game,
        "the suggested moves play the line"
    );

    // Play mode as Black: Black's files and river from Black's side; the tables move first;
    // the user keeps checking (the move the tables rate best) until the rules end the game.
    b.goto(&server.url(&format!("/play?fen={fen}&side=b")));
    b.wait_for("play mode", "const s = document.querySelector('#play-status'); return s && s.textContent === 'Your move.'");
    let labels = b.eval(
        "const b = document.querySelector('#board'); \
         const bottom = [...b.querySelectorAll('text.coord')].filter(t => +t.getAttribute('y') > 500).sort((x, y) => x.getAttribute('x') - y.getAttribute('x')).map(t => t.textContent).join(''); \
         const river = [...b.querySelectorAll('text.river')].sort((x, y) => x.getAttribute('x') - y.getAttribute('x')).map(t => t.textContent).join(''); \
         return [b.dataset.flipped, bottom, river]",
        json!([]),
    );
    assert_eq!(labels, json!(["true", "987654321", "漢界楚河"]));
    b.screenshot(&shots.join("play-black.png"));
    let mut plies = 0;
    let status = loop {
        let status = b.wait_for("the user's turn or the end", "const s = document.querySelector('#play-status'); return s && (s.textContent === 'Your move.' || s.textContent.startsWith('Game over')) && s.textContent");
        if status != "Your move." {
            break status;
        }
        assert!(plies < 40, "no end after {plies} moves");
        let here = b.eval(
            "return new URLSearchParams(location.search).get('fen')",
            json!([]),
        );
        let best = cli_probe(dir.path(), &here.as_str().unwrap().replace('_', " "))["moves"][0]
            ["move"]
            .clone();
        b.eval(
            "document.querySelector('#play-status').textContent = ''",
            json!([]),
        );
        b.click(&format!("#moves li[data-move={best}] button"));
        plies += 1;
        // The hover arrow of the list goes with the move.
        b.wait_for(
            "the tables' reply",
            "const s = document.querySelector('#play-status'); return s && s.textContent !== ''",
        );
        let arrows = b.eval(
            "return document.querySelectorAll('#board line.arrow').length",
            json!([]),
        );
        assert_eq!(arrows, 0, "no arrow left after the move");
    };
    assert_eq!(
        status,
        "Game over. The position has repeated: Black gave check with every move since it last \
         stood here. Perpetual check loses under the Asian rules: Red wins."
    );
    let listed = b.eval(
        "return document.querySelectorAll('#game-moves span.ply').length",
        json!([]),
    );
    assert_eq!(
        listed,
        json!(b.eval(GAME, json!([]))[1].as_array().unwrap().len())
    );
    assert_perpetual_check_by(dir.path(), &b.eval(GAME, json!([])), "b");
    b.screenshot(&shots.join("play-black-over.png"));

    // The classic system's addresses open the position they name.
    let q = p["qstring"].as_str().unwrap();
    for path in [format!("/?{q}"), format!("/endgame.cgi?{q}")] {
        b.goto(&server.url(&path));
        let shown = b.wait_for("the classic link's value", VALUE_READY);
        assert!(
            shown
                .as_str()
                .unwrap()
                .starts_with("Red to move wins: within 1 ply"),
            "{path}: {shown}"
        );
        assert_eq!(
            b.eval("return document.querySelector('#fen').value", json!([])),
            json!(p["fen"])
        );
    }
    b.goto(&server.url(&format!("/?{q}:")));
    b.wait_for("Black's view", "return document.querySelector('#board').dataset.flipped === 'true' && document.querySelector('#value')");
    b.goto(&server.url(&format!("/play.cgi?{q}")));
    b.wait_for(
        "play mode from a classic link",
        "const s = document.querySelector('#play-status'); return s && s.textContent",
    );

    // The small things: the game record of the line, copy, the other side to move, Enter in
    // the FEN box, readable addresses, server errors in the page's language.
    b.goto(&server.url(&format!("/?fen={fen}")));
    b.wait_for("the value", VALUE_READY);
    b.eval(
        "window.pgn = null; const make = URL.createObjectURL; \
         URL.createObjectURL = (blob) => { blob.text().then((t) => { window.pgn = t; }); return make(blob); };",
        json!([]),
    );
    b.click("#pgn");
    let pgn = b.wait_for("the PGN", "return window.pgn");
    let pgn = pgn.as_str().unwrap();
    for want in [
        "[Game \"Chinese Chess\"]",
        "[FEN \"9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1\"]",
        "[Format \"WXF\"]",
        "[Result \"1-0\"]",
        "1. K6+1 H2-3 2. K6-1 H3+2",
        "{The position has repeated: Black gave check with every move",
    ] {
        assert!(pgn.contains(want), "{want} in\n{pgn}");
    }
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
    b.click("#copy-fen");
    b.wait_for(
        "copied",
        "return document.querySelector('#copy-fen').textContent === 'Copied'",
    );
    b.click("#moves li[data-move='d0d1'] button");
    b.wait_for("Black to move", "const v = document.querySelector('#value'); return v && v.textContent.startsWith('Black to move')");
    let search = b.eval("return location.search", json!([]));
    assert_eq!(
        search, "?fen=9/9/4k4/9/9/9/9/9/1n1K5/R8_b",
        "a readable address"
    );
    b.click("#switch-side");
    b.wait_for("Red to move", "const v = document.querySelector('#value'); return v && v.textContent.startsWith('Red to move')");
    b.eval(
        "const i = document.querySelector('#fen'); i.value = arguments[0]; \
         i.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))",
        json!([ORDER1]),
    );
    b.wait_for("Enter loads", "const v = document.querySelector('#value'); return v && v.textContent.startsWith('Red to move wins: within 1 ply')");
    b.click("#lang");
    b.goto(&server.url("/?fen=3k5/9/9/9/9/9/9/9/9/4K1C2_w"));
    let err = b.wait_for(
        "the error",
        "const e = document.querySelector('#error'); return e && e.textContent",
    );
    assert!(
        err.as_str()
            .unwrap()
            .starts_with("沒有 KCK 殘局庫：需要殘局庫檔案 KCK.xqtb"),
        "{err}"
    );
    b.click("#lang");

    // The tables page: one table, grouped as the classic system groups endings, sortable.
    b.goto(&server.url("/tables"));
    b.wait_for(
        "the tables",
        "return document.querySelector(\"tr[data-material='KRKN']\")",
    );
    const GROUPS: &str = "return [...document.querySelectorAll('#tables tbody')].map(g => [g.dataset.kind, [...g.querySelectorAll('tr[data-material]')].map(r => r.dataset.material)])";
    assert_eq!(
        b.eval(GROUPS, json!([])),
        json!([
            ["rook", ["KRK", "KRKN"]],
            ["horse", ["KNK"]],
            ["misc", ["KK"]]
        ])
    );
    b.click("button[data-sort='positions']");
    b.click("button[data-sort='positions']");
    assert_eq!(
        b.eval(GROUPS, json!([]))[0],
        json!(["rook", ["KRKN", "KRK"]]),
        "largest first"
    );
    assert_eq!(
        b.text("tr[data-material='KRKN'] td.longest-cell"),
        "0: 23 · 1: 1"
    );
    b.screenshot(&shots.join("rules-tables.png"));

    // Its statistics: a row per order, both sides together, as `xqtb stats --json` has them.
    let stats: Value = serde_json::from_slice(
        &xqtb()
            .args(["stats", "KRKN", "--json", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    b.goto(&server.url("/stats/KRKN"));
    b.wait_for(
        "the orders",
        "return document.querySelector('#longest tr[data-order]')",
    );
    let rows = b.eval("return [...document.querySelectorAll('#longest tr[data-order]')].map(r => [...r.cells].slice(0, 3).map(c => c.textContent))", json!([]));
    let want: Vec<Value> = stats["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let n = |x: &Value| {
                x.as_u64()
                    .unwrap()
                    .to_string()
                    .as_bytes()
                    .rchunks(3)
                    .rev()
                    .map(|c| std::str::from_utf8(c).unwrap())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            json!([o["order"].to_string(), n(&o["win"]), n(&o["loss"])])
        })
        .collect();
    assert_eq!(rows, json!(want));
    assert_eq!(want.len(), 2, "KRKN has orders 0 and 1");
    b.screenshot(&shots.join("rules-stats.png"));

    // On a phone: no sideways scrolling on the position of order 1 nor on the tables page.
    b.window_size(390, 844);
    for (path, shot) in [
        (format!("/?fen={fen}"), "rules-phone.png"),
        ("/tables".to_string(), "rules-tables-phone.png"),
    ] {
        b.goto(&server.url(&path));
        b.wait_for(
            "the page",
            "return document.querySelector('#value') || document.querySelector('#tables')",
        );
        let overflow = b.eval(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
            json!([]),
        );
        assert!(
            overflow.as_i64().unwrap() <= 0,
            "{path}: sideways scrolling on a phone: {overflow}"
        );
        b.screenshot(&shots.join(shot));
    }

    drop(b);
    let (ok, log) = server.stop();
    assert!(ok, "{log}");
}
