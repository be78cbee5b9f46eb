//! The JSON API: `/api/probe`, `/api/mainline`, `/api/tables`, `/api/stats/<MATERIAL>`
//! (`?metric=dtm`: of the DTM table).
//! Every error is `{"error": "..."}` with a 4xx status naming the problem, or 503 for a table
//! that cannot be read; nothing here panics on input. (The server's `error_answer` turns any
//! other error under `/api/` into the same shape.)

use super::State;
use crate::material::Material;
use crate::position::{Move, Position};
use crate::query::{self, Mainline, TableStats, TableSummary};
use crate::table::{file_name, Metric};
use crate::tablebase::ProbeError;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

type AppState = axum::extract::State<Arc<State>>;

/// Longest principal line answered, in plies.
pub const MAINLINE_LIMIT: usize = 2000;

/// The JSON API's routes (`/api/...`), each group with its own timeout.
pub fn routes() -> Router<Arc<State>> {
    let quick = Router::new()
        .route("/api/probe", get(probe))
        .route("/api/mainline", get(mainline))
        .route("/api", any(unknown))
        .route("/api/", any(unknown))
        .route("/api/{*rest}", any(unknown))
        .layer(super::timeout(super::QUICK))
        .layer(axum::middleware::map_response(timed_out));
    // The list computes the statistics of tables with orders above 0 (their longest wins).
    let full_pass = Router::new()
        .route("/api/tables", get(tables))
        .route("/api/stats/{material}", get(stats))
        .route("/api/partial/{material}", get(partial))
        .layer(super::timeout(super::FULL_PASS))
        .layer(axum::middleware::map_response(timed_out));
    quick
        .merge(full_pass)
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::middleware::from_fn(etag))
        .layer(cors())
}

/// Any site may call the API from a browser, as it may call lichess's: every answer, errors
/// included, carries `Access-Control-Allow-Origin: *`, and a preflight `OPTIONS` is answered.
fn cors() -> tower_http::cors::CorsLayer {
    use tower_http::cors::{Any, CorsLayer};
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::HEAD])
        .expose_headers([header::ETAG])
        .max_age(std::time::Duration::from_secs(86_400))
}

/// A weak `ETag` on every successful answer (the crc32 and length of its JSON body, so the same
/// answer has the same tag in every run of the server), and `304 Not Modified` with no body
/// when the request's `If-None-Match` names it.
async fn etag(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let held = req.headers().get(header::IF_NONE_MATCH).cloned();
    let r = next.run(req).await;
    if r.status() != StatusCode::OK {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(b) => b,
        Err(e) => {
            return ApiError::Unavailable(format!("the answer could not be read: {e}"))
                .into_response()
        }
    };
    let tag = format!("W/\"{:08x}-{:x}\"", crc32fast::hash(&bytes), bytes.len());
    let value = HeaderValue::from_str(&tag).expect("an ETag is ASCII");
    parts.headers.insert(header::ETAG, value);
    if held.is_some_and(|h| names_tag(&h, &tag)) {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.remove(header::CONTENT_TYPE);
        return Response::from_parts(parts, axum::body::Body::empty());
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// Whether an `If-None-Match` value names `tag` (weak comparison, RFC 9110 §13.1.2).
fn names_tag(held: &HeaderValue, tag: &str) -> bool {
    let opaque = |t: &str| t.trim().trim_start_matches("W/").to_string();
    held.to_str()
        .is_ok_and(|h| h.trim() == "*" || h.split(',').any(|t| opaque(t) == opaque(tag)))
}

/// A known endpoint asked with another method than GET (or HEAD); axum adds `Allow`.
async fn not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::MethodNotAllowed(format!(
        "method {method} not allowed on {}: the API answers GET",
        uri.path()
    ))
}

/// The timeout's answer (a bare 503) as an API error saying what happened.
async fn timed_out(r: Response) -> Response {
    if r.status() == StatusCode::SERVICE_UNAVAILABLE
        && !r.headers().contains_key(header::CONTENT_TYPE)
    {
        return ApiError::Unavailable(
            "the request took too long and was stopped (the server is busy): try again".into(),
        )
        .into_response();
    }
    r
}

/// An API error: its status and a message naming the problem.
#[derive(Debug)]
pub enum ApiError {
    BadRequest(String),
    NotFound(String),
    MethodNotAllowed(String),
    Unavailable(String),
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, msg) = match &self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            ApiError::MethodNotAllowed(m) => (StatusCode::METHOD_NOT_ALLOWED, m),
            ApiError::Unavailable(m) => (StatusCode::SERVICE_UNAVAILABLE, m),
        };
        error_response(status, msg)
    }
}

