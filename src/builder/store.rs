//! The builder's chunked working store (`formats/build.md`): each side's entries split into
//! chunks ([`super::layout`]), each chunk a file of 32-bit working entries with its own crc32.
//! A chunk file a checkpoint names is never rewritten: a changed chunk is written under a new
//! generation number (later changes before the next checkpoint go over that file), and only the
//! manifest (written atomically, with its own checksum) says which generation is current, so a
//! kill at any moment leaves the last checkpoint intact.
//!
//! The store directory carries a marker file; the builder deletes only files it names itself, and
//! refuses a directory of that name that is not its own.

use super::{BuildError, Target};
use crate::piece::Color;
use crate::table::{Metric, RuleSet, SupportingTable};
use byteorder::{ByteOrder, LittleEndian as LE};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::chunkfile::{self, HEADER as CHUNK_HEADER, MAGIC as CHUNK_MAGIC};
/// Version of the working-store layout (chunk files and manifest).
pub const STORE_VERSION: u32 = 4;
/// The file that marks a directory as an xqtb store.
const MARKER: &str = "XQTB-WORK";
const MARKER_TEXT: &[u8] = b"xqtb working directory: deleted when its table is written\n";
/// The checkpoint's manifest in a table's store (`formats/build.md` §6).
const MANIFEST: &str = "manifest.json";

/// One chunk's working entries ([`super::entry`]). Atomics let worker threads apply updates
/// concurrently; the result does not depend on their order.
pub struct Chunk {
    /// The working entries, by local index (see [`super::layout::Layout::local`]).
    pub entries: Vec<AtomicU32>,
}

impl Chunk {
    /// A chunk of `len` entries, every word 0 (to be filled in before use).
    pub fn new(len: usize) -> Chunk {
        Chunk {
            entries: (0..len).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The working entry at local index `local`.
    #[cfg(test)]
    pub fn get(&self, local: usize) -> u32 {
        self.entries[local].load(Relaxed)
    }
}

/// The header of chunk `chunk` of `side`, `len` entries, generation `gen` (`formats/build.md`
/// §4).
fn header(side: Color, chunk: usize, len: usize, gen: u64) -> [u8; CHUNK_HEADER] {
    let mut b = [0u8; CHUNK_HEADER];
    b[..8].copy_from_slice(&CHUNK_MAGIC);
    LE::write_u32(&mut b[8..], STORE_VERSION);
    LE::write_u32(&mut b[12..], side.index() as u32);
    LE::write_u32(&mut b[16..], chunk as u32);
    LE::write_u32(&mut b[20..], len as u32);
    LE::write_u64(&mut b[24..], gen);
    b
}

/// The entries as the chunk file stores them (little-endian `u32`s): on a little-endian machine
/// their own memory, so a chunk goes to and from its file without a copy in between (a
/// streamed pass reads and writes every changed chunk; the copies through a file image were a
/// tenth of its chunk I/O). No other thread may change an entry meanwhile.
fn entry_bytes(entries: &[AtomicU32]) -> Cow<'_, [u8]> {
    // Safety: `AtomicU32` has the size, alignment and bit validity of `u32`; the caller holds
    // the chunk and no thread writes an entry while the bytes are read.
    le_bytes(unsafe { std::slice::from_raw_parts(entries.as_ptr().cast::<u32>(), entries.len()) })
}

/// `words` as the store's files hold them, little-endian: their own memory on a little-endian
/// machine, a converted copy elsewhere.
fn le_bytes(words: &[u32]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        // Safety: `u32` has no padding and a `u8` view of initialised memory is valid.
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 4 * words.len())
        })
    } else {
        Cow::Owned(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
}

/// The memory of `words` as bytes, to read a file's little-endian words into: call
/// [`from_le_in_place`] on them afterwards.
fn bytes_of_mut(words: &mut [u32]) -> &mut [u8] {
    // Safety: `u32` has no padding and every bit pattern is a valid `u32`; the view borrows
    // `words` mutably, so nothing else reads them meanwhile.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), 4 * words.len()) }
}

/// Turns words read as little-endian bytes into native ones (nothing to do on a little-endian
/// machine).
fn from_le_in_place(words: &mut [u32]) {
    if cfg!(target_endian = "big") {
        words.iter_mut().for_each(|w| *w = u32::from_le(*w));
    }
}

/// The memory of `entries` as words, to read a file into.
fn words_of_mut(entries: &mut [AtomicU32]) -> &mut [u32] {
    // Safety: `AtomicU32` has the size, alignment and bit validity of `u32`, and `entries` is
    // borrowed mutably.
    unsafe { std::slice::from_raw_parts_mut(entries.as_mut_ptr().cast::<u32>(), entries.len()) }
}

/// What the manifest records of one chunk file.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ChunkRecord {
    /// The generation of the chunk's current file.
    pub gen: u64,
    /// The crc32 of that file (everything before its trailing checksum).
    pub crc: u32,
}

