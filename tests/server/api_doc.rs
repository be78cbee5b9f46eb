//! formats/api.md's examples are the real server's answers: the tables the document names are
//! built here (KNKA and KPK, and KCK with one byte of its first block flipped), `xqtb serve`
//! answers every example's request, and its status, the headers the example shows and its JSON
//! (long lists cut as `scripts/api-examples.sh` cuts them) must be what the document prints.

use crate::common::built;
use crate::support::{get, Server};
use serde_json::Value;

/// One example: `GET <path>`, its status line, the headers shown, the JSON body if any.
struct Example {
    path: String,
    status: u16,
    headers: Vec<(String, String)>,
    body: Option<Value>,
}

/// The examples block of formats/api.md: the banner line, then the examples.
fn examples() -> (String, Vec<Example>) {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/formats/api.md"))
        .expect("read formats/api.md");
    let section = &doc[doc.find("## Examples").expect("an Examples section")..];
    let block = section
        .split("```\n")
        .find(|b| b.starts_with("xqtb serve: listening"))
        .expect("a block starting with the server's banner");
    let mut parts = block.split("\nGET ");
    let banner = parts.next().unwrap().trim().to_string();
    let list = parts
        .map(|p| {
            let mut lines = p.lines();
            let path = lines.next().unwrap().to_string();
            let status = lines
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{path}: no status line"));
            let mut headers = Vec::new();
            let mut json = String::new();
            for l in lines {
                if json.is_empty() && !l.starts_with('{') {
                    if let Some((k, v)) = l.split_once(": ") {
                        headers.push((k.to_string(), v.to_string()));
                    }
                } else {
                    json += l;
                    json.push('\n');
                }
            }
            let body = (!json.trim().is_empty()).then(|| {
                serde_json::from_str(&json).unwrap_or_else(|e| panic!("{path}: {e}\n{json}"))
            });
            Example {
                path,
                status,
                headers,
                body,
            }
        })
        .collect();
    (banner, list)
}

/// Cuts long lists as the example script does: more than three entries under one of these keys
/// become the first two and `"... N more"`.
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

#[test]
fn api_examples_are_the_servers_answers() {
    let (banner, list) = examples();
    assert!(list.len() >= 8, "{} examples", list.len());
    let dir = built(&["KNKA", "KPK", "KCK"]);
    let kck = dir.path().join("KCK.xqtb");
    let mut bytes = std::fs::read(&kck).unwrap();
    bytes[300] ^= 0x55;
    std::fs::write(&kck, bytes).unwrap();
    let server = Server::start(dir.path());
    let shown_dir = dir.path().display().to_string();
    let local = |s: &str| {
        s.replace(&shown_dir, "tables")
            .replace(&server.base, "http://127.0.0.1:8080")
    };
    assert_eq!(local(server.banner.trim()), banner);
    let mut statuses = Vec::new();
    for ex in &list {
        let r = get(&server.url(&ex.path));
        assert_eq!(r.status, ex.status, "{}: {}", ex.path, r.body);
        statuses.push(r.status);
        for (k, v) in &ex.headers {
            assert_eq!(r.header(k), Some(v.as_str()), "{}: header {k}", ex.path);
        }
        match &ex.body {
            None => assert!(r.body.trim().is_empty(), "{}: {}", ex.path, r.body),
            Some(want) => {
                let mut got: Value = serde_json::from_str(&local(&r.body)).unwrap();
                cut(&mut got);
                assert_eq!(&got, want, "{}", ex.path);
            }
        }
    }
    for s in [200, 301, 400, 404, 503] {
        assert!(statuses.contains(&s), "the examples show a {s}");
    }
}