/// `{"error": msg}` with `status`, never cached.
pub(super) fn error_response(status: StatusCode, msg: &str) -> Response {
    let mut r = (status, Json(ErrorBody { error: msg })).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// An error answer that is not JSON, as `{"error": ...}`: its text (a rejection's message) or
/// else its status's name; the status and the other headers (`Allow`) are kept.
pub(super) async fn json_error(r: Response) -> Response {
    let (mut parts, body) = r.into_parts();
    let text = axum::body::to_bytes(body, 16 << 10)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let msg = if text.is_empty() {
        let name = parts.status.canonical_reason().unwrap_or("error");
        name.to_lowercase()
    } else {
        text
    };
    let (json, body) = error_response(parts.status, &msg).into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    for name in [header::CONTENT_TYPE, header::CACHE_CONTROL] {
        if let Some(v) = json.headers.get(&name) {
            parts.headers.insert(name, v.clone());
        }
    }
    Response::from_parts(parts, body)
}

impl From<ProbeError> for ApiError {
    fn from(e: ProbeError) -> ApiError {
        match e {
            ProbeError::Missing { material, .. } => ApiError::NotFound(format!(
                "no table for material {material}: it needs the table file {} in the table \
                 directory (build it with `xqtb build {material} --dir <DIR>`)",
                file_name(material)
            )),
            ProbeError::Illegal => ApiError::BadRequest(e.to_string()),
            ProbeError::Game(e) => ApiError::BadRequest(format!("bad game in `moves`: {e}")),
            ProbeError::Index(e) => {
                ApiError::BadRequest(format!("position cannot be indexed: {e}"))
            }
            ProbeError::Unusable { .. } => {
                tracing::warn!("table unavailable: {e}");
                ApiError::Unavailable(format!("table unavailable: {e}"))
            }
            ProbeError::Table(_)
            | ProbeError::Inconsistent { .. }
            | ProbeError::Directory { .. } => {
                ApiError::Unavailable(format!("table unavailable: {e}"))
            }
        }
    }
}

/// A successful answer about positions or one table: JSON, cacheable for a minute. A table may
/// be rebuilt on disk while it is served, and the rebuilt one is served anew: a cached answer
/// is then at most a minute old.
fn ok<T: Serialize>(value: T) -> Response {
    cached(value, "public, max-age=60")
}

fn cached<T: Serialize>(value: T, cache: &'static str) -> Response {
    let mut r = Json(value).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    r
}

#[derive(Deserialize)]
struct PositionQuery {
    fen: Option<String>,
}

/// A game: its start (`fen`) and the UCCI moves played since (`moves`, separated by spaces or
/// commas; none if absent).
#[derive(Deserialize)]
struct GameQuery {
    fen: Option<String>,
    moves: Option<String>,
}

/// Longest game `/api/mainline` takes, in moves.
pub const GAME_LIMIT: usize = 2000;

fn game_of(q: Result<Query<GameQuery>, QueryRejection>) -> Result<(Position, Vec<Move>), ApiError> {
    let Query(q) = q.map_err(|e| ApiError::BadRequest(format!("bad query string: {e}")))?;
    let start = parse_position(q.fen)?;
    let text = q.moves.unwrap_or_default();
    let words: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    if words.len() > GAME_LIMIT {
        return Err(ApiError::BadRequest(format!(
            "game too long ({} moves): at most {GAME_LIMIT}",
            words.len()
        )));
    }
    let moves = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            Move::parse(w).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "bad move {w:?} (move {} of `moves`): moves are UCCI, e.g. h2e2",
                    i + 1
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((start, moves))
}

fn position_of(q: Result<Query<PositionQuery>, QueryRejection>) -> Result<Position, ApiError> {
    let Query(q) = q.map_err(|e| ApiError::BadRequest(format!("bad query string: {e}")))?;
    parse_position(q.fen)
}

fn parse_position(fen: Option<String>) -> Result<Position, ApiError> {
    let text = fen.ok_or_else(|| ApiError::BadRequest("missing query parameter `fen`".into()))?;
    if text.len() > 200 {
        return Err(ApiError::BadRequest(format!(
            "position too long ({} bytes): a FEN or position string is under 100",
            text.len()
        )));
    }
    query::parse_query_position(&text)
        .map(|(p, _)| p)
        .map_err(|e| ApiError::BadRequest(format!("bad position {text:?}: {e}")))
}

/// Runs blocking table work on the blocking pool, a bounded number at a time. The work holds
/// its permit to its end: a request dropped meanwhile (its timeout, its client gone) cannot
/// stop the work, and must not let more start.
async fn blocking<T: Send + 'static>(
    state: &Arc<State>,
    f: impl FnOnce(&State) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = state
        .work
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::Unavailable("server is shutting down".into()))?;
    let st = state.clone();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        f(&st)
    })
    .await
    .map_err(|e| ApiError::Unavailable(format!("probe task failed: {e}")))?
}

