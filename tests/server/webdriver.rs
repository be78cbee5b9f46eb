//! A small W3C WebDriver client for the browser test: Debian's `chromedriver` driving Debian's
//! `chromium` headless, over loopback. Only what the test uses: navigate, find, click, text,
//! run a script, back/forward, window size, screenshot.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The installed browser and driver, if any.
pub fn find_browser() -> Option<(PathBuf, PathBuf)> {
    let browser = std::env::var_os("XQTB_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| which(&["chromium", "chromium-browser"]))?;
    let driver = std::env::var_os("XQTB_CHROMEDRIVER")
        .map(PathBuf::from)
        .or_else(|| which(&["chromedriver"]))?;
    Some((browser, driver))
}

/// The browser and driver for the browser test `what`. Without them: under `CI=true` a
/// failure (`.ci/run` installs them), else `None` after a notice on stderr, past the test
/// harness's capture, so that `cargo test` shows the skip.
pub fn browser_for(what: &str) -> Option<(PathBuf, PathBuf)> {
    let found = find_browser();
    if found.is_none() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true but chromium / chromedriver are not installed (.ci/run installs them)");
        }
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "NOTICE: {what} skipped: no chromium + chromedriver on PATH \
             (bash scripts/install-browser.sh installs them; with CI=true this fails)"
        );
    }
    found
}

/// Where the browser tests save their screenshots (`target/tmp/browser-screenshots/`).
pub fn screenshots() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-screenshots");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A chromedriver process and one browser session; both end when dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    _profile: tempfile::TempDir,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn call(method: &str, url: &str, body: Option<Value>) -> Result<Value, String> {
    let a = agent();
    let resp = match (method, body) {
        ("GET", _) => a.get(url).call(),
        ("DELETE", _) => a.delete(url).call(),
        (_, b) => a
            .post(url)
            .content_type("application/json")
            .send(b.unwrap_or(json!({})).to_string()),
    };
    let mut resp = resp.map_err(|e| format!("{method} {url}: {e}"))?;
    let status = resp.status().as_u16();
    let text = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{url}: {e}: {text}"))?;
    if status >= 400 {
        return Err(format!("{method} {url}: {status} {}", v["value"]));
    }
    Ok(v["value"].clone())
}

impl Browser {
    pub fn start(browser: &Path, driver: &Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let t0 = Instant::now();
        while call("GET", &format!("{base}/status"), None)
            .map(|v| v["ready"] != true)
            .unwrap_or(true)
        {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().unwrap();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--force-device-scale-factor=1",
            "--lang=en-US",
            "--window-size=1280,1000",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("--user-data-dir={}", profile.path().display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": browser.to_string_lossy(), "args": args},
        }}});
        let mut driver = child;
        let v = match call("POST", &format!("{base}/session"), Some(caps)) {
            Ok(v) => v,
            Err(e) => {
                let _ = driver.kill();
                panic!("new browser session: {e}");
            }
        };
        let session = v["sessionId"].as_str().unwrap().to_string();
        Browser {
            driver,
            base,
            session,
            _profile: profile,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{path}", self.base, self.session)
    }

    pub fn goto(&self, url: &str) {
        call("POST", &self.url("/url"), Some(json!({ "url": url }))).unwrap();
    }

    pub fn current_url(&self) -> String {
        call("GET", &self.url("/url"), None)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns its value.
    pub fn eval(&self, script: &str, args: Value) -> Value {
        call(
            "POST",
            &self.url("/execute/sync"),
            Some(json!({ "script": script, "args": args })),
        )
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Waits until `script` returns something other than null/false/"" (90 s at most: a busy
    /// CI machine may be slow; a passing run waits far less).
    pub fn wait_for(&self, what: &str, script: &str) -> Value {
        let t0 = Instant::now();
        loop {
            let v = self.eval(script, json!([]));
            if !(v.is_null() || v == false || v == "") {
                return v;
            }
            if t0.elapsed() > Duration::from_secs(90) {
                let page = self.eval("return document.body.innerText", json!([]));
                panic!("timed out waiting for {what}; page text:\n{page}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn element(&self, css: &str) -> String {
        let v = call(
            "POST",
            &self.url("/element"),
            Some(json!({"using": "css selector", "value": css})),
        )
        .unwrap_or_else(|e| panic!("no element {css}: {e}"));
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(|x| x.as_str())
            .unwrap()
            .to_string()
    }

    /// A real click (the driver moves the pointer there and clicks).
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        call("POST", &self.url(&format!("/element/{id}/click")), None)
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    pub fn text(&self, css: &str) -> String {
        let id = self.element(css);
        call("GET", &self.url(&format!("/element/{id}/text")), None)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    pub fn back(&self) {
        call("POST", &self.url("/back"), None).unwrap();
    }

    pub fn forward(&self) {
        call("POST", &self.url("/forward"), None).unwrap();
    }

    pub fn window_size(&self, width: u32, height: u32) {
        call(
            "POST",
            &self.url("/window/rect"),
            Some(json!({"width": width, "height": height})),
        )
        .unwrap();
    }

    /// Saves a PNG screenshot of the viewport.
    pub fn screenshot(&self, path: &Path) {
        let b64 = call("GET", &self.url("/screenshot"), None).unwrap();
        let png = base64_decode(b64.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = call("DELETE", &self.url(""), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}
