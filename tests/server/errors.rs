//! Every error answer of `xqtb serve` is never cached (`Cache-Control: no-store`), and under
//! `/api/` is `{"error": "..."}` naming the problem, whatever refused the request: a handler,
//! axum's extractors and method routing, or an unknown path.

use crate::support::{get, request, Reply, Server};

fn no_tables() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn assert_json_error(what: &str, r: &Reply, status: u16, needle: &str) {
    assert_eq!(r.status, status, "{what}: {}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"), "{what}");
    assert_eq!(r.header("cache-control"), Some("no-store"), "{what}");
    let e = r.json();
    let text = e["error"].as_str().unwrap_or_else(|| panic!("{what}: {e}"));
    assert!(
        text.contains(needle),
        "{what}: {text:?} should contain {needle:?}"
    );
}

#[test]
fn api_errors_are_json_and_never_cached() {
    let dir = no_tables();
    let server = Server::start(dir.path());
    let cases: &[(&str, &str, u16, &str)] = &[
        // A path that is not UTF-8: axum's Path extractor refuses it.
        ("GET", "/api/stats/%FF%FE", 400, "bad material"),
        ("GET", "/api/%FF", 404, "no API endpoint /api/%FF"),
        ("GET", "/api", 404, "no API endpoint /api:"),
        ("GET", "/api/", 404, "no API endpoint /api/:"),
        ("GET", "/api/probe?fen=1&fen=2", 400, "bad query string"),
        (
            "POST",
            "/api/probe?fen=x",
            405,
            "method POST not allowed on /api/probe",
        ),
        ("PUT", "/api/stats/KNK", 405, "method PUT not allowed"),
        ("DELETE", "/api/tables", 405, "method DELETE not allowed"),
        ("POST", "/api/nothing", 404, "no API endpoint /api/nothing"),
    ];
    for (method, path, status, needle) in cases {
        let what = format!("{method} {path}");
        let r = request(method, &server.url(path));
        assert_json_error(&what, &r, *status, needle);
        if *status == 405 {
            assert_eq!(r.header("allow"), Some("GET,HEAD"), "{what}");
        }
    }
    let (ok, log) = server.stop();
    assert!(ok && !log.contains("ERROR"), "{log}");
}

/// Outside `/api/` an error may be plain text or empty, but is never cached; answers that are
/// not errors keep their lifetimes.
#[test]
fn page_errors_are_never_cached() {
    let dir = no_tables();
    let server = Server::start(dir.path());
    for (method, path, status) in [
        ("GET", "/no/such/page", 404),
        ("GET", "/assets/none.js", 404),
        ("POST", "/", 405),
        ("DELETE", "/assets/app.js", 405),
    ] {
        let r = request(method, &server.url(path));
        assert_eq!(r.status, status, "{method} {path}");
        assert_eq!(
            r.header("cache-control"),
            Some("no-store"),
            "{method} {path}"
        );
    }
    let robots = get(&server.url("/robots.txt"));
    assert_eq!(
        robots.header("cache-control"),
        Some("public, max-age=86400")
    );
    assert_eq!(
        get(&server.url("/")).header("cache-control"),
        Some("no-cache")
    );
}