/// The checkpoint: written atomically at pass boundaries; everything a resumed build needs (the
/// bitmaps are derived again from the chunks).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// [`STORE_VERSION`] of the build that wrote it.
    pub store_version: u32,
    /// The material being built, as its signature (e.g. `KRKAABB`).
    pub material: String,
    /// The index scheme version ([`crate::index::INDEX_SCHEME_VERSION`]) of the entries.
    pub index_scheme: u32,
    /// Entries per side.
    pub entries: u64,
    /// Chunks hold `2^chunk_shift` entries.
    pub chunk_shift: u32,
    /// The order being propagated.
    pub order: u16,
    /// The last completed ply of that order (0: its seeds are set).
    pub ply: u32,
    /// Current file of every chunk: Red to move's, then Black to move's.
    pub chunks: [Vec<ChunkRecord>; 2],
    /// What the entries' values depend on besides the material.
    pub provenance: Provenance,
    /// crc32 of this manifest's compact JSON with this field 0.
    pub crc32: u32,
}

/// What a build's values depend on besides its material: the program, the table format and
/// rule set it writes, and the supporting tables it read. A checkpoint resumes only under the
/// same provenance.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Provenance {
    /// The builder ([`crate::table::BUILDER_ID`]).
    pub builder: String,
    /// The table format written ([`crate::table::FORMAT_VERSION`]).
    pub format_version: u32,
    /// The table's rule set, by name (`dtc-asian`).
    pub rule_set: String,
    /// The metric, by name (`dtc`, `dtm`); checkpoints from before it are of DTC builds.
    #[serde(default = "dtc_name")]
    pub metric: String,
    /// The tables the captures lead to, as read (`formats/table.md` §4.1).
    pub supports: Vec<SupportRecord>,
}

/// A supporting table as a manifest records it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SupportRecord {
    /// Its material.
    pub material: String,
    /// Its rule set, by name.
    pub rule_set: String,
    /// Its trailer (the crc32 of its other bytes).
    pub file_crc: u32,
    /// Its length in bytes.
    pub file_len: u64,
}

/// The metric a checkpoint without one is of.
fn dtc_name() -> String {
    Metric::Dtc.name().into()
}

impl Provenance {
    /// The provenance of a table of `rule_set` in `metric` built by this program from
    /// `supports`.
    pub fn new(rule_set: RuleSet, metric: Metric, supports: &[SupportingTable]) -> Provenance {
        Provenance {
            builder: crate::table::BUILDER_ID.to_string(),
            format_version: crate::table::FORMAT_VERSION,
            rule_set: rule_set.name().to_string(),
            metric: metric.name().to_string(),
            supports: supports
                .iter()
                .map(|s| SupportRecord {
                    material: s.material.to_string(),
                    rule_set: s.rule_set.name().to_string(),
                    file_crc: s.file_crc,
                    file_len: s.file_len,
                })
                .collect(),
        }
    }

    /// Why a checkpoint of provenance `self` cannot go on as a build of `now`'s, if it cannot.
    pub fn differs_from(&self, now: &Provenance) -> Option<String> {
        if self.metric != now.metric {
            return Some(format!(
                "the checkpoint is of a {} build, this one builds {}",
                self.metric, now.metric
            ));
        }
        if self.builder != now.builder || self.format_version != now.format_version {
            return Some(format!(
                "the checkpoint was made by {} (table format {}), this is {} (format {})",
                self.builder, self.format_version, now.builder, now.format_version
            ));
        }
        let changed = self
            .supports
            .iter()
            .zip(&now.supports)
            .find(|(a, b)| a != b)
            .map(|(a, _)| a.material.clone());
        match changed {
            _ if self.supports.len() != now.supports.len() => {
                Some("the checkpoint was computed from other supporting tables".into())
            }
            Some(m) => Some(format!(
                "the checkpoint was computed from another {m} table than the one present \
                 (rebuilt or replaced since)"
            )),
            None => None,
        }
    }
}

impl Manifest {
    fn checksum(&self) -> u32 {
        let mut m = self.clone();
        m.crc32 = 0;
        crc32fast::hash(&serde_json::to_vec(&m).expect("manifest serialises"))
    }
}

/// The working directory of one table's build, locked while open: its marker file carries an
/// OS lock ([`crate::lock`]), so two builds sharing a `--tmp` never use one store at once.
pub struct StoreDir {
    /// The directory's path.
    pub dir: PathBuf,
    _lock: File,
    /// Chunks' entries given back by [`StoreDir::recycle`] or set aside by
    /// [`StoreDir::reserve`], kept for the next reads. A streamed pass reads and writes a chunk
    /// (megabytes) at a time on every worker; fresh allocations of that size are fresh pages
    /// from the kernel every time (7 % of a streamed KRNKAABB build went to their page
    /// faults), and made by a worker they would stay in its allocator arena.
    spare: std::sync::Mutex<Vec<Vec<AtomicU32>>>,
    /// How many buffers `spare` keeps at most.
    spares: std::sync::atomic::AtomicUsize,
    /// Logs kept open, by kind, side and chunk (at most [`OPEN_LOGS`]): a streamed pass
    /// appends to every chunk's log once per round, and opening the file each time cost more
    /// than writing to it.
    logs: std::sync::Mutex<std::collections::HashMap<(Log, Color, usize), std::sync::Arc<File>>>,
    /// Bytes this store's files took and gave since it was opened, by kind.
    traffic: TrafficCounters,
}

