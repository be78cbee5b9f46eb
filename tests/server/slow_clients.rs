//! `xqtb serve` against slow and abusive clients, on loopback and with small limits (32
//! connections, 1 s for a request head, 2 s idle): a flood of stalled connections is capped and
//! closed while a normal request is still answered; an idle kept-alive connection and a head
//! trickling in byte by byte are closed. `scripts/flood_serve.sh` runs the bigger flood against
//! a release build and measures its memory.

use crate::common::xqtb;
use crate::support::{get, Server};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const CAP: usize = 32;
const HEADER: Duration = Duration::from_secs(1);
const IDLE: Duration = Duration::from_secs(2);
/// A timer may fire late on a loaded machine, never early; the clocks of the test and the
/// server differ by the time a connection takes to be accepted.
const EARLY: Duration = Duration::from_millis(100);

fn start(dir: &std::path::Path) -> Server {
    Server::start_with(
        dir,
        &[
            "--max-connections",
            "32",
            "--header-timeout",
            "1",
            "--idle-timeout",
            "2",
        ],
    )
}

/// The sockets the server process holds: its listener and its accepted connections.
fn open_sockets(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path()).is_ok_and(|l| l.to_string_lossy().starts_with("socket:"))
        })
        .count()
}

/// Reads from `conn` until the server closes it (end of stream or reset), for up to `limit`:
/// the time from `from` when it did, `None` if it is still open.
fn closed_by_server(conn: &mut TcpStream, from: Instant, limit: Duration) -> Option<Duration> {
    let end = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        conn.set_read_timeout(Some(left)).unwrap();
        match conn.read(&mut buf) {
            Ok(0) => return Some(from.elapsed()),
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return None
            }
            Err(_) => return Some(from.elapsed()),
        }
    }
}

/// One answer on a kept-alive connection: its head and `content-length` bytes of body.
fn read_answer(conn: &mut TcpStream) -> String {
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        conn.read_exact(&mut byte).expect("an answer");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(String::from)
        })
        .expect("a content-length")
        .trim()
        .parse()
        .unwrap();
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).unwrap();
    head
}

#[test]
fn a_flood_of_stalled_connections_is_capped_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let pid = server.child.id();
    let listener = open_sockets(pid);
    let sent = Instant::now();
    let mut stalled: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut c = TcpStream::connect(server.addr()).unwrap();
            c.write_all(b"GET /api/tables HTTP/1.1\r\nHost: loopback\r\n")
                .unwrap();
            c
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // The kernel completed all 100 handshakes; the server accepted the cap's worth.
    let held = open_sockets(pid) - listener;
    assert!((1..=CAP).contains(&held), "{held} connections held");

    // A normal request waits in the backlog behind 68 stalled ones, 32 freed per second.
    let asked = Instant::now();
    let r = get(&server.url("/robots.txt"));
    assert_eq!(r.status, 200);
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "{:?}",
        asked.elapsed()
    );

    // Every stalled connection is closed by the server, after the header timeout.
    for (i, c) in stalled.iter_mut().enumerate() {
        let left = Duration::from_secs(15).saturating_sub(sent.elapsed());
        let at = closed_by_server(c, sent, left)
            .unwrap_or_else(|| panic!("stalled connection {i} still open after 15 s"));
        assert!(at >= HEADER - EARLY, "connection {i} closed after {at:?}");
    }
    assert_eq!(open_sockets(pid), listener, "every connection closed");

    // A stop with stalled connections open is still clean.
    let _open: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut c = TcpStream::connect(server.addr()).unwrap();
            c.write_all(b"GET / HTTP/1.1\r\n").unwrap();
            c
        })
        .collect();
    let (ok, log) = server.stop();
    assert!(ok, "{log}");
    assert!(
        log.contains("32 connections open"),
        "the cap is logged: {log}"
    );
    assert!(!log.contains("ERROR") && !log.contains("panicked"), "{log}");
}

#[test]
fn idle_and_trickling_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    // Two requests on one kept-alive connection, then silence.
    let mut c = TcpStream::connect(server.addr()).unwrap();
    let mut sent = Instant::now();
    for _ in 0..2 {
        // Taken before the request goes: the server's idle clock starts after it answers, so
        // however late this thread runs again, the close cannot come before `sent + IDLE`.
        sent = Instant::now();
        c.write_all(b"GET /robots.txt HTTP/1.1\r\nHost: loopback\r\n\r\n")
            .unwrap();
        let head = read_answer(&mut c);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    }
    let at = closed_by_server(&mut c, sent, Duration::from_secs(10))
        .expect("an idle connection is closed");
    // The idle timeout, not the (shorter) header timeout.
    assert!(
        at >= IDLE - EARLY && at < IDLE * 4,
        "closed {at:?} after the last request"
    );

    // A head sent a byte every 100 ms: bytes keep coming, it is cut at the header timeout.
    let mut t = TcpStream::connect(server.addr()).unwrap();
    let start = Instant::now();
    let head = b"GET /robots.txt HTTP/1.1\r\nHost: loopback\r\nUser-Agent: slow\r\n\r\n";
    let mut closed = None;
    for b in head {
        if t.write_all(&[*b]).is_err() {
            closed = Some(start.elapsed());
            break;
        }
        closed = closed_by_server(&mut t, start, Duration::from_millis(100));
        if closed.is_some() {
            break;
        }
    }
    let at = closed.expect("a trickled head is cut");
    assert!(
        at >= HEADER - EARLY && at < HEADER * 3,
        "closed after {at:?}"
    );
    // The server still answers.
    assert_eq!(get(&server.url("/robots.txt")).status, 200);
}

#[test]
fn limits_are_checked() {
    for (option, value) in [
        ("--max-connections", "0"),
        ("--header-timeout", "0"),
        ("--idle-timeout", "soon"),
    ] {
        // No such directory: were the value accepted, the server would stop at once anyway.
        let out = xqtb()
            .args(["serve", "--addr", "127.0.0.1:0", option, value])
            .args(["--dir", "/nonexistent/xqtb-tables"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{option} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(option), "{option} {value}: {err}");
    }
}
