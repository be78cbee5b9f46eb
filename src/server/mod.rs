//! `xqtb serve`: the query system over HTTP. A JSON API (`formats/api.md`) answered from the
//! [`crate::query`] functions, and a self-contained web page (every asset compiled into the
//! binary; the page makes no request outside this server).
//!
//! Tables are opened on first use and shared by all requests through the library's
//! [`Tablebase`] (one bounded block cache per open table). A table's whole-file checksum is
//! checked the first time a request needs it; a table that fails is answered with 503 naming
//! the file, while the other tables go on serving, until its file changes: before an API
//! request, at most once a second, the tables are compared with their files on disk and
//! reopened if any changed (a table rebuilt is served anew). Probing runs on Tokio's blocking
//! pool, at most a few requests at a time per core. Connections are served by our own loop
//! ((`listen`)): a cap on open connections, and deadlines for request heads and idle clients.
//! Every error answer carries `Cache-Control: no-store`, and under `/api/` is JSON.

mod api;
mod assets;
mod listen;

pub use listen::Limits;

use crate::material::Material;
use crate::query::{self, PartialReport, TableStats};
use crate::table::Metric;
use crate::tablebase::{ProbeError, Tablebase};
use axum::Router;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// How the server is started.
#[derive(Clone, Debug)]
pub struct Config {
    /// The directory of table files to serve.
    pub dir: PathBuf,
    /// The address to listen on.
    pub addr: SocketAddr,
    /// Block cache per open table, in bytes.
    pub cache_bytes: usize,
    /// Log one line per request (method, path, status, latency) on stderr.
    pub log_requests: bool,
    /// Open connections and their deadlines.
    pub limits: Limits,
}

/// One table's statistics once computed; locked while they are being computed.
type StatsSlot = Mutex<Option<Arc<TableStats>>>;
/// A partial table's report, once computed.
type PartialSlot = Mutex<Option<Arc<PartialReport>>>;

/// What the handlers share.
pub struct State {
    tb: Tablebase,
    dir: PathBuf,
    /// Statistics per table, computed once (a full pass over the table): requests arriving
    /// while it runs wait for it on the table's own lock instead of starting another pass.
    stats: Mutex<HashMap<(Material, Metric), Arc<StatsSlot>>>,
    /// Partial tables' reports, computed once each the same way (a pass over both builds).
    partial_reports: Mutex<HashMap<Material, Arc<PartialSlot>>>,
    /// Bounds the probing work running at once on the blocking pool (each task holds a permit
    /// until it ends, even if its request was dropped meanwhile).
    work: Arc<Semaphore>,
    /// When the open tables were last compared with the files on disk.
    checked: Mutex<Instant>,
}

/// How often the open tables are compared with the files on disk (a `stat` each): a table
/// rebuilt or replaced is served anew within this, and answers are cached no longer than a
/// minute (`formats/api.md`).
const REFRESH: Duration = Duration::from_secs(1);

impl State {
    /// The shared state for `config`: a [`Tablebase`] over its directory (tables opened on first
    /// use, each file's checksum checked then; a table that fails is answered as unavailable
    /// from then on), and a bound of four probing requests per core.
    pub fn new(config: &Config) -> State {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        State {
            tb: Tablebase::new(&config.dir, config.cache_bytes).with_file_checksums(),
            dir: config.dir.clone(),
            stats: Mutex::new(HashMap::new()),
            partial_reports: Mutex::new(HashMap::new()),
            work: Arc::new(Semaphore::new(4 * cores)),
            checked: Mutex::new(Instant::now()),
        }
    }

    /// Reopens the tables changed on disk since they were opened ([`Tablebase::refresh`]) and
    /// forgets the statistics computed from the old files; at most once every [`REFRESH`].
    fn refresh(&self) {
        {
            let mut checked = self.checked.lock().unwrap();
            if checked.elapsed() < REFRESH {
                return;
            }
            *checked = Instant::now();
        }
        if self.tb.refresh() {
            tracing::info!("tables changed on disk: reopened");
            self.stats.lock().unwrap().clear();
            self.partial_reports.lock().unwrap().clear();
        }
    }