async fn probe(
    axum::extract::State(state): AppState,
    q: Result<Query<PositionQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let pos = position_of(q)?;
    let r = blocking(&state, move |st| Ok(query::probe_answer(&st.tb, &pos)?)).await?;
    Ok(ok(r))
}

async fn mainline(
    axum::extract::State(state): AppState,
    q: Result<Query<GameQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let (start, moves) = game_of(q)?;
    let r: Mainline = blocking(&state, move |st| {
        Ok(query::mainline(&st.tb, &start, &moves, MAINLINE_LIMIT)?)
    })
    .await?;
    Ok(ok(r))
}

/// A table in the directory that cannot be used.
#[derive(Serialize)]
struct Unavailable {
    material: String,
    file: String,
    error: String,
}

#[derive(Serialize)]
struct Tables {
    tables: Vec<TableSummary>,
    unavailable: Vec<Unavailable>,
}

async fn tables(axum::extract::State(state): AppState) -> Result<Response, ApiError> {
    let r = blocking(&state, |st| {
        let materials = query::table_materials(&st.dir)
            .map_err(|e| ApiError::Unavailable(format!("cannot read the table directory: {e}")))?;
        let mut out = Tables {
            tables: Vec::new(),
            unavailable: Vec::new(),
        };
        for m in materials {
            // Opening a table for its summary checks its file (the tablebase's option).
            let summary =
                query::table_summary(&st.tb, m, || st.stats(m, Metric::Dtc).map(|s| (*s).clone()))
                    .map_err(|e| e.to_string());
            match summary {
                Ok(s) => out.tables.push(s),
                Err(error) => out.unavailable.push(Unavailable {
                    material: m.to_string(),
                    file: file_name(m),
                    error,
                }),
            }
        }
        Ok(out)
    })
    .await?;
    // The list changes when a table is built into the directory: a minute.
    Ok(cached(r, "public, max-age=60"))
}

/// `?metric=dtc|dtm` of `/api/stats/<MATERIAL>` (default `dtc`).
#[derive(Deserialize)]
struct MetricQuery {
    metric: Option<String>,
}

fn metric_of(q: Result<Query<MetricQuery>, QueryRejection>) -> Result<Metric, ApiError> {
    let Query(q) = q.map_err(|e| ApiError::BadRequest(format!("bad query string: {e}")))?;
    match q.metric.as_deref() {
        None | Some("dtc") => Ok(Metric::Dtc),
        Some("dtm") => Ok(Metric::Dtm),
        Some(other) => Err(ApiError::BadRequest(format!(
            "unknown metric {other:?}: dtc (distance to conversion) or dtm (distance to mate)"
        ))),
    }
}

