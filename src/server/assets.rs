//! The page and its assets, compiled into the binary (`web/`), and `robots.txt`.

use super::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

/// One embedded file.
struct Asset {
    body: &'static [u8],
    mime: &'static str,
}

const INDEX: Asset = Asset {
    body: include_bytes!("../../web/index.html"),
    mime: "text/html; charset=utf-8",
};
const APP_JS: Asset = Asset {
    body: include_bytes!("../../web/app.js"),
    mime: "text/javascript; charset=utf-8",
};
const STYLE: Asset = Asset {
    body: include_bytes!("../../web/style.css"),
    mime: "text/css; charset=utf-8",
};
const FAVICON: Asset = Asset {
    body: include_bytes!("../../web/favicon.svg"),
    mime: "image/svg+xml",
};

/// Crawlers may read the home, tables, statistics and help pages, not one page per position
/// (`/?fen=…`, `/play?fen=…`, `/edit?fen=…`) nor the API.
const ROBOTS: &str =
    "User-agent: *\nDisallow: /?\nDisallow: /play\nDisallow: /edit\nDisallow: /endgame.cgi\nDisallow: /api/\n";

/// The web pages, their assets, the favicon and `robots.txt`, all compiled into the binary;
/// anything else is a plain-text 404.
pub fn routes() -> Router<Arc<State>> {
    let page = || get(|h: HeaderMap| async move { serve(&INDEX, &h, "no-cache") });
    Router::new()
        .route("/", page())
        .route("/play", page())
        .route("/edit", page())
        .route("/tables", page())
        .route("/help", page())
        .route("/stats/{material}", page())
        // The classic query system's addresses (`/endgame.cgi?STRING`, `/play.cgi?STRING`).
        .route("/endgame.cgi", page())
        .route("/play.cgi", page())
        .route(
            "/assets/app.js",
            get(|h: HeaderMap| async move { serve(&APP_JS, &h, "no-cache") }),
        )
        .route(
            "/assets/style.css",
            get(|h: HeaderMap| async move { serve(&STYLE, &h, "no-cache") }),
        )
        .route(
            "/favicon.svg",
            get(|h: HeaderMap| async move { serve(&FAVICON, &h, "public, max-age=86400") }),
        )
        .route(
            "/robots.txt",
            get(|| async {
                (
                    [
                        (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                        (header::CACHE_CONTROL, "public, max-age=86400"),
                    ],
                    ROBOTS,
                )
            }),
        )
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "not found: the query pages are /, /tables, /stats/<MATERIAL>, /help; the API \
                 is under /api/ (formats/api.md)\n",
            )
        })
}

/// An asset with a strong ETag (crc32 of its bytes), answering `If-None-Match` with 304.
fn serve(a: &Asset, req: &HeaderMap, cache: &'static str) -> Response {
    let etag = format!("\"{:08x}\"", crc32fast::hash(a.body));
    let etag = HeaderValue::from_str(&etag).expect("hex is a valid header");
    let headers = [
        (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
        (header::ETAG, etag.clone()),
    ];
    if req
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (
        headers,
        [(header::CONTENT_TYPE, HeaderValue::from_static(a.mime))],
        a.body,
    )
        .into_response()
}
