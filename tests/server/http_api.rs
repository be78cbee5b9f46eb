//! The HTTP API of `xqtb serve`, over loopback: every endpoint, its errors, and values equal to
//! what `xqtb probe --json` and `xqtb stats --json` print.

use crate::common::{built, probe_batch, xqtb};
use crate::support::{enc, get, get_with, Server};
use xqtb::{to_fen, Color, Indexer};

/// KNKA with its supporting tables, and KPK.
fn tables() -> tempfile::TempDir {
    built(&["KNKA", "KPK"])
}

/// Legal positions spread over a material's index, both sides to move.
fn sample(material: &str, n: u64) -> Vec<String> {
    let ix = Indexer::new(material.parse().unwrap()).unwrap();
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

#[test]
fn probe_answers_equal_the_cli() {
    let dir = tables();
    let server = Server::start(dir.path());
    assert!(
        server.banner.contains("with 5 tables"),
        "banner names the table count: {}",
        server.banner
    );
    let mut fens = sample("KNKA", 100);
    fens.extend(sample("KPK", 60));
    fens.push("4K44B49994n495k399".into());
    assert!(fens.len() > 150, "{} positions", fens.len());
    let cli = probe_batch(dir.path(), &fens);
    assert_eq!(cli.len(), fens.len());
    for (fen, want) in fens.iter().zip(&cli) {
        assert!(want.get("error").is_none(), "{fen}: {want}");
        let r = get(&server.url(&format!("/api/probe?fen={}", enc(fen))));
        assert_eq!(r.status, 200, "{fen}: {}", r.body);
        assert_eq!(&r.json(), want, "{fen}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("cache-control"), Some("public, max-age=60"));
    }
    // `_` for spaces and `r` for Red; the classic string with Black's-view flag.
    let a = get(&server.url("/api/probe?fen=4k4/4a4/9/9/9/4N4/9/5K3/9/9_r")).json();
    let b = get(&server.url("/api/probe?fen=4K44B49994n495k399:")).json();
    assert_eq!(a, b);
    assert_eq!(a["fen"], "4k4/4a4/9/9/9/4N4/9/5K3/9/9 w - - 0 1");
    assert_eq!(a["side"], "w");
    assert_eq!(a["moves"][0]["move"], "e4c5");
    assert_eq!(a["moves"][0]["best"], true);
    assert_eq!(a["moves"][0]["wxf"], "H5+7");
    assert_eq!(a["moves"][0]["zh"], "傌五進七");
    // Compressed when asked.
    let gz = get_with(
        &server.url("/api/probe?fen=4K44B49994n495k399"),
        &[("accept-encoding", "gzip")],
    );
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let (ok, log) = server.stop();
    assert!(ok, "clean exit on Ctrl-C (SIGINT); log:\n{log}");
    assert!(log.contains("shutting down"), "{log}");
    assert!(!log.contains("ERROR") && !log.contains("panicked"), "{log}");
}

#[test]
fn mainline_stats_and_tables() {
    let dir = tables();
    let server = Server::start(dir.path());

    let line = get(&server.url("/api/mainline?fen=4K44B49994n495k399"));
    assert_eq!(line.status, 200, "{}", line.body);
    let line = line.json();
    let steps = line["steps"].as_array().unwrap();
    assert_eq!(steps.len() as u64, line["distance"].as_u64().unwrap());
    assert_eq!(line["end"], "conversion");
    // Each step is a best move of the position it is played in, per the CLI.
    let mut fens = vec![line["fen"].as_str().unwrap().to_string()];
    fens.extend(
        steps[..steps.len() - 1]
            .iter()
            .map(|s| s["fen"].as_str().unwrap().to_string()),
    );
    for (step, probe) in steps.iter().zip(probe_batch(dir.path(), &fens)) {
        let best: Vec<&str> = probe["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["best"] == true)
            .map(|m| m["move"].as_str().unwrap())
            .collect();
        assert!(best.contains(&step["move"].as_str().unwrap()), "{step}");
    }

    // Statistics: the CLI's object, a redirect for a non-canonical name.
    for m in ["KNKA", "KPK", "KNK"] {
        let out = xqtb()
            .args(["stats", m, "--json", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        let want: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let got = get(&server.url(&format!("/api/stats/{m}")));
        assert_eq!(got.status, 200);
        assert_eq!(got.json(), want, "{m}");
    }
    for alias in ["KAKN", "knka", "KHKA"] {
        let r = get(&server.url(&format!("/api/stats/{alias}")));
        assert_eq!(r.status, 301, "{alias}");
        assert_eq!(r.header("location"), Some("/api/stats/KNKA"), "{alias}");
    }
    let kpk = get(&server.url("/api/stats/KPK")).json();
    assert!(kpk["sides"]["w"]["pawn_ranks"].as_array().unwrap().len() >= 7);

    // Tables: every file, with the published KNKA figures (Red to move 21,366 wins of 21,426).
    let t = get(&server.url("/api/tables"));
    assert_eq!(t.status, 200);
    let t = t.json();
    let list = t["tables"].as_array().unwrap();
    let names: Vec<&str> = list
        .iter()
        .map(|x| x["material"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["KAK", "KK", "KNK", "KNKA", "KPK"]);
    let knka = list.iter().find(|x| x["material"] == "KNKA").unwrap();
    assert_eq!(knka["positions"], 21426 + 22806);
    assert_eq!(knka["red_win_pct"], 99.72);
    assert_eq!(knka["black_draw_pct"], 3.58);
    assert_eq!(knka["longest_wins"][0]["distance"], 29);
    assert_eq!(
        knka["file_bytes"].as_u64().unwrap(),
        std::fs::metadata(dir.path().join("KNKA.xqtb"))
            .unwrap()
            .len()
    );
    assert!(t["unavailable"].as_array().unwrap().is_empty());

    let robots = get(&server.url("/robots.txt"));
    assert_eq!(robots.status, 200);
    assert!(robots.body.contains("Disallow: /?"), "{}", robots.body);
    assert!(robots.body.contains("Disallow: /api/"));
}

#[test]
fn bad_input_is_4xx_naming_the_problem() {
    let dir = tables();
    let server = Server::start(dir.path());
    let cases: &[(&str, u16, &str)] = &[
        ("/api/probe", 400, "missing query parameter `fen`"),
        ("/api/probe?fen=", 400, "empty position"),
        ("/api/probe?fen=4k4/9_w", 400, "FEN has 2 ranks"),
        (
            "/api/probe?fen=4k4/9/9/9/9/9/9/9/9/3KX4_w",
            400,
            "unknown piece letter 'X'",
        ),
        (
            "/api/probe?fen=4k4/9/9/9/9/9/9/9/9/3KR4_w",
            400,
            "side not to move, is in check",
        ),
        (
            "/api/probe?fen=4k4/4a4/9/9/9/4N4/9/5K3/9/9_x",
            400,
            "side to move must be",
        ),
        ("/api/probe?fen=%FF%FE", 400, "unknown piece letter"),
        (
            "/api/probe?fen=4K44B49994n495k39",
            400,
            "position string has",
        ),
        ("/api/mainline?fen=nonsense", 400, "bad position"),
        ("/api/stats/KQK", 400, "bad material"),
        ("/api/stats/K", 400, "bad material"),
        ("/api/nothing", 404, "no API endpoint /api/nothing"),
        // A material without a table: 404 naming the material and the file it needs.
        (
            "/api/probe?fen=3k5/9/9/9/9/9/9/9/9/4K1R2_w",
            404,
            "no table for material KRK: it needs the table file KRK.xqtb",
        ),
        ("/api/stats/KRK", 404, "KRK.xqtb"),
        (
            "/api/mainline?fen=3k5/9/9/9/9/9/9/9/9/4K1R2_w",
            404,
            "KRK.xqtb",
        ),
    ];
    for (path, status, msg) in cases {
        let r = get(&server.url(path));
        assert_eq!(r.status, *status, "{path}: {}", r.body);
        let e = r.json();
        let text = e["error"].as_str().unwrap_or_else(|| panic!("{path}: {e}"));
        assert!(
            text.contains(msg),
            "{path}: {text:?} should contain {msg:?}"
        );
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
    }
    let long = "9/".repeat(200);
    let r = get(&server.url(&format!("/api/probe?fen={long}")));
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("too long"));
    // The server is still there and answers.
    assert_eq!(
        get(&server.url("/api/probe?fen=4K44B49994n495k399")).status,
        200
    );
    let (ok, log) = server.stop();
    assert!(ok);
    assert!(!log.contains("ERROR") && !log.contains("panicked"), "{log}");
    assert!(
        log.contains("status=400") && log.contains("status=404"),
        "requests are logged"
    );
}

#[test]
fn a_corrupted_table_is_503_and_the_others_keep_serving() {
    let dir = tables();
    // Flip one byte inside KNK's data.
    let knk = dir.path().join("KNK.xqtb");
    let mut bytes = std::fs::read(&knk).unwrap();
    let at = 300.min(bytes.len() - 10);
    bytes[at] ^= 0x55;
    std::fs::write(&knk, bytes).unwrap();
    let server = Server::start(dir.path());
    // A KNK position, and a KNKA position whose capture d6e8 leads into KNK.
    for fen in [
        "4k4/9/9/3N5/9/9/9/9/9/3K5_w",
        "4k4/4a4/9/3N5/9/9/9/9/9/3K5_w",
    ] {
        let r = get(&server.url(&format!("/api/probe?fen={fen}")));
        assert_eq!(r.status, 503, "{fen}: {}", r.body);
        let e = r.json()["error"].as_str().unwrap().to_string();
        assert!(e.contains("KNK.xqtb") && e.contains("checksum"), "{e}");
    }
    let r = get(&server.url("/api/stats/KNK"));
    assert_eq!(r.status, 503);
    // Other tables still serve, and the list names the broken one.
    let ok = get(&server.url("/api/probe?fen=9/9/4k4/9/9/9/P8/9/9/3K5_w"));
    assert_eq!(ok.status, 200, "{}", ok.body);
    let t = get(&server.url("/api/tables")).json();
    let bad = t["unavailable"].as_array().unwrap();
    assert_eq!(bad.len(), 1, "{t}");
    assert_eq!(bad[0]["file"], "KNK.xqtb");
    assert!(t["tables"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["material"] != "KNK"));
    let (_, log) = server.stop();
    assert!(!log.contains("panicked"), "{log}");
}

#[test]
fn pages_and_assets_are_served_from_the_binary() {
    let dir = tables();
    let server = Server::start(dir.path());
    for path in [
        "/",
        "/?fen=4K44B49994n495k399",
        "/tables",
        "/stats/KNKA",
        "/help",
        "/play",
        "/edit",
    ] {
        let r = get(&server.url(path));
        assert_eq!(r.status, 200, "{path}");
        assert!(r.header("content-type").unwrap().starts_with("text/html"));
        assert!(r.body.contains("/assets/app.js"), "{path}");
    }
    for (path, mime) in [
        ("/assets/app.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let r = get(&server.url(path));
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.header("content-type").unwrap().starts_with(mime),
            "{path}"
        );
        // The page loads nothing from elsewhere: no absolute URL but the SVG namespace.
        let external = r
            .body
            .match_indices("http")
            .filter(|(i, _)| !r.body[*i..].starts_with("http://www.w3.org/2000/svg"))
            .count();
        assert_eq!(external, 0, "{path} refers to an outside address");
        // Revalidation.
        let etag = r.header("etag").unwrap().to_string();
        let again = get_with(&server.url(path), &[("if-none-match", &etag)]);
        assert_eq!(again.status, 304);
    }
    assert_eq!(get(&server.url("/no/such/page")).status, 404);
}

#[test]
fn start_up_errors_are_messages() {
    let out = xqtb()
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--dir",
            "/nonexistent/xqtb-tables",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read table directory"), "{err}");
    // An address already taken.
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let out = xqtb()
        .args(["serve", "--addr", &addr, "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
}

#[test]
fn only_table_files_are_listed() {
    let dir = built(&["KNK"]);
    // Not tables: a stray name, a non-canonical material name, another extension.
    std::fs::write(dir.path().join("notes.xqtb"), b"x").unwrap();
    std::fs::write(dir.path().join("KKN.xqtb"), b"x").unwrap();
    std::fs::write(dir.path().join("KRK.txt"), b"x").unwrap();
    let server = Server::start(dir.path());
    assert!(server.banner.contains("with 2 tables"), "{}", server.banner);
    let t = get(&server.url("/api/tables")).json();
    let names: Vec<&str> = t["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["material"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["KK", "KNK"]);
    // Other methods are refused with a 4xx, not an error.
    let r = ureq::post(&server.url("/api/probe?fen=x"))
        .config()
        .http_status_as_error(false)
        .build()
        .send_empty()
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
}

/// `/api/mainline` with a game (`moves=`): the line through KRKN's order-1 perpetual check to
/// the repetition and its ruling, the same repetition for a game that has reached it, and
/// clear errors for bad moves. The cycle is checked by hand: Kd0-d1, Nb1-c3+ (leg c2),
/// Kd1-d0, Nc3-b1+ (leg c2 again) stands where the game started, Black checking every time.
#[test]
fn mainline_in_a_game_ends_with_the_rules_ruling() {
    let dir = built(&["KRKN"]);
    let server = Server::start(dir.path());
    let start = "9/9/4k4/9/9/9/9/9/1n7/R2K5_w";
    let ruling = serde_json::json!({
        "first": 0, "again": 4, "red": null, "black": "check",
        "loser": "b", "rule": "check", "chased": null
    });
    let line = get(&server.url(&format!("/api/mainline?fen={start}"))).json();
    let moves: Vec<&str> = line["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["move"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["d0d1", "b1c3", "d1d0", "c3b1"]);
    assert_eq!(
        (&line["end"], &line["repetition"]),
        (&"repetition".into(), &ruling)
    );

    // The game so far counts: after the four moves the repetition is there already.
    let done = get(&server.url(&format!(
        "/api/mainline?fen={start}&moves=d0d1,b1c3,d1d0,c3b1"
    )))
    .json();
    assert_eq!(done["steps"], serde_json::json!([]));
    assert_eq!(done["repetition"], ruling);
    // Two moves in, the line goes on from there and plies count from the game's start.
    let half = get(&server.url(&format!("/api/mainline?fen={start}&moves=d0d1%20b1c3"))).json();
    assert_eq!(half["fen"], "9/9/4k4/9/9/9/2n6/9/3K5/R8 w - - 0 1");
    assert_eq!(half["steps"].as_array().unwrap().len(), 2);
    assert_eq!(half["repetition"]["again"], 4);

    for (moves, status, says) in [
        ("d0d2", 400, "move 1 (d0d2) is not legal"),
        ("d0d1,zz", 400, "bad move \"zz\" (move 2 of `moves`)"),
    ] {
        let r = get(&server.url(&format!("/api/mainline?fen={start}&moves={moves}")));
        assert_eq!(r.status, status, "{moves}: {}", r.body);
        assert!(
            r.json()["error"].as_str().unwrap().contains(says),
            "{moves}: {}",
            r.body
        );
    }
    let long = vec!["d0d1"; 2001].join(",");
    let r = get(&server.url(&format!("/api/mainline?fen={start}&moves={long}")));
    assert_eq!(r.status, 400);
    assert!(r.body.contains("game too long (2001 moves)"), "{}", r.body);
}

/// Another site's page may call the API (CORS), every error included; answers carry an ETag
/// and a client holding it gets `304 Not Modified` without a body.
#[test]
fn cors_and_etags() {
    use crate::support::request_with;
    let dir = tables();
    let server = Server::start(dir.path());
    let origin = [("Origin", "https://example.org")];
    let probe = server.url("/api/probe?fen=4K44B49994n495k399");
    let r = get_with(&probe, &origin);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let tag = r.header("etag").expect("an ETag").to_string();
    assert!(tag.starts_with("W/\""), "{tag}");
    assert_eq!(
        get(&probe).header("etag"),
        Some(tag.as_str()),
        "the same answer, the same tag"
    );
    let other = get(&server.url("/api/probe?fen=4K44B49994n495k3990"));
    assert_ne!(other.header("etag"), Some(tag.as_str()));
    for held in [tag.clone(), format!("\"x\", {tag}"), "*".to_string()] {
        let r = get_with(&probe, &[("If-None-Match", held.as_str())]);
        assert_eq!((r.status, r.body.as_str()), (304, ""), "{held}");
        assert_eq!(r.header("etag"), Some(tag.as_str()));
    }
    assert_eq!(
        get_with(&probe, &[("If-None-Match", "W/\"0-0\"")]).status,
        200
    );

    // A preflight is answered; errors of every kind carry the header and a JSON body.
    let pre = request_with(
        "OPTIONS",
        &probe,
        &[
            ("Origin", "https://example.org"),
            ("Access-Control-Request-Method", "GET"),
        ],
    );
    assert_eq!(pre.status, 200, "{}", pre.body);
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    assert!(pre
        .header("access-control-allow-methods")
        .unwrap()
        .contains("GET"));
    for (method, path, status) in [
        ("GET", "/api/probe?fen=nonsense", 400),
        ("GET", "/api/probe?fen=3k5/9/9/9/9/9/9/9/9/4K1R2_w", 404),
        ("GET", "/api/nothing", 404),
        ("POST", "/api/probe?fen=4K44B49994n495k399", 405),
    ] {
        let r = request_with(method, &server.url(path), &origin);
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        assert_eq!(
            r.header("access-control-allow-origin"),
            Some("*"),
            "{method} {path}"
        );
        assert!(r.json()["error"].is_string(), "{method} {path}: {}", r.body);
    }
    // Every OPTIONS is answered as a preflight: the methods the API answers.
    let r = request_with("OPTIONS", &probe, &[]);
    assert_eq!(r.status, 200);
    assert!(r
        .header("access-control-allow-methods")
        .unwrap()
        .contains("GET"));
}

/// A directory holding a partial table (`formats/partial.md`) and no complete one of that
/// material: `/api/probe` answers with its bounds.
#[test]
fn probe_answers_from_a_partial_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::common::build_cmd("KRKN", dir.path(), &["--partial", "--without", "KRK"])
        .output()
        .unwrap();
    crate::common::assert_ok("build --partial", &out);
    let server = Server::start(dir.path());
    let r = get(&server.url("/api/probe?fen=9/9/4k4/9/9/9/9/9/1n7/R2K5_w"));
    assert_eq!(r.status, 200, "{}", r.body);
    let j = r.json();
    assert_eq!(
        (&j["bounds"], &j["lower"], &j["upper"], &j["without"]),
        (
            &"at least a draw".into(),
            &"draw".into(),
            &"win".into(),
            &serde_json::json!(["KRK"])
        )
    );
    // Every legal move with the bounds after it: the rook taking the horse leads into the
    // withheld KRK (unknown), and none is best where the value is open.
    let r = get(&server.url("/api/probe?fen=9/9/4k4/9/9/9/9/9/n8/R2K5_w"));
    assert_eq!(r.status, 200, "{}", r.body);
    let j = r.json();
    let moves = j["moves"].as_array().unwrap();
    let pos = xqtb::parse_fen("9/9/4k4/9/9/9/9/9/n8/R2K5 w").unwrap();
    assert_eq!(moves.len(), pos.legal_moves().len());
    let take = moves
        .iter()
        .find(|m| m["move"] == "a0a1")
        .expect("a0a1 listed");
    assert_eq!(
        (&take["capture"], &take["bounds"]),
        (&true.into(), &"unknown".into())
    );
    assert!(moves.iter().all(|m| m["best"] == false));
    // The withheld table itself is not there.
    let r = get(&server.url("/api/probe?fen=9/9/4k4/9/9/9/9/9/9/R2K5_w"));
    assert_eq!(r.status, 404, "{}", r.body);
    // The partial table's report: what `stats --partial-report --json` prints.
    let r = get(&server.url("/api/partial/KRKN"));
    assert_eq!(r.status, 200, "{}", r.body);
    let out = crate::common::xqtb()
        .args(["stats", "KRKN", "--partial-report", "--json", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    crate::common::assert_ok("stats --partial-report", &out);
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.json(), cli);
    assert!(cli["against_full"].is_null(), "no complete KRKN here");
    assert_eq!(get(&server.url("/api/partial/KRK")).status, 404);
}