    fn stats(&self, material: Material, metric: Metric) -> Result<Arc<TableStats>, ProbeError> {
        let slot = self
            .stats
            .lock()
            .unwrap()
            .entry((material.canonical(), metric))
            .or_default()
            .clone();
        let mut slot = slot.lock().unwrap();
        if let Some(s) = &*slot {
            return Ok(s.clone());
        }
        // An error is not kept: the next request tries again.
        let s = Arc::new(query::table_stats_of(
            &self.tb,
            material.canonical(),
            metric,
        )?);
        *slot = Some(s.clone());
        Ok(s)
    }
}

impl State {
    /// The report of `material`'s partial table ([`query::partial_report`]), computed once.
    fn partial_report(&self, material: Material) -> Result<Arc<PartialReport>, ProbeError> {
        let slot = self
            .partial_reports
            .lock()
            .unwrap()
            .entry(material.canonical())
            .or_default()
            .clone();
        let mut slot = slot.lock().unwrap();
        if let Some(r) = &*slot {
            return Ok(r.clone());
        }
        let r = Arc::new(query::partial_report(&self.dir, material.canonical())?);
        *slot = Some(r.clone());
        Ok(r)
    }
}

/// An API request sees the tables as they are on disk now (within [`REFRESH`]).
async fn refresh_first(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    // A `stat` per open table: off the async threads, like the probes.
    let s = state.clone();
    let _ = tokio::task::spawn_blocking(move || s.refresh()).await;
    next.run(req).await
}

/// How long a request may take before it is answered 503: probing, lines, lists and pages.
pub(crate) const QUICK: Duration = Duration::from_secs(30);
/// The same for a table's statistics, a full pass over the table on its first request (seconds
/// for 100 M positions; a large table with pawns on a slow machine takes longer).
pub(crate) const FULL_PASS: Duration = Duration::from_secs(600);

/// A request taking longer than `limit` is answered 503.
pub(crate) fn timeout(limit: Duration) -> tower_http::timeout::TimeoutLayer {
    tower_http::timeout::TimeoutLayer::with_status_code(
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        limit,
    )
}

/// The whole application: API, page, assets, with compression, timeouts and request logs.
pub fn router(state: Arc<State>, log_requests: bool) -> Router {
    use tower_http::compression::CompressionLayer;
    let refreshed = axum::middleware::from_fn_with_state(state.clone(), refresh_first);
    let app = Router::new()
        .merge(api::routes().layer(refreshed))
        .merge(assets::routes().layer(timeout(QUICK)))
        .with_state(state);
    // Inside compression: the error answers are read and rewritten before they are compressed.
    let app = errors_answered(app).layer(CompressionLayer::new());
    if log_requests {
        app.layer(
            tower_http::trace::TraceLayer::new_for_http()
                .make_span_with(|req: &axum::http::Request<_>| {
                    tracing::info_span!("request", method = %req.method(), uri = %req.uri())
                })
                .on_request(())
                .on_response(
                    |res: &axum::http::Response<_>, latency: Duration, _span: &tracing::Span| {
                        let status = res.status().as_u16();
                        let ms = format_args!("{:.3}", latency.as_secs_f64() * 1000.0);
                        if status >= 500 {
                            tracing::error!(status, %ms, "response");
                        } else {
                            tracing::info!(status, %ms, "response");
                        }
                    },
                )
                .on_failure(()),
        )
    } else {
        app
    }
}

/// A panic in a handler answers 500 (and is logged) instead of dropping the connection; every
/// error answer gets `no-store` and, under `/api/`, a JSON body.
fn errors_answered(app: Router) -> Router {
    app.layer(tower_http::catch_panic::CatchPanicLayer::custom(panicked))
        .layer(axum::middleware::from_fn(error_answer))
}

fn panicked(payload: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!("a request panicked: {what}");
    api::error_response(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        "internal error: the server failed on this request (a bug: please report it)",
    )
}