/// Bytes a store wrote to and read from its files, by kind of file: where a streamed build's
/// disk traffic goes (`build --verbose`, `formats/build.md` §10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Chunk files written (whole chunks: new generations, rewrites, checkpoints).
    pub chunks_written: u64,
    /// Chunk files read.
    pub chunks_read: u64,
    /// Update-log records appended.
    pub updates_written: u64,
    /// Update-log records read back.
    pub updates_read: u64,
    /// Resolution-log pairs appended.
    pub resolved_written: u64,
    /// Resolution-log pairs read back.
    pub resolved_read: u64,
    /// Frontier-list entries appended ([`Log::Frontier`]).
    pub frontier_written: u64,
    /// Frontier-list entries read back.
    pub frontier_read: u64,
    /// Parked unresolved filters written (`Work::use_filter`).
    pub parked_written: u64,
    /// Parked unresolved filters read back.
    pub parked_read: u64,
}

impl Traffic {
    /// Every byte written.
    pub fn written(&self) -> u64 {
        self.chunks_written
            + self.updates_written
            + self.resolved_written
            + self.frontier_written
            + self.parked_written
    }

    /// Every byte read.
    pub fn read(&self) -> u64 {
        self.chunks_read
            + self.updates_read
            + self.resolved_read
            + self.frontier_read
            + self.parked_read
    }
}

/// [`Traffic`]'s counters, added to by any thread.
#[derive(Default)]
struct TrafficCounters([std::sync::atomic::AtomicU64; 10]);

/// Which counter of [`TrafficCounters`].
#[derive(Clone, Copy)]
enum Flow {
    ChunksWritten,
    ChunksRead,
    UpdatesWritten,
    UpdatesRead,
    ResolvedWritten,
    ResolvedRead,
    FrontierWritten,
    FrontierRead,
    ParkedWritten,
    ParkedRead,
}

impl TrafficCounters {
    fn add(&self, flow: Flow, bytes: u64) {
        self.0[flow as usize].fetch_add(bytes, Relaxed);
    }

    fn get(&self) -> Traffic {
        let n = |f: Flow| self.0[f as usize].load(Relaxed);
        Traffic {
            chunks_written: n(Flow::ChunksWritten),
            chunks_read: n(Flow::ChunksRead),
            updates_written: n(Flow::UpdatesWritten),
            updates_read: n(Flow::UpdatesRead),
            resolved_written: n(Flow::ResolvedWritten),
            resolved_read: n(Flow::ResolvedRead),
            frontier_written: n(Flow::FrontierWritten),
            frontier_read: n(Flow::FrontierRead),
            parked_written: n(Flow::ParkedWritten),
            parked_read: n(Flow::ParkedRead),
        }
    }
}

/// The logs a chunk may have (streaming).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Log {
    /// The updates of the pass under way, applied when it ends: u32 local indices.
    Updates,
    /// Entries a win ply or an order's seeding resolved that the chunk's file does not hold
    /// yet: pairs of u32 (local index, resolved entry), applied whenever the chunk is read and
    /// emptied when it is written (the working state reads it).
    Resolved,
    /// Entries of the chunk in a frontier (`Work`'s frontier lists, when the frontier bitmaps
    /// do not fit the budget): u32 local indices, in no order. The two parities alternate: the
    /// frontier a pass reads, and the next one the passes under way fill.
    Frontier(u8),
}

impl Log {
    /// The file name's extension, which tells the kind.
    fn ext(self) -> &'static str {
        match self {
            Log::Updates => "updates",
            Log::Resolved => "resolved",
            Log::Frontier(0) => "front0",
            Log::Frontier(_) => "front1",
        }
    }

    /// What the log is, in an error message.
    fn what(self) -> &'static str {
        match self {
            Log::Updates => "update log",
            Log::Resolved => "resolution log",
            Log::Frontier(_) => "frontier list",
        }
    }

    /// The traffic counters of its writes and reads.
    fn flows(self) -> (Flow, Flow) {
        match self {
            Log::Updates => (Flow::UpdatesWritten, Flow::UpdatesRead),
            Log::Resolved => (Flow::ResolvedWritten, Flow::ResolvedRead),
            Log::Frontier(_) => (Flow::FrontierWritten, Flow::FrontierRead),
        }
    }
}

/// Logs a store keeps open at most (then it closes them all and starts again).
const OPEN_LOGS: usize = 256;

/// Is the open `file` the one `path` names now?
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_owned(),
        source,
    }
}

