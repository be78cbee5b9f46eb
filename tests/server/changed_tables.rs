//! Tables changed on disk under a running server: one truncated in place answers 503 naming it
//! while the others keep serving (the server once died of SIGBUS there, taking every table
//! down), and once written whole again it is noticed and served anew.

use crate::common::built;
use crate::support::{enc, get, Server};
use std::time::Duration;
use xqtb::{to_fen, Color, Indexer};

/// Legal positions of `material` spread over its index, with `turn` to move.
fn spread(material: &str, turn: Color, n: u64) -> Vec<String> {
    let ix = Indexer::new(material.parse().unwrap()).unwrap();
    (0..ix.size())
        .step_by((ix.size() / n).max(1) as usize)
        .filter_map(|i| ix.decode(i, turn).filter(|p| !p.opponent_in_check()))
        .map(|p| to_fen(&p))
        .collect()
}

/// Longer than the server's interval between looks at the files (1 s).
const NOTICED: Duration = Duration::from_millis(1500);

#[test]
fn a_table_truncated_then_restored_under_a_running_server() {
    let dir = built(&["KRKAABB", "KNKA"]);
    let server = Server::start(dir.path());
    let probe = |fen: &str| get(&server.url(&format!("/api/probe?fen={}", enc(fen))));
    let red = spread("KRKAABB", Color::Red, 40);
    let black = spread("KRKAABB", Color::Black, 40);
    let knka = &spread("KNKA", Color::Red, 5)[0];
    let before: Vec<String> = red.iter().map(|f| probe(f).body).collect();
    assert!(red
        .iter()
        .zip(&before)
        .all(|(f, b)| b.contains(f.split(' ').next().unwrap())));
    let path = dir.path().join("KRKAABB.xqtb");
    let good = std::fs::read(&path).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(good.len() as u64 / 3).unwrap();
    // Black's blocks were never read: now they cannot be.
    for fen in &black {
        let r = probe(fen);
        assert!(
            r.status == 200 || r.status == 503,
            "{fen}: {} {}",
            r.status,
            r.body
        );
        if r.status == 503 {
            assert!(r.json()["error"].as_str().unwrap().contains("KRKAABB.xqtb"));
            assert_eq!(r.header("cache-control"), Some("no-store"));
        }
    }
    std::thread::sleep(NOTICED);
    let r = probe(&red[0]);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(
        r.json()["error"].as_str().unwrap().contains("KRKAABB.xqtb"),
        "{}",
        r.body
    );
    assert_eq!(probe(knka).status, 200, "the other tables keep serving");
    std::os::unix::fs::FileExt::write_all_at(&f, &good, 0).unwrap();
    drop(f);
    std::thread::sleep(NOTICED);
    let after: Vec<String> = red.iter().map(|f| probe(f).body).collect();
    assert_eq!(after, before, "served anew, and right");
    let (clean, log) = server.stop();
    assert!(clean, "{log}");
    assert!(log.contains("tables changed on disk"), "{log}");
}
