//! Shared by the server tests: starting `xqtb serve` on a free loopback port, and plain HTTP
//! requests.

use crate::common::xqtb;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

/// A running `xqtb serve`, stopped (SIGTERM) when dropped.
pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The first line it printed.
    pub banner: String,
    /// Reads the server's log (stderr) as it comes, so that a long log never fills the pipe
    /// and blocks the server; joined by `stop`.
    log: Option<JoinHandle<String>>,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    /// With more options of `xqtb serve` (limits).
    pub fn start_with(dir: &Path, options: &[&str]) -> Server {
        let mut child = xqtb()
            .args(["serve", "--addr", "127.0.0.1:0", "--dir"])
            .arg(dir)
            .args(options)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start xqtb serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut banner = String::new();
        out.read_line(&mut banner).expect("read the banner");
        let base = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {banner:?}"))
            .trim_end_matches('/')
            .to_string();
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            let _ = out.read_to_string(&mut sink);
        });
        let mut stderr = child.stderr.take().unwrap();
        let log = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Server {
            child,
            base,
            banner,
            log: Some(log),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `127.0.0.1:PORT`, for raw TCP connections.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// Stops the server as Ctrl-C does (SIGINT) and returns its exit success and its log
    /// (stderr).
    pub fn stop(mut self) -> (bool, String) {
        let ok = signal(&mut self.child, "-INT");
        let log = self
            .log
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (ok, log)
    }
}

/// Sends a signal to the child (by its pid) and waits up to 60 s (a busy machine) for it to
/// exit; kills it if it has not.
fn signal(child: &mut Child, sig: &str) -> bool {
    let _ = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status();
    for _ in 0..1200 {
        if let Ok(Some(s)) = child.try_wait() {
            return s.success();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal(&mut self.child, "-TERM");
        }
    }
}

/// An HTTP response: status, headers, body text.
pub struct Reply {
    pub status: u16,
    pub headers: ureq::http::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .max_redirects_will_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

/// GET `url` with extra headers.
pub fn get_with(url: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = agent().get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_default();
    Reply {
        status,
        headers,
        body,
    }
}

pub fn get(url: &str) -> Reply {
    get_with(url, &[])
}

/// `method` on `url`, with an empty body.
pub fn request(method: &str, url: &str) -> Reply {
    request_with(method, url, &[])
}

/// `method` on `url` with extra headers, with an empty body.
pub fn request_with(method: &str, url: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = ureq::http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(&b""[..]).unwrap();
    let mut resp = agent()
        .run(req)
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    Reply {
        status: resp.status().as_u16(),
        headers: resp.headers().clone(),
        body: resp.body_mut().read_to_string().unwrap_or_default(),
    }
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `xqtb probe --json` of `fen` in `dir`, which must succeed.
pub fn cli_probe(dir: &Path, fen: &str) -> serde_json::Value {
    let out = xqtb()
        .args(["probe", "--json", "--dir"])
        .arg(dir)
        .arg(fen)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