impl StoreDir {
    /// Opens (creating it if needed) the store directory `dir`. An existing directory must be
    /// empty or carry the marker: a user's directory of that name is never touched.
    pub fn open(dir: PathBuf) -> Result<StoreDir, BuildError> {
        let marker = dir.join(MARKER);
        if StoreDir::foreign(&dir, &marker)? {
            return Err(BuildError::ForeignDir(dir));
        }
        // A store being removed by its last user may vanish between our open and our lock:
        // then the lock is on a deleted marker, and we start over with a fresh one.
        for _ in 0..3 {
            std::fs::create_dir_all(&dir).map_err(io(&dir))?;
            if !marker.exists() {
                std::fs::write(&marker, MARKER_TEXT).map_err(io(&marker))?;
            }
            let lock = File::open(&marker).map_err(io(&marker))?;
            match lock.try_lock() {
                Ok(()) if crate::lock::same_file(&lock, &marker).unwrap_or(false) => {
                    return Ok(StoreDir {
                        dir,
                        _lock: lock,
                        spare: Default::default(),
                        spares: 1.into(),
                        logs: Default::default(),
                        traffic: Default::default(),
                    })
                }
                Ok(()) => continue,
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(BuildError::Lock(crate::lock::LockError::Busy {
                        what: format!("working store {}", dir.display()),
                        holder: "another build using the same --tmp".into(),
                    }))
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(&marker)(e)),
            }
        }
        Err(BuildError::Lock(crate::lock::LockError::Busy {
            what: format!("working store {}", dir.display()),
            holder: "another build using the same --tmp, removing it".into(),
        }))
    }

    /// Does `dir` hold files without a store's marker? Another build sharing `--tmp` may be
    /// creating or removing a store there while we look: its marker comes before its files and
    /// goes after them, so the marker is looked for again after the listing, and a directory
    /// is judged foreign only if it looks so three times, 20 ms apart.
    fn foreign(dir: &Path, marker: &Path) -> Result<bool, BuildError> {
        for attempt in 0..3 {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            if !dir.exists() || marker.exists() {
                return Ok(false);
            }
            let empty = match std::fs::read_dir(dir) {
                Ok(mut entries) => entries.next().is_none(),
                // Removed meanwhile.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(io(dir)(e)),
            };
            if empty || marker.exists() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The store directory of `table`'s build under `tmp`.
    pub fn path_for(tmp: &Path, table: Target) -> PathBuf {
        tmp.join(table.store_name())
    }

    /// The store a build of `table` under `tmp` left behind (killed, or failed with its
    /// checkpoint kept), if there is one.
    pub fn left(tmp: &Path, table: Target) -> Option<PathBuf> {
        let dir = StoreDir::path_for(tmp, table);
        dir.join(MARKER).is_file().then_some(dir)
    }

    /// The bytes of the files a build of `table` left under `tmp` (0 if none; files not
    /// readable count as none).
    pub fn bytes_left(tmp: &Path, table: Target) -> u64 {
        StoreDir::left(tmp, table).map_or(0, |dir| StoreDir::bytes_in(&dir))
    }

    /// Removes the store a build of `table` left under `tmp`, if any (its table is
    /// present: nothing needs it).
    pub fn remove_left(tmp: &Path, table: Target) -> Result<(), BuildError> {
        match StoreDir::left(tmp, table) {
            Some(dir) => StoreDir::open(dir)?.remove(),
            None => Ok(()),
        }
    }

    /// After a failed build of `table`: its store, if it holds a checkpoint to resume
    /// from; otherwise the store is removed (as far as it can be) and `None` returned.
    pub fn keep_checkpoint(tmp: &Path, table: Target) -> Option<PathBuf> {
        let dir = StoreDir::left(tmp, table)?;
        let store = StoreDir::open(dir.clone()).ok()?;
        if matches!(store.read_manifest(), Ok(Some(_))) {
            return Some(dir);
        }
        let _ = store.remove();
        None
    }

    /// The bytes of the files in store directory `dir`.
    fn bytes_in(dir: &Path) -> u64 {
        std::fs::read_dir(dir).map_or(0, |rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
    }

    /// The file of generation `gen` of chunk `chunk` of `side`.
    pub fn chunk_path(&self, side: Color, chunk: usize, gen: u64) -> PathBuf {
        self.dir
            .join(format!("s{}-c{chunk:05}-g{gen}.chunk", side.index()))
    }

    /// The manifest's file.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(MANIFEST)
    }

    /// The log `kind` of chunk `chunk` of `side` ([`Log`]).
    pub fn log_path(&self, kind: Log, side: Color, chunk: usize) -> PathBuf {
        self.dir
            .join(format!("s{}-c{chunk:05}.{}", side.index(), kind.ext()))
    }

    /// Writes a chunk as generation `gen`; returns its record. The file is overwritten in place
    /// if it exists: only a generation no checkpoint names is ever written again
    /// (the working state's chunk rewrites), and creating and deleting a file per chunk and pass
    /// cost ext4 a search for a free inode each time (`find_inode_bit`, 3.5 % of a streamed
    /// KRNKAABB build). Not synced here: a checkpoint syncs every file it is about to reference
    /// ([`StoreDir::sync_chunk`]) before writing the manifest, so the chunk writes between
    /// checkpoints cost no fsync each.
    pub fn write_chunk(
        &self,
        side: Color,
        index: usize,
        gen: u64,
        chunk: &Chunk,
    ) -> Result<ChunkRecord, BuildError> {
        let path = self.chunk_path(side, index, gen);
        let header = header(side, index, chunk.len(), gen);
        let entries = entry_bytes(&chunk.entries);
        let mut f = File::options()
            .create(true)
            .write(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        let (size, crc) = chunkfile::write(&mut f, &header, &entries)
            // A longer file of that name (an earlier generation of other contents) loses its
            // tail.
            .and_then(|(size, crc)| match f.metadata()?.len() > size {
                true => f.set_len(size).map(|()| (size, crc)),
                false => Ok((size, crc)),
            })
            .map_err(io(&path))?;
        self.traffic.add(Flow::ChunksWritten, size);
        Ok(ChunkRecord { gen, crc })
    }

    /// Makes a written chunk durable.
    pub fn sync_chunk(&self, side: Color, index: usize, gen: u64) -> Result<(), BuildError> {
        let path = self.chunk_path(side, index, gen);
        File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(io(&path))
    }

    /// Reads a chunk, checking its layout and both checksums (its own and the manifest's).
    pub fn read_chunk(
        &self,
        side: Color,
        index: usize,
        rec: ChunkRecord,
        len: usize,
    ) -> Result<Chunk, BuildError> {
        let path = self.chunk_path(side, index, rec.gen);
        let bad = |what: &str| BuildError::Checkpoint(format!("{}: {what}", path.display()));
        let mut f = match File::open(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(bad("missing")),
            f => f.map_err(io(&path))?,
        };
        let size = f.metadata().map_err(io(&path))?.len();
        let mut entries = self.spare.lock().unwrap().pop().unwrap_or_default();
        // A successful read overwrites every word and a failed one drops the buffer, so a
        // recycled buffer is not zeroed first: a streamed ply reads every chunk it rewrites.
        entries.resize_with(len, || AtomicU32::new(0));
        let words = words_of_mut(&mut entries);
        let expect = header(side, index, len, rec.gen);
        let read = chunkfile::read(&mut f, size, &expect, bytes_of_mut(words));
        from_le_in_place(words);
        self.traffic.add(Flow::ChunksRead, size);
        match read {
            Ok(crc) if crc == rec.crc => Ok(Chunk { entries }),
            Ok(_) | Err(chunkfile::Fault::Checksum) => Err(bad("checksum mismatch")),
            Err(chunkfile::Fault::Length) => Err(bad("wrong length")),
            Err(chunkfile::Fault::Header) => Err(bad("header does not match the manifest")),
            Err(chunkfile::Fault::Io(e)) => Err(io(&path)(e)),
        }
    }

    /// Gives back a chunk read by [`StoreDir::read_chunk`] that is no longer needed: its memory
    /// serves the next read.
    pub fn recycle(&self, chunk: Chunk) {
        let mut spare = self.spare.lock().unwrap();
        if spare.len() < self.spares.load(Relaxed) {
            spare.push(chunk.entries);
        }
    }

    /// Sets aside `n` buffers of `len` entries for chunks read later (by the calling thread, so
    /// that worker threads reading chunks allocate nothing).
    pub fn reserve(&self, n: usize, len: usize) {
        let mut spare = self.spare.lock().unwrap();
        self.spares.store(n, Relaxed);
        spare.truncate(n);
        for s in spare.iter_mut() {
            s.reserve(len.saturating_sub(s.len()));
        }
        while spare.len() < n {
            spare.push(Vec::with_capacity(len));
        }
    }

    /// Writes the manifest with its checksum, atomically and durably (the checkpoint).
    pub fn write_manifest(&self, m: &Manifest) -> Result<(), BuildError> {
        let path = self.manifest_path();
        let mut m = m.clone();
        m.crc32 = m.checksum();
        let text = serde_json::to_vec_pretty(&m).expect("manifest serialises");
        xqtb_core::fsio::write_atomic(&path, &text).map_err(io(&path))
    }

    /// The manifest, `Ok(None)` if there is none, or a checkpoint error if it is unreadable or
    /// fails its checksum.
    pub fn read_manifest(&self) -> Result<Option<Manifest>, BuildError> {
        StoreDir::read_manifest_at(self.manifest_path())
    }

    /// The checkpoint a build of `table` left under `tmp`, if one is there and reads, read
    /// without taking the store's lock (to refuse a build under other rules before it starts).
    pub fn checkpoint_left(tmp: &Path, table: Target) -> Option<(PathBuf, Manifest)> {
        let dir = StoreDir::left(tmp, table)?;
        let m = StoreDir::read_manifest_at(dir.join(MANIFEST)).ok()??;
        Some((dir, m))
    }

    fn read_manifest_at(path: PathBuf) -> Result<Option<Manifest>, BuildError> {
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            // Not ours to delete, and no checkpoint: the build cannot go on beside it.
            Ok(meta) if !meta.is_file() => return Err(BuildError::ManifestNotAFile(path)),
            _ => {}
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let bad = |what: String| BuildError::Checkpoint(format!("{}: {what}", path.display()));
        let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| {
            match serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|v| v.get("store_version")?.as_u64())
            {
                Some(v) if v != STORE_VERSION as u64 => bad(format!(
                    "a checkpoint of store version {v}; this program resumes version \
                     {STORE_VERSION}"
                )),
                _ => bad(e.to_string()),
            }
        })?;
        if m.crc32 != m.checksum() {
            return Err(bad("checksum mismatch".into()));
        }
        Ok(Some(m))
    }

    /// Is `name` a file this store writes?
    fn ours(name: &str) -> bool {
        let s_c = |n: &str| n.starts_with('s') && n.as_bytes().get(2) == Some(&b'-');
        name.starts_with(MANIFEST)
            || (s_c(name)
                && [
                    ".chunk",
                    ".updates",
                    ".resolved",
                    ".front0",
                    ".front1",
                    ".park",
                ]
                .iter()
                .any(|ext| name.ends_with(ext)))
    }

    /// Deletes every file of ours the manifest does not reference (chunks of an interrupted
    /// pass, old generations, logs); with no manifest, every file of ours.
    pub fn remove_unreferenced(&self, m: Option<&Manifest>) -> Result<(), BuildError> {
        self.prune(m, false)
    }

    /// [`StoreDir::remove_unreferenced`] at a checkpoint, which keeps the frontier lists and a
    /// parked filter: they belong to the state the manifest names (a resumed build derives them
    /// again from the chunks instead).
    pub fn remove_unreferenced_but_lists(&self, m: &Manifest) -> Result<(), BuildError> {
        self.prune(Some(m), true)
    }

    fn prune(&self, m: Option<&Manifest>, keep_lists: bool) -> Result<(), BuildError> {
        // An open log would outlive its file.
        self.logs.lock().unwrap().clear();
        let mut keep = std::collections::HashSet::new();
        if let Some(m) = m {
            keep.insert(self.manifest_path());
            for (side, recs) in Color::ALL.into_iter().zip(&m.chunks) {
                for (c, r) in recs.iter().enumerate() {
                    keep.insert(self.chunk_path(side, c, r.gen));
                }
            }
        }
        let derived = |name: &str| {
            [".front0", ".front1", ".park"]
                .iter()
                .any(|e| name.ends_with(e))
        };
        let rd = std::fs::read_dir(&self.dir).map_err(io(&self.dir))?;
        for e in rd {
            let e = e.map_err(io(&self.dir))?;
            let p = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            if Self::ours(&name) && !keep.contains(&p) && !(keep_lists && derived(&name)) {
                std::fs::remove_file(&p).map_err(io(&p))?;
            }
        }
        Ok(())
    }

    /// Counts the bytes of a parked filter written (`true`) or read back.
    pub fn note_parked(&self, written: bool, bytes: u64) {
        let flow = if written {
            Flow::ParkedWritten
        } else {
            Flow::ParkedRead
        };
        self.traffic.add(flow, bytes);
    }

    /// Bytes written to and read from the store's files since it was opened.
    pub fn traffic(&self) -> Traffic {
        self.traffic.get()
    }

    /// Deletes the store: its files, the marker, then the directory (left in place if anything
    /// else is in it).
    pub fn remove(&self) -> Result<(), BuildError> {
        self.remove_unreferenced(None)?;
        let marker = self.dir.join(MARKER);
        std::fs::remove_file(&marker).map_err(io(&marker))?;
        let _ = std::fs::remove_dir(&self.dir);
        Ok(())
    }

    /// Calls `f` with the open log `kind` of chunk `chunk` of `side`, opening (creating) it if
    /// needed.
    fn with_log<T>(
        &self,
        (kind, side, chunk): (Log, Color, usize),
        create: bool,
        f: impl FnOnce(&File) -> std::io::Result<T>,
    ) -> Result<Option<T>, BuildError> {
        let path = self.log_path(kind, side, chunk);
        let mut logs = self.logs.lock().unwrap();
        if let Some(file) = logs.get(&(kind, side, chunk)).cloned() {
            // Other logs stay usable meanwhile (workers drain different chunks at once).
            drop(logs);
            return f(&file).map(Some).map_err(io(&path));
        }
        let opened = File::options()
            .read(true)
            .append(true)
            .create(create)
            .open(&path);
        let file = match opened {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => return Ok(None),
            f => std::sync::Arc::new(f.map_err(io(&path))?),
        };
        if logs.len() >= OPEN_LOGS {
            logs.clear();
        }
        logs.insert((kind, side, chunk), file.clone());
        drop(logs);
        f(&file).map(Some).map_err(io(&path))
    }

    /// Appends update records (indices of entries in that chunk) to a chunk's log, as local
    /// indices.
    pub fn append_log(&self, side: Color, chunk: usize, records: &[u32]) -> Result<(), BuildError> {
        self.append(Log::Updates, side, chunk, records)
    }

    /// Appends u32 words to a chunk's log `kind`.
    fn append(
        &self,
        kind: Log,
        side: Color,
        chunk: usize,
        words: &[u32],
    ) -> Result<(), BuildError> {
        let key = (kind, side, chunk);
        self.with_log(key, true, |mut f| f.write_all(&le_bytes(words)))?;
        self.traffic.add(kind.flows().0, 4 * words.len() as u64);
        Ok(())
    }

    /// Does the chunk's update log hold updates?
    pub fn has_log(&self, side: Color, chunk: usize) -> Result<bool, BuildError> {
        let key = (Log::Updates, side, chunk);
        let len = self.with_log(key, false, |f| Ok(f.metadata()?.len()))?;
        Ok(len.is_some_and(|n| n > 0))
    }

    /// Appends resolutions (pairs of local index and resolved entry) to a chunk's
    /// [`Log::Resolved`].
    pub fn append_resolved(
        &self,
        side: Color,
        chunk: usize,
        pairs: &[u32],
    ) -> Result<(), BuildError> {
        debug_assert!(pairs.len().is_multiple_of(2));
        self.append(Log::Resolved, side, chunk, pairs)
    }

    /// Streams a chunk's [`Log::Resolved`] in batches of whole pairs through `words` (at least
    /// two); the log stays as it is ([`StoreDir::clear_resolved`] empties it).
    pub fn read_resolved(
        &self,
        side: Color,
        chunk: usize,
        words: &mut [u32],
        f: impl FnMut(&[u32]),
    ) -> Result<(), BuildError> {
        let n = words.len() & !1;
        self.read_log((Log::Resolved, side, chunk), &mut words[..n], 2, f)
    }

    /// Empties a chunk's [`Log::Resolved`] (its chunk file now holds them).
    pub fn clear_resolved(&self, side: Color, chunk: usize) -> Result<(), BuildError> {
        self.with_log((Log::Resolved, side, chunk), false, |f| f.set_len(0))?;
        Ok(())
    }

    /// Appends local indices to the frontier list `parity` of a chunk ([`Log::Frontier`]).
    pub fn append_frontier(
        &self,
        side: Color,
        chunk: usize,
        parity: u8,
        locals: &[u32],
    ) -> Result<(), BuildError> {
        self.append(Log::Frontier(parity), side, chunk, locals)
    }

    /// Streams the frontier list `parity` of a chunk in batches of at most `words.len()`
    /// indices (read into `words`); the list stays as it is.
    pub fn read_frontier(
        &self,
        side: Color,
        chunk: usize,
        parity: u8,
        words: &mut [u32],
        f: impl FnMut(&[u32]),
    ) -> Result<(), BuildError> {
        self.read_log((Log::Frontier(parity), side, chunk), words, 1, f)
    }

    /// Empties the frontier list `parity` of a chunk (it was read; the file stays for the
    /// list after next).
    pub fn clear_frontier(&self, side: Color, chunk: usize, parity: u8) -> Result<(), BuildError> {
        self.with_log((Log::Frontier(parity), side, chunk), false, |f| {
            f.set_len(0)
        })?;
        Ok(())
    }

    /// Streams log `key` in batches of at most `recs.len()` words (a multiple of `unit`, the
    /// words of a record) read into `recs`; a log that is not whole records is torn.
    fn read_log(
        &self,
        key: (Log, Color, usize),
        recs: &mut [u32],
        unit: u64,
        mut f: impl FnMut(&[u32]),
    ) -> Result<(), BuildError> {
        use std::os::unix::fs::FileExt;
        assert!(recs.len() as u64 >= unit, "a log is read through a buffer");
        let path = self.log_path(key.0, key.1, key.2);
        let torn = || BuildError::Checkpoint(format!("{}: torn {}", path.display(), key.0.what()));
        self.with_log(key, false, |file| {
            let len = file.metadata()?.len();
            if len % (4 * unit) != 0 {
                return Ok(Err(torn()));
            }
            self.traffic.add(key.0.flows().1, len);
            let mut at = 0;
            while at < len {
                let k = ((len - at) / 4).min(recs.len() as u64) as usize;
                file.read_exact_at(bytes_of_mut(&mut recs[..k]), at)?;
                from_le_in_place(&mut recs[..k]);
                f(&recs[..k]);
                at += 4 * k as u64;
            }
            Ok(Ok(()))
        })?
        .unwrap_or(Ok(()))
    }

    /// Streams a chunk's log in batches of at most `recs.len()` records (read into `recs`),
    /// then empties it. The file stays, emptied and open, for the next pass's updates (a file
    /// created and deleted per chunk and pass cost more than the updates it held in the late
    /// plies, see [`StoreDir::write_chunk`]).
    pub fn drain_log(
        &self,
        side: Color,
        chunk: usize,
        recs: &mut [u32],
        f: impl FnMut(&[u32]),
    ) -> Result<(), BuildError> {
        let key = (Log::Updates, side, chunk);
        self.read_log(key, recs, 1, f)?;
        self.with_log(key, false, |file| file.set_len(0))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_logs_come_back_in_order_in_batches() {
        let tmp = tempfile::tempdir().unwrap();
        let store = StoreDir::open(tmp.path().join("s")).unwrap();
        let records: Vec<u32> = (0..1000u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        store.append_log(Color::Black, 3, &records[..700]).unwrap();
        store.append_log(Color::Black, 3, &records[700..]).unwrap();
        // Batches of 300: two full ones, then the rest; an exact multiple ends without an
        // empty batch.
        for (batch, sizes) in [(300, vec![300, 300, 300, 100]), (250, vec![250; 4])] {
            store.append_log(Color::Red, 0, &records).unwrap();
            let mut got = Vec::new();
            let mut seen = Vec::new();
            store
                .drain_log(Color::Red, 0, &mut vec![0; batch], |b| {
                    seen.push(b.len());
                    got.extend_from_slice(b);
                })
                .unwrap();
            assert_eq!(got, records);
            assert_eq!(seen, sizes);
            assert!(
                !store.has_log(Color::Red, 0).unwrap(),
                "a drained log is empty"
            );
        }
        let mut got = Vec::new();
        store
            .drain_log(Color::Black, 3, &mut [0; 1 << 10], |b| {
                got.extend_from_slice(b)
            })
            .unwrap();
        assert_eq!(got, records);
        // The file holds little-endian words.
        store.append_log(Color::Red, 1, &[0x0403_0201]).unwrap();
        assert_eq!(
            std::fs::read(store.log_path(Log::Updates, Color::Red, 1)).unwrap(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn resolution_logs_come_back_in_whole_pairs_until_cleared() {
        let tmp = tempfile::tempdir().unwrap();
        let store = StoreDir::open(tmp.path().join("s")).unwrap();
        let read = |buffer: usize| {
            let mut got = Vec::new();
            store
                .read_resolved(Color::Black, 2, &mut vec![0; buffer], |b| {
                    assert!(b.len() % 2 == 0, "whole pairs");
                    got.extend_from_slice(b)
                })
                .unwrap();
            got
        };
        assert!(read(4).is_empty(), "no log: nothing to apply");
        let pairs: Vec<u32> = (0..500u32).flat_map(|i| [i * 7, 0x8000_0000 | i]).collect();
        store
            .append_resolved(Color::Black, 2, &pairs[..600])
            .unwrap();
        store
            .append_resolved(Color::Black, 2, &pairs[600..])
            .unwrap();
        // An odd buffer still reads whole pairs; reading leaves the log as it was.
        assert_eq!(read(7), pairs);
        assert_eq!(read(1 << 10), pairs);
        store.clear_resolved(Color::Black, 2).unwrap();
        assert!(read(4).is_empty(), "a cleared log is empty");
        // The update log of the same chunk is another file.
        assert!(!store.has_log(Color::Black, 2).unwrap());
        // Half a pair is a torn log.
        store.append_resolved(Color::Black, 2, &[1, 2]).unwrap();
        store.append(Log::Resolved, Color::Black, 2, &[3]).unwrap();
        let err = store
            .read_resolved(Color::Black, 2, &mut [0; 16], |_| {})
            .unwrap_err();
        assert!(err.to_string().contains("torn resolution log"), "{err}");
        // Resolution logs are the store's own: removed with the rest.
        store.remove_unreferenced(None).unwrap();
        assert!(!store.log_path(Log::Resolved, Color::Black, 2).exists());
    }

    #[test]
    fn a_torn_update_log_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let store = StoreDir::open(tmp.path().join("s")).unwrap();
        store.append_log(Color::Red, 0, &[1, 2, 3]).unwrap();
        let path = store.log_path(Log::Updates, Color::Red, 0);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.pop();
        std::fs::write(&path, bytes).unwrap();
        let err = store
            .drain_log(Color::Red, 0, &mut [0; 16], |_| {})
            .unwrap_err();
        assert!(err.to_string().contains("torn update log"), "{err}");
    }

    #[test]
    fn a_recycled_buffer_takes_the_next_chunk_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let store = StoreDir::open(tmp.path().join("s")).unwrap();
        store.reserve(1, 1000);
        let chunks = [7u32, 11].map(|m| {
            let chunk = Chunk::new(1000);
            for (k, e) in chunk.entries.iter().enumerate() {
                e.store((k as u32).wrapping_mul(m), Relaxed);
            }
            chunk
        });
        let recs = [0, 1].map(|c| store.write_chunk(Color::Red, c, 1, &chunks[c]).unwrap());
        let first = store.read_chunk(Color::Red, 0, recs[0], 1000).unwrap();
        store.recycle(first);
        // The spare buffer still holds chunk 0's words; reading chunk 1 into it replaces them.
        let second = store.read_chunk(Color::Red, 1, recs[1], 1000).unwrap();
        let words = |c: &Chunk| {
            c.entries
                .iter()
                .map(|e| e.load(Relaxed))
                .collect::<Vec<_>>()
        };
        assert_eq!(words(&second), words(&chunks[1]));
    }

    #[test]
    fn chunks_come_back_as_written_and_damage_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let store = StoreDir::open(tmp.path().join("s")).unwrap();
        let chunk = Chunk::new(1000);
        for (k, e) in chunk.entries.iter().enumerate() {
            e.store((k as u32).wrapping_mul(0x9E37_79B9), Relaxed);
        }
        let rec = store.write_chunk(Color::Black, 7, 3, &chunk).unwrap();
        let path = store.chunk_path(Color::Black, 7, 3);
        let bytes = std::fs::read(&path).unwrap();
        // The header as formats/build.md §4 gives it; the entries in frames (chunkfile.rs);
        // the record's crc32 is the file's trailer.
        assert_eq!(bytes[..8], *b"XQTBCHK3");
        assert_eq!(
            [8, 12, 16, 20].map(|at| LE::read_u32(&bytes[at..])),
            [STORE_VERSION, 1, 7, 1000],
            "version, side, chunk, entries"
        );
        assert_eq!(LE::read_u64(&bytes[24..]), 3, "generation");
        assert_eq!(LE::read_u32(&bytes[bytes.len() - 4..]), rec.crc);
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/formats/build.md"))
            .unwrap();
        for named in [
            format!("Working-store version **{STORE_VERSION}**"),
            format!("| 8 | u32 | store version: {STORE_VERSION} |"),
        ] {
            assert!(doc.contains(&named), "formats/build.md names {named}");
        }
        let back = store.read_chunk(Color::Black, 7, rec, 1000).unwrap();
        assert!(back
            .entries
            .iter()
            .zip(&chunk.entries)
            .all(|(a, b)| a.load(Relaxed) == b.load(Relaxed)));
        // A flipped byte, a wrong length, another chunk's record: each refused.
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        let err = store.read_chunk(Color::Black, 7, rec, 1000).err().unwrap();
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = store.read_chunk(Color::Black, 7, rec, 1000).err().unwrap();
        assert!(err.to_string().contains("wrong length"), "{err}");
        std::fs::write(&path, &bytes).unwrap();
        let err = store.read_chunk(Color::Black, 7, rec, 999).err().unwrap();
        assert!(
            err.to_string().contains("does not match the manifest"),
            "{err}"
        );
        // A shorter write over a longer file of the same name leaves no tail behind.
        std::fs::write(&path, vec![0u8; bytes.len() + 4096]).unwrap();
        let rec = store.write_chunk(Color::Black, 7, 3, &chunk).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert!(store.read_chunk(Color::Black, 7, rec, 1000).is_ok());
    }
}