async fn stats(
    axum::extract::State(state): AppState,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<MetricQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = path.map_err(|e| ApiError::BadRequest(format!("bad material: {e}")))?;
    let metric = metric_of(q)?;
    let material: Material = name
        .parse()
        .map_err(|e| ApiError::BadRequest(format!("bad material {name:?}: {e}")))?;
    let canonical = material.canonical();
    if canonical.to_string() != name {
        let mut r = StatusCode::MOVED_PERMANENTLY.into_response();
        let to = match metric {
            Metric::Dtc => format!("/api/stats/{canonical}"),
            Metric::Dtm => format!("/api/stats/{canonical}?metric=dtm"),
        };
        r.headers_mut().insert(
            header::LOCATION,
            HeaderValue::from_str(&to).expect("a material name is a valid header"),
        );
        return Ok(r);
    }
    let s: Arc<TableStats> = blocking(&state, move |st| Ok(st.stats(canonical, metric)?)).await?;
    Ok(ok(&*s))
}

/// `/api/partial/<MATERIAL>`: the report of the directory's partial table of a material
/// (`query::partial_report`; formats/api.md).
async fn partial(
    axum::extract::State(state): AppState,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(name) = path.map_err(|e| ApiError::BadRequest(format!("bad material: {e}")))?;
    let material: Material = name
        .parse()
        .map_err(|e| ApiError::BadRequest(format!("bad material {name:?}: {e}")))?;
    let canonical = material.canonical();
    let red = crate::tablebase::partial::partial_dir(&state.dir, crate::piece::Color::Red);
    if !crate::table::metric_table_path(&red, canonical, Metric::Dtc).exists() {
        return Err(ApiError::NotFound(format!(
            "no partial table of {canonical} (xqtb build {canonical} --partial)"
        )));
    }
    let r = blocking(&state, move |st| Ok(st.partial_report(canonical)?)).await?;
    Ok(ok(&*r))
}

/// Any method on a path under `/api/` that is no endpoint. The path as sent (percent-encoded),
/// so that no path is refused for its bytes.
async fn unknown(uri: Uri) -> ApiError {
    ApiError::NotFound(format!(
        "no API endpoint {}: there are /api/probe?fen=, /api/mainline?fen=, /api/tables, \
         /api/stats/<MATERIAL> and /api/partial/<MATERIAL>",
        uri.path()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tower::ServiceExt;

    #[tokio::test]
    async fn dropped_requests_work_keeps_its_permit_until_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let config = super::super::Config {
            dir: dir.path().into(),
            addr: "127.0.0.1:0".parse().unwrap(),
            cache_bytes: 1 << 20,
            log_requests: false,
            limits: Default::default(),
        };
        let state = Arc::new(State::new(&config));
        let all = state.work.available_permits();
        let (finish, finished) = std::sync::mpsc::channel::<()>();
        let work = blocking(&state, move |_| {
            let _ = finished.recv();
            Ok(())
        });
        // The request gives up (a timeout, or its client went away) while the work runs.
        let dropped = tokio::time::timeout(Duration::from_millis(50), work).await;
        assert!(dropped.is_err());
        assert_eq!(
            state.work.available_permits(),
            all - 1,
            "the work holds its permit"
        );
        finish.send(()).unwrap();
        for _ in 0..500 {
            if state.work.available_permits() == all {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the permit is given back when the work ends");
    }

    #[tokio::test]
    async fn a_request_out_of_time_is_a_json_503() {
        let app: Router = Router::new()
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    "late"
                }),
            )
            .layer(super::super::timeout(Duration::from_millis(50)))
            .layer(axum::middleware::map_response(timed_out));
        let req = axum::http::Request::get("/slow")
            .body(axum::body::Body::empty())
            .unwrap();
        let r = app.oneshot(req).await.unwrap();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
        let body = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert!(
            v["error"].as_str().unwrap().contains("took too long"),
            "{v}"
        );
    }
}
