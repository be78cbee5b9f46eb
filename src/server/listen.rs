//! The connection loop of `xqtb serve`: hyper's HTTP/1 over each accepted TCP connection, with a
//! bound on open connections and two deadlines per connection, so that slow, stalled or idle
//! clients cannot hold the server's memory and sockets (`docs/serve-threat-model.md`).
//!
//! - At most [`Limits::max_connections`] connections are open at once. At the cap the loop stops
//!   accepting: further connections wait in the kernel's listen backlog and are served as slots
//!   free, which the deadlines below guarantee. (Accepting and closing them at once would turn
//!   every client away while the cap is full, with an empty answer that it takes as a failure.)
//! - A request head must arrive whole within [`Limits::header_timeout`] of its first byte (of
//!   the accept, for a connection's first request), however slowly it trickles in.
//! - While the server waits on the client, to read its answer or to send another request on a
//!   kept-alive connection, nothing moving for [`Limits::idle_timeout`] closes the connection.
//!
//! hyper's own `header_read_timeout` cannot express this: its timer also runs while a
//! kept-alive connection is idle, which would make the idle timeout the header timeout. So
//! hyper's is off, and a watchdog per connection ([`Clock`]) follows the connection's phase:
//! the reads and writes of its socket ([`Watched`]) and the calls of the service.

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Connections open at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Time for a request head to arrive whole, from its first byte.
    pub header_timeout: Duration,
    /// Time without a byte moving while the server waits on the client.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    /// 512 connections: far more than a few people's browsers open (six each), and few enough
    /// that all of them together hold tens of MiB at most. 10 s for a head: a client on a bad
    /// link sends one in well under a second. 30 s idle: a person reading a position and
    /// clicking again reuses the connection, and a quiet client holds a slot half a minute.
    fn default() -> Limits {
        Limits {
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// The most a connection buffers of a request head (hyper's read buffer): the API's requests
/// are short GETs, a browser's headers a few KiB; the default (~400 KiB) would let the open
/// connections alone hold 200 MiB.
const MAX_BUFFER: usize = 64 << 10;

/// Connections the kernel completes and queues for the server beyond those it serves: at the
/// cap they wait here. Two caps' worth cost the kernel a few KiB each, the server nothing; past
/// them the kernel drops new handshakes and clients retry by themselves. (The default, 128,
/// is std's and tokio's; the kernel lowers it to `net.core.somaxconn`.)
const BACKLOG: u32 = 1024;

/// How often at most the log says that the cap is reached (a flood would repeat it per slot).
const CAP_WARNING_EVERY: Duration = Duration::from_secs(60);

/// A listener on `addr` with a backlog of [`BACKLOG`].
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    // As std and tokio do: a restarted server can bind while old connections linger.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Serves `app` on `listener` within `limits` until `signal`, then stops accepting, lets each
/// connection finish the request it is answering and waits for all to close.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    signal: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    // Dropping the sender tells every connection to stop.
    let (stop, stopping) = watch::channel(());
    let mut warned: Option<Instant> = None;
    tokio::pin!(signal);
    loop {
        let (tcp, slot) = tokio::select! {
            biased;
            () = &mut signal => break,
            a = accept(&listener, &slots, limits, &mut warned) => a,
        };
        tokio::spawn(connection(tcp, app.clone(), limits, stopping.clone(), slot));
    }
    // Connections waiting in the backlog are refused now rather than served during shutdown.
    drop(listener);
    drop(stop);
    // Each connection gives its slot back when it closes.
    let all = u32::try_from(limits.max_connections).expect("the option bounds it");
    let _ = slots.acquire_many(all).await;
}

/// The next connection, once a slot is free. Errors of one connection (reset before it was
/// accepted) are skipped; others (out of file descriptors) are logged and retried after a
/// second, as they may pass when connections close.
async fn accept(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
    limits: Limits,
    warned: &mut Option<Instant>,
) -> (TcpStream, OwnedSemaphorePermit) {
    if slots.available_permits() == 0 && warned.is_none_or(|t| t.elapsed() >= CAP_WARNING_EVERY) {
        tracing::warn!(
            "{} connections open (--max-connections): new ones wait until one closes",
            limits.max_connections
        );
        *warned = Some(Instant::now());
    }
    let slot = slots.clone().acquire_owned().await.expect("never closed");
    loop {
        match listener.accept().await {
            Ok((tcp, _)) => return (tcp, slot),
            Err(e) if is_connection_error(&e) => {}
            Err(e) => {
                tracing::error!("cannot accept a connection: {e} (retrying in 1 s)");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// An error of the one connection being accepted (reset before it was): the next may succeed.
fn is_connection_error(e: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | ConnectionRefused
    )
}

/// Serves one connection until the client or the server closes it, a deadline passes, or the
/// server stops (the request being answered is finished first). Holds `_slot` until then.
async fn connection(
    tcp: TcpStream,
    app: Router,
    limits: Limits,
    mut stopping: watch::Receiver<()>,
    _slot: OwnedSemaphorePermit,
) {
    let clock = Arc::new(Clock::new(limits));
    let io = TokioIo::new(Watched {
        tcp,
        clock: clock.clone(),
    });
    let service = {
        let clock = clock.clone();
        hyper::service::service_fn(move |req| {
            clock.set(Phase::Busy);
            let answer = app.clone().oneshot(req);
            let clock = clock.clone();
            async move {
                let r = answer.await;
                clock.set(Phase::Waiting(Instant::now()));
                r
            }
        })
    };
    let conn = http1::Builder::new()
        .header_read_timeout(None)
        .max_buf_size(MAX_BUFFER)
        .serve_connection(io, service);
    tokio::pin!(conn);
    let expired = clock.expired();
    tokio::pin!(expired);
    let mut draining = false;
    loop {
        tokio::select! {
            // A client's error (a reset, a malformed request hyper answered 400) ends only
            // this connection: nothing to report.
            _ = conn.as_mut() => return,
            // Dropping the connection closes the socket.
            () = &mut expired => return,
            _ = stopping.changed(), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Where a connection is, for its deadline.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Waiting for or reading a request head, since then: due whole by the header timeout.
    Head(Instant),
    /// A request being answered: the request timeouts of the router bound it.
    Busy,
    /// Sending an answer, or idle between requests; the last time a byte moved.
    Waiting(Instant),
}

/// One connection's phase, and the watchdog's wake-up when its deadline may have come closer.
struct Clock {
    phase: Mutex<Phase>,
    moved: Notify,
    limits: Limits,
}

impl Clock {
    /// A new connection waits for its first request head.
    fn new(limits: Limits) -> Clock {
        Clock {
            phase: Mutex::new(Phase::Head(Instant::now())),
            moved: Notify::new(),
            limits,
        }
    }

    fn set(&self, phase: Phase) {
        *self.phase.lock().unwrap() = phase;
        self.moved.notify_one();
    }

    /// Bytes came in at `now`: on a connection waiting on the client, the first of a new
    /// request head.
    fn read(&self, now: Instant) {
        let mut phase = self.phase.lock().unwrap();
        if let Phase::Waiting(_) = *phase {
            *phase = Phase::Head(now);
            drop(phase);
            self.moved.notify_one();
        }
    }

    /// Bytes went out at `now`: the client is reading the answer. (A later deadline: no
    /// wake-up.)
    fn wrote(&self, now: Instant) {
        if let Phase::Waiting(t) = &mut *self.phase.lock().unwrap() {
            *t = now;
        }
    }

    fn deadline(&self) -> Option<Instant> {
        match *self.phase.lock().unwrap() {
            Phase::Head(t) => Some(t + self.limits.header_timeout),
            Phase::Busy => None,
            Phase::Waiting(t) => Some(t + self.limits.idle_timeout),
        }
    }

    /// Resolves once the deadline of the current phase has passed.
    async fn expired(&self) {
        loop {
            match self.deadline() {
                Some(d) if d <= Instant::now() => return,
                Some(d) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(d) => {}
                        () = self.moved.notified() => {}
                    }
                }
                None => self.moved.notified().await,
            }
        }
    }
}

/// A connection's socket, telling its [`Clock`] when bytes move.
struct Watched {
    tcp: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut me.tcp).poll_read(cx, buf);
        if buf.filled().len() > before {
            me.clock.read(Instant::now());
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.tcp).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            me.clock.wrote(Instant::now());
        }
        r
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.tcp).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            me.clock.wrote(Instant::now());
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(header_ms: u64, idle_ms: u64) -> Limits {
        Limits {
            max_connections: 1,
            header_timeout: Duration::from_millis(header_ms),
            idle_timeout: Duration::from_millis(idle_ms),
        }
    }

    #[test]
    fn each_phase_has_its_deadline() {
        let s = Duration::from_secs;
        let clock = Clock::new(limits(10_000, 30_000));
        let Phase::Head(start) = *clock.phase.lock().unwrap() else {
            panic!("a new connection waits for a head")
        };
        assert_eq!(clock.deadline(), Some(start + s(10)));
        // Bytes of a head, and writes, do not push its deadline back.
        clock.read(start + s(4));
        clock.wrote(start + s(4));
        assert_eq!(clock.deadline(), Some(start + s(10)));
        clock.set(Phase::Busy);
        assert_eq!(clock.deadline(), None);
        clock.read(start + s(50));
        assert_eq!(clock.deadline(), None);
        clock.set(Phase::Waiting(start + s(100)));
        assert_eq!(clock.deadline(), Some(start + s(130)));
        // The client reading the answer keeps the connection.
        clock.wrote(start + s(120));
        assert_eq!(clock.deadline(), Some(start + s(150)));
        // The first byte of the next request starts its head's 10 s; the next bytes do not.
        clock.read(start + s(125));
        clock.read(start + s(126));
        assert_eq!(clock.deadline(), Some(start + s(135)));
    }

    /// The watchdog wakes for a deadline that came closer, and not while a request is answered.
    #[tokio::test]
    async fn the_watchdog_follows_the_phase() {
        let clock = Arc::new(Clock::new(limits(100, 60_000)));
        clock.set(Phase::Waiting(Instant::now()));
        let start = Instant::now();
        let watch = tokio::spawn({
            let clock = clock.clone();
            async move { clock.expired().await }
        });
        // The watchdog sleeps towards the idle deadline, a minute away, until bytes come.
        tokio::time::sleep(Duration::from_millis(50)).await;
        clock.read(Instant::now());
        tokio::time::timeout(Duration::from_secs(20), watch)
            .await
            .expect("woken for the head's deadline")
            .unwrap();
        assert!(start.elapsed() >= Duration::from_millis(150));

        clock.set(Phase::Busy);
        let busy = tokio::time::timeout(Duration::from_millis(300), clock.expired()).await;
        assert!(busy.is_err(), "no deadline while answering");
    }
}
