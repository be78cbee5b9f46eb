//! What the process has used so far: CPU time of all its threads, and bytes it had the kernel
//! read from and write to storage. `build --verbose` prints the difference over each phase, so
//! a phase line says whether both cores were busy and where a streamed build's disk traffic goes.

/// The process's usage at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    /// User and system CPU seconds, all threads.
    pub cpu_seconds: f64,
    /// Bytes read from and written to storage (`/proc/self/io`: `read_bytes`, `write_bytes`;
    /// bytes the page cache absorbed are not counted as read, and a write counts when the
    /// kernel accounts it for writeback); `None` where the system does not say.
    pub io: Option<(u64, u64)>,
}

impl Usage {
    /// The usage now.
    pub fn now() -> Usage {
        Usage {
            cpu_seconds: cpu_seconds(),
            io: storage_bytes(),
        }
    }

    /// What was used since `earlier`, over `wall` seconds, as a phase line's tail: `CPU 190 %,
    /// wrote 1.2 GB, read 0.3 GB`.
    pub fn since(&self, earlier: &Usage, wall: f64) -> String {
        let cpu = (self.cpu_seconds - earlier.cpu_seconds).max(0.0);
        let mut s = format!("CPU {:.0} %", 100.0 * cpu / wall.max(1e-9));
        if let (Some((r1, w1)), Some((r0, w0))) = (self.io, earlier.io) {
            s += &format!(
                ", wrote {}, read {}",
                bytes(w1.saturating_sub(w0)),
                bytes(r1.saturating_sub(r0))
            );
        }
        s
    }
}

/// A byte count for people: `812 kB`, `3.4 MB`, `1.21 GB`.
pub fn bytes(n: u64) -> String {
    match n {
        n if n < 1_000_000 => format!("{} kB", n.div_ceil(1000)),
        n if n < 1_000_000_000 => format!("{:.1} MB", n as f64 / 1e6),
        n => format!("{:.2} GB", n as f64 / 1e9),
    }
}

/// User and system CPU seconds of every thread of the process so far.
fn cpu_seconds() -> f64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // Safety: `getrusage` fills the struct it is given (zeroed, so valid even if it did not)
    // and keeps no pointer to it.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) } == 0;
    if !ok {
        return 0.0;
    }
    // Safety: zero-initialised above and filled by a successful call.
    let ru = unsafe { ru.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(ru.ru_utime) + secs(ru.ru_stime)
}

/// The process's resident memory sampled every 20 ms by a thread of its own, the highest sample
/// since the last [`RssPeak::restart`]: a phase's peak, where the kernel keeps only the
/// process's (resetting that one, `/proc/self/clear_refs`, would also lower the peak the
/// process reports at its end, which `scripts/scale.sh` reads).
pub struct RssPeak {
    peak: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl RssPeak {
    /// Starts the sampling thread (it runs until the process ends); `None` where the system
    /// does not say how much of the process is resident.
    pub fn start() -> Option<RssPeak> {
        use std::sync::atomic::Ordering::Relaxed;
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(resident_bytes()?));
        let sampled = peak.clone();
        std::thread::spawn(move || loop {
            if let Some(now) = resident_bytes() {
                sampled.fetch_max(now, Relaxed);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        });
        Some(RssPeak { peak })
    }

    /// The highest sample since the last restart.
    pub fn get(&self) -> u64 {
        self.peak.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Samples from now on only.
    pub fn restart(&self) {
        let now = resident_bytes().unwrap_or(0);
        self.peak.store(now, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Resident bytes of the process (`/proc/self/statm`'s second field, in pages).
fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // Safety: `sysconf` reads a system constant and takes no pointer.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// `read_bytes` and `write_bytes` of `/proc/self/io`, where there is one.
fn storage_bytes() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    let field = |name: &str| -> Option<u64> {
        text.lines().find_map(|l| {
            l.strip_prefix(name)?
                .strip_prefix(": ")?
                .trim()
                .parse()
                .ok()
        })
    };
    Some((field("read_bytes")?, field("write_bytes")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_read_in_their_unit() {
        assert_eq!(bytes(0), "0 kB");
        assert_eq!(bytes(812_001), "813 kB");
        assert_eq!(bytes(3_400_000), "3.4 MB");
        assert_eq!(bytes(1_210_000_000), "1.21 GB");
    }

    /// Busy for up to ten seconds of wall time, the process's CPU time must move (however
    /// loaded the machine is, the loop gets some of it).
    #[test]
    fn cpu_time_grows_with_work() {
        let before = Usage::now();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let mut after = before;
        while after.cpu_seconds - before.cpu_seconds < 0.02 && start.elapsed().as_secs() < 10 {
            for _ in 0..1_000_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            after = Usage::now();
        }
        std::hint::black_box(x);
        assert!(after.cpu_seconds - before.cpu_seconds >= 0.02);
        assert!(after.since(&before, 1.0).starts_with("CPU "));
    }

    /// A phase that touches 64 MiB more than the process held at its start peaks at least
    /// that much higher (the sampler sees the pages while they are held).
    #[test]
    fn a_phase_peak_sees_the_memory_it_touched() {
        let Some(rss) = RssPeak::start() else {
            return;
        };
        rss.restart();
        let base = resident_bytes().unwrap();
        let held = vec![1u8; 64 << 20];
        let start = std::time::Instant::now();
        while rss.get() < base + (60 << 20) && start.elapsed().as_secs() < 10 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::hint::black_box(&held);
        assert!(
            rss.get() >= base + (60 << 20),
            "peak {} base {base}",
            rss.get()
        );
    }
}