/// An error must not be cached: a 404 becomes a 200 once its table is built, a 503 passes. An
/// API client reads JSON: what axum answers by itself (a method not allowed, a rejected
/// extractor) or a bare timeout becomes `{"error": ...}` too.
async fn error_answer(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{header, HeaderValue};
    let path = req.uri().path();
    let api = path == "/api" || path.starts_with("/api/");
    let r = next.run(req).await;
    if !(r.status().is_client_error() || r.status().is_server_error()) {
        return r;
    }
    let is_json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let mut r = if api && !is_json {
        api::json_error(r).await
    } else {
        r
    };
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Binds, says where it listens and how many tables it found, and serves until Ctrl-C or
/// SIGTERM. Port 0 picks a free port; the line printed names it.
pub async fn run(config: Config) -> std::io::Result<()> {
    let tables = query::table_materials(&config.dir).map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot read table directory {}: {e}", config.dir.display()),
        )
    })?;
    let listener = listen::bind(config.addr).map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", config.addr))
    })?;
    let addr = listener.local_addr()?;
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    // A table's cache never holds more than its blocks (a table that cannot be opened now
    // counts nothing: requests will say what is wrong with it).
    let bound: u64 = tables
        .iter()
        .filter_map(|m| {
            crate::table::TableFile::open(&crate::table::table_path(&config.dir, *m), 0).ok()
        })
        .map(|t| crate::table::cache_limit(t.header(), config.cache_bytes) as u64)
        .sum();
    println!(
        "xqtb serve: listening on http://{addr}/ with {} table{} from {} \
         (block cache {:.0} MiB per open table, {:.1} MiB at most in all)",
        tables.len(),
        if tables.len() == 1 { "" } else { "s" },
        config.dir.display(),
        mib(config.cache_bytes as u64),
        mib(bound)
    );
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let state = Arc::new(State::new(&config));
    let app = router(state, config.log_requests);
    listen::serve(listener, app, config.limits, shutdown_signal()).await;
    println!("xqtb serve: stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    // Not on stdout: this runs on a worker thread while the main thread holds stdout.
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{header, Request, StatusCode};
    use axum::routing::get;
    use tower::ServiceExt;

    async fn boom() -> &'static str {
        panic!("boom")
    }

    /// Routes that fail in ways the real ones never should, behind the same layers.
    fn failing() -> Router {
        let slow = || async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "late"
        };
        let app = Router::new()
            .route("/api/boom", get(boom))
            .route(
                "/api/plain",
                get(|| async { (StatusCode::CONFLICT, "plain text") }),
            )
            .route("/api/slow", get(slow))
            .route("/slow", get(slow))
            .route("/boom", get(boom))
            .layer(timeout(Duration::from_millis(50)));
        errors_answered(app)
    }

    async fn call(path: &str) -> (StatusCode, axum::http::HeaderMap, String) {
        let req = Request::get(path).body(axum::body::Body::empty()).unwrap();
        let r = failing().oneshot(req).await.unwrap();
        let (parts, body) = r.into_parts();
        let body = axum::body::to_bytes(body, 1 << 16).await.unwrap();
        (
            parts.status,
            parts.headers,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    #[tokio::test]
    async fn every_error_is_never_cached_and_json_under_api() {
        for (path, status, text) in [
            ("/api/boom", 500, "internal error"),
            ("/boom", 500, "internal error"),
            ("/api/plain", 409, "plain text"),
            ("/api/slow", 503, "service unavailable"),
        ] {
            let (s, headers, body) = call(path).await;
            assert_eq!(s.as_u16(), status, "{path}");
            assert_eq!(headers[header::CACHE_CONTROL], "no-store", "{path}");
            assert_eq!(headers[header::CONTENT_TYPE], "application/json", "{path}");
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            let e = v["error"].as_str().unwrap_or_else(|| panic!("{path}: {v}"));
            assert!(e.contains(text), "{path}: {e:?}");
        }
        // A page's timeout stays a bare 503, but is not cached either.
        let (s, headers, _) = call("/slow").await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    }
}
