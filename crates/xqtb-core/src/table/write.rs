//! Streaming table writer: each side's codes become two symbol streams (WDL and distance
//! symbols, illegal entries filled with the previous entry's symbols), cut into blocks that are
//! compressed in parallel; every checksum is computed while writing. The distance blocks go to
//! the file as they come; the WDL blocks (a few percent of the bytes) are held and appended
//! after them so that the WDL stream is contiguous. The file appears under its final name only
//! once complete and synced (write to a temporary name, fsync, rename, fsync the directory).

use super::{
    distance_implied, supports_to_bytes, Firsts, Header, Histogram, Levels, Metric, RuleSet,
    SideCounts, SupportingTable, Symbol, TableError, BLOCK_ENTRIES, HEADER_LEN, INDEX_ENTRY_LEN,
    NO_INDEX, WDL_DRAW, WDL_LOSS, WDL_WIN,
};
use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::value::Value;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// zstd levels (measured on the KRNKAABB family, `formats/table.md` §13). Distance blocks hold
/// most of the bytes: level 15 is 24 % smaller than level 9 and about 6 % larger than level 19,
/// which costs four times its time. WDL blocks at level 19 were 1.7 % smaller and took a second
/// more of the family's write.
const WDL_LEVEL: i32 = 15;
const DTC_LEVEL: i32 = 15;

/// Level 15's parameters for inputs of at most 256 KiB, set explicitly for DTM distance
/// blocks. zstd picks a level's parameters by the input's size, and a block of 2^18 one-byte
/// symbols is one byte over 256 KiB with its width byte: it gets the parameters for large
/// inputs (matches of at least 5, a shorter optimal parse), which left KRCKR's DTM distance
/// blocks 19 % larger (its DTC ones 15 %) for about 40 % of the compression time. DTC blocks
/// keep the faster choice: their files are far smaller than the peer's already, and every
/// build writes them (`formats/table.md` §13).
const DTM_DISTANCE_PARAMETERS: [zstd::zstd_safe::CParameter; 7] = {
    use zstd::zstd_safe::{CParameter as P, Strategy};
    [
        P::WindowLog(18),
        P::ChainLog(18),
        P::HashLog(19),
        P::SearchLog(6),
        P::MinMatch(3),
        P::TargetLength(128),
        P::Strategy(Strategy::ZSTD_btopt),
    ]
};

/// At most this many blocks are compressed at once, whatever the thread count: a compression
/// context at these levels holds about 1.8 MiB (WDL) and 2.9 MiB (distances), measured with
/// `ZSTD_sizeof_CCtx`, and the 64 MiB build budget (formats/build.md §9) has room for a few,
/// not one per thread.
/// (KRNKBB streamed at `--memory 64M --threads 8`: peak RSS 79 MiB with eight, 52 with two.)
const MAX_COMPRESSORS: usize = 2;

/// Blocks compressed per parallel batch: two per compressing thread (blocks differ in cost), few
/// enough to bound the buffered symbols (3 bytes an entry: 3 MiB a batch; [`IN_FLIGHT`] of them
/// compressing and one filling).
const BATCH_BLOCKS: usize = 2 * MAX_COMPRESSORS;

/// A compressing thread's zstd contexts (WDL, distances) and buffers, made once and reused for
/// every block: a new context per block cost an allocation and set-up of megabytes each time,
/// and fresh buffers of a block's size (over glibc's mmap threshold) were mapped and unmapped
/// for every block, each unmap taking the process's memory-map lock from the building threads'
/// page faults and flushing every core's TLB (`perf sched`: 0.6 s of KRNKABB's 6.5 s blocked
/// in `munmap`, most of them the writer's).
struct Scratch {
    wdl: zstd::bulk::Compressor<'static>,
    dtc: zstd::bulk::Compressor<'static>,
    dtm: zstd::bulk::Compressor<'static>,
    /// A block's content before compression.
    packed: Vec<u8>,
    /// Its compressed bytes, before they are copied out at their length.
    out: Vec<u8>,
}

impl Scratch {
    fn new() -> Scratch {
        let context = |level| zstd::bulk::Compressor::new(level).expect("a zstd context");
        let mut dtm = context(DTC_LEVEL);
        for p in DTM_DISTANCE_PARAMETERS {
            dtm.set_parameter(p).expect("a zstd parameter in its range");
        }
        Scratch {
            wdl: context(WDL_LEVEL),
            dtc: context(DTC_LEVEL),
            dtm,
            packed: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The compressed form of `self.packed`: a WDL block (`None`) or a distance block of a
    /// metric.
    fn compress(&mut self, distances: Option<Metric>) -> Vec<u8> {
        self.out.clear();
        self.out
            .reserve(zstd::zstd_safe::compress_bound(self.packed.len()));
        let context = match distances {
            None => &mut self.wdl,
            Some(Metric::Dtc) => &mut self.dtc,
            Some(Metric::Dtm) => &mut self.dtm,
        };
        context
            .compress_to_buffer(&self.packed, &mut self.out)
            .expect("zstd compression of a buffer");
        self.out.clone()
    }
}

thread_local! {
    /// Each compressing thread's [`Scratch`]; they go with the writer's threads.
    static SCRATCH: std::cell::RefCell<Option<Scratch>> = const { std::cell::RefCell::new(None) };
}

/// Compresses a batch of entries' symbols, block by block in parallel (on the calling pool):
/// each block's (WDL, distances) compressed bytes, in order.
fn compress_blocks(wdl: &[u8], dtc: &[u16], metric: Metric) -> Vec<(Vec<u8>, Vec<u8>)> {
    let be = BLOCK_ENTRIES as usize;
    dtc.par_chunks(be)
        .enumerate()
        .map(|(k, d)| {
            SCRATCH.with_borrow_mut(|s| {
                let s = s.get_or_insert_with(Scratch::new);
                // A folded side's WDL blocks are empty (no WDL symbols were given).
                let wz = match wdl.get(k * be..) {
                    Some(w) if !w.is_empty() => {
                        pack_wdl(&w[..d.len()], &mut s.packed);
                        s.compress(None)
                    }
                    _ => Vec::new(),
                };
                pack_symbols(d, &mut s.packed);
                let dz = s.compress(Some(metric));
                (wz, dz)
            })
        })
        .collect()
}

/// Batches compressing at most while the next is converted (each holds its symbols, 3 bytes an
/// entry, and its compressed blocks).
const IN_FLIGHT: usize = 2;

/// Where a block went: offset, compressed length, crc32.
type IndexEntry = (u64, u32, u32);

/// Writes one table file, both sides' entries in index order ([`TableWriter::create`],
/// [`TableWriter::write`], [`TableWriter::finish`]); dropped unfinished, it removes its temporary
/// file.
pub struct TableWriter {
    path: PathBuf,
    tmp_path: PathBuf,
    out: BufWriter<File>,
    material: Material,
    entries: u64,
    /// Entries received so far, per side.
    written: ByColor<u64>,
    /// Symbols of the current side not yet compressed (fewer than a batch, or a side's end).
    wdl: Vec<u8>,
    dtc: Vec<u16>,
    /// The symbols given to the last legal entry: an illegal entry repeats them.
    fill: (u8, u16),
    /// The side whose distances are derived (format 4, §5): its distance stream holds 0 but for
    /// the seeds of orders above 0 (symbol + 1).
    derived: Option<Color>,
    /// The value table, in order of first use, and its inverse: a direct table per order,
    /// indexed by half the distance (a hash lookup per entry of order > 0 took about 4 % of the
    /// samples of KRCKR's final write: `perf record`).
    symbols: Vec<Symbol>,
    by_order: Vec<Vec<u16>>,
    /// Each folded side's fold table (`formats/table.md` §7.1): its values in order of first
    /// use, symbol `k + 1` for entry `k`; and the current side's inverse, by order and
    /// distance (as `by_order`).
    fold: ByColor<Vec<(u16, u16)>>,
    fold_by_order: Vec<Vec<u16>>,
    /// The symbol given to the folded side's last legal entry: an illegal entry repeats it.
    fold_fill: u16,
    /// Block index entries in file order per stream (side 0's blocks, then side 1's).
    wdl_index: Vec<IndexEntry>,
    dtc_index: Vec<IndexEntry>,
    /// Compressed WDL blocks, appended after the distance blocks at the end.
    wdl_blocks: Vec<Vec<u8>>,
    offset: u64,
    /// crc32 of everything after the header, as written.
    body_crc: crc32fast::Hasher,
    /// The supporting tables, listed after the header.
    supports: Vec<SupportingTable>,
    /// DTM: the keys of phase 0 (the level table after the list); `None` for DTC.
    levels: Option<Levels>,
    /// Set once the file is renamed into place; until then dropping the writer removes it.
    done: bool,
    /// The threads that compress (at most [`MAX_COMPRESSORS`]).
    pool: rayon::ThreadPool,
    /// The batches they are compressing, oldest first ([`TableWriter::compress`]).
    pending: std::collections::VecDeque<std::sync::mpsc::Receiver<Batch>>,
    /// Symbol buffers of batches already stored, for the next batches (megabytes each: fresh
    /// ones were mapped and unmapped for every batch, see [`Scratch`]).
    spare: Vec<(Vec<u8>, Vec<u16>)>,
}

/// A batch's compressed blocks (WDL, distances), in order, and the symbol buffers it came from.
struct Batch {
    blocks: Vec<(Vec<u8>, Vec<u8>)>,
    symbols: (Vec<u8>, Vec<u16>),
}

impl Drop for TableWriter {
    /// A write that failed or was abandoned leaves no temporary file behind.
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.tmp_path);
        }
    }
}

const NO_SYMBOL: u16 = u16::MAX;

/// The symbol slot of `(order, k)` in a direct table by order, then `k` (half the distance, or
/// the distance), grown as needed; [`NO_SYMBOL`] until assigned.
fn slot(table: &mut Vec<Vec<u16>>, order: u16, k: u16) -> &mut u16 {
    let (o, k) = (order as usize, k as usize);
    if table.len() <= o {
        table.resize(o + 1, Vec::new());
    }
    let row = &mut table[o];
    if row.len() <= k {
        row.resize(k + 1, NO_SYMBOL);
    }
    &mut row[k]
}

impl TableWriter {
    /// Starts `path` (written as `path.tmp` until [`TableWriter::finish`]); the distances of
    /// side `derived`, if any, are left to be found from its moves. `supports` are the tables
    /// `material`'s captures lead to, as the values were computed from them (one per material
    /// of [`Material::captures_into`], in that order). `levels`: a DTM table's level table (its
    /// keys of phase 0; the own phases follow from the max order at [`TableWriter::finish`]),
    /// `None` for a DTC table. A DTM table implies no distance (its derived side, if any, stores
    /// only its outcome and the seeds of its own phases, as a DTC table's does).
    pub fn create(
        path: &Path,
        material: Material,
        entries: u64,
        (derived, levels): (Option<Color>, Option<&Levels>),
        supports: &[SupportingTable],
    ) -> Result<TableWriter, TableError> {
        assert!(
            supports
                .iter()
                .map(|s| s.material)
                .eq(material.captures_into()),
            "one supporting table per material {material}'s captures lead to, in order"
        );
        let mut tmp_path = path.as_os_str().to_owned();
        tmp_path.push(".tmp");
        let tmp_path = PathBuf::from(tmp_path);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads().min(MAX_COMPRESSORS))
            .thread_name(|k| format!("xqtb-zstd-{k}"))
            .build()
            .map_err(|e| TableError::io(&tmp_path)(std::io::Error::other(e)))?;
        let file = File::create(&tmp_path).map_err(TableError::io(&tmp_path))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        // The header is written last, over these zeros; the lists are part of the body.
        let mut list = supports_to_bytes(supports);
        if let Some(l) = levels {
            list.extend_from_slice(&l.to_bytes());
        }
        out.write_all(&[0u8; HEADER_LEN])
            .and_then(|()| out.write_all(&list))
            .map_err(TableError::io(&tmp_path))?;
        let mut body_crc = crc32fast::Hasher::new();
        body_crc.update(&list);
        Ok(TableWriter {
            path: path.to_owned(),
            tmp_path,
            out,
            material,
            entries,
            written: ByColor([0; 2]),
            wdl: Vec::new(),
            dtc: Vec::new(),
            fill: (WDL_DRAW, 0),
            derived,
            symbols: Vec::new(),
            by_order: Vec::new(),
            fold: ByColor::default(),
            fold_by_order: Vec::new(),
            fold_fill: 0,
            wdl_index: Vec::new(),
            dtc_index: Vec::new(),
            wdl_blocks: Vec::new(),
            offset: (HEADER_LEN + list.len()) as u64,
            body_crc,
            supports: supports.to_vec(),
            levels: levels.cloned(),
            done: false,
            pool,
            pending: Default::default(),
            spare: Vec::new(),
        })
    }

    /// The symbol of a decided value, assigned on first use.
    fn symbol(&mut self, order: u16, distance: u16) -> u16 {
        let key = Symbol {
            order,
            half: distance >> 1,
        };
        let slot = slot(&mut self.by_order, order, key.half);
        if *slot == NO_SYMBOL {
            // At most 2^16 - 1 symbols: (order, half) pairs number 2^14 · 2^15, but a table
            // holding more than 65,535 distinct values would need a wider symbol.
            assert!(self.symbols.len() < NO_SYMBOL as usize, "too many values");
            *slot = self.symbols.len() as u16;
            self.symbols.push(key);
        }
        *slot
    }

    /// Appends the next `codes` ([`Value::code`], 0 for an entry that is not a legal position)
    /// of `side` in index order. Sides are written in order, Red first; calls may cut a side
    /// anywhere.
    pub fn write(&mut self, side: Color, codes: &[u32]) -> Result<(), TableError> {
        assert!(
            side == Color::Black || self.written[Color::Black] == 0,
            "sides are written in order"
        );
        assert!(side == Color::Red || self.written[Color::Red] == self.entries);
        assert!(self.written[side] + codes.len() as u64 <= self.entries);
        self.wdl.reserve(codes.len());
        self.dtc.reserve(codes.len());
        if self.derived == Some(side) {
            self.write_derived(codes);
        } else if self.metric() == Metric::Dtm {
            if self.written[side] == 0 {
                self.fold_by_order.clear();
                self.fold_fill = 0;
            }
            self.write_folded(side, codes);
        } else {
            self.write_stored(codes);
        }
        self.written[side] += codes.len() as u64;
        let be = BLOCK_ENTRIES as usize;
        let side_done = self.written[side] == self.entries;
        let ready = if side_done {
            self.dtc.len()
        } else {
            self.dtc.len() / (be * BATCH_BLOCKS) * (be * BATCH_BLOCKS)
        };
        if ready > 0 {
            self.compress(ready)?;
        }
        Ok(())
    }

    /// A stored side's entries into symbols: illegal entries repeat the last legal one's, and
    /// so do the distances of draws and of values at once.
    fn write_stored(&mut self, codes: &[u32]) {
        for &code in codes {
            let (w, d) = match Value::from_code(code) {
                None => self.fill,
                Some(Value::Draw) => (WDL_DRAW, self.fill.1),
                Some(v @ Value::Decided { order, distance }) => {
                    let w = if distance % 2 == 1 { WDL_WIN } else { WDL_LOSS };
                    // Numbered even when not stored: the value table counts every value.
                    let s = self.symbol(order, distance);
                    let implied = self.levels.is_none() && distance_implied(v);
                    (w, if implied { self.fill.1 } else { s })
                }
            };
            if code != crate::value::CODE_NONE {
                self.fill = (w, d);
            }
            self.wdl.push(w);
            self.dtc.push(d);
        }
    }

    /// A folded side's entries into distance symbols alone (a DTM table's side that is not
    /// derived, `formats/table.md` §5.1): 0 for a draw, `k + 1` for the `k`-th value of its
    /// fold table; illegal entries repeat the last legal one's.
    fn write_folded(&mut self, side: Color, codes: &[u32]) {
        for &code in codes {
            let d = match Value::from_code(code) {
                None => self.fold_fill,
                Some(Value::Draw) => 0,
                Some(Value::Decided { order, distance }) => {
                    self.symbol(order, distance);
                    self.fold_symbol(side, order, distance)
                }
            };
            if code != crate::value::CODE_NONE {
                self.fold_fill = d;
            }
            self.dtc.push(d);
        }
    }

    /// The folded side's symbol of a decided value, assigned on first use.
    fn fold_symbol(&mut self, side: Color, order: u16, distance: u16) -> u16 {
        let slot = slot(&mut self.fold_by_order, order, distance);
        if *slot == NO_SYMBOL {
            let fold = &mut self.fold[side];
            assert!(
                fold.len() < super::MAX_FOLD_ENTRIES as usize,
                "too many values on one side"
            );
            fold.push((order, distance));
            *slot = fold.len() as u16;
        }
        *slot
    }

    /// A derived side's entries into symbols: WDL as usual (illegal entries repeat the last
    /// legal one's), distances 0 but for the seeds of orders above 0 (their symbol + 1).
    fn write_derived(&mut self, codes: &[u32]) {
        for &code in codes {
            let (w, d) = match Value::from_code(code) {
                None => (self.fill.0, 0),
                Some(Value::Draw) => (WDL_DRAW, 0),
                Some(v @ Value::Decided { order, distance }) => {
                    let w = if distance % 2 == 1 { WDL_WIN } else { WDL_LOSS };
                    let s = self.symbol(order, distance);
                    (w, if super::is_order_seed(v) { s + 1 } else { 0 })
                }
            };
            if code != crate::value::CODE_NONE {
                self.fill.0 = w;
            }
            self.wdl.push(w);
            self.dtc.push(d);
        }
    }

    /// Hands the first `n` buffered entries (whole blocks, or a side's end) to the compressing
    /// threads, and stores the oldest batch handed over if more than [`IN_FLIGHT`] are. The
    /// caller thus turns the next entries into symbols while batches compress: done in turn,
    /// the compressing threads waited for every conversion and for a batch's slowest block
    /// (`perf`: 85 % of two threads busy in KRNKAABB's write; 2.96/3.04 → 2.61/2.74 s).
    fn compress(&mut self, n: usize) -> Result<(), TableError> {
        let (mut wdl, mut dtc) = self.spare.pop().unwrap_or_default();
        wdl.clear();
        // A folded side has no WDL symbols.
        wdl.extend(self.wdl.drain(..n.min(self.wdl.len())));
        dtc.clear();
        dtc.extend(self.dtc.drain(..n));
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let metric = self.metric();
        self.pool.spawn(move || {
            let blocks = compress_blocks(&wdl, &dtc, metric);
            // The receiver is gone only if the write was abandoned: nothing to store then.
            let _ = tx.send(Batch {
                blocks,
                symbols: (wdl, dtc),
            });
        });
        self.pending.push_back(rx);
        // With one thread asked for, one works at a time: the batch is stored at once.
        let in_flight = if self.pool.current_num_threads() > 1 {
            IN_FLIGHT
        } else {
            0
        };
        while self.pending.len() > in_flight {
            self.store_pending()?;
        }
        Ok(())
    }

    /// The metric of the table being written: DTM exactly when it has a level table.
    fn metric(&self) -> Metric {
        if self.levels.is_some() {
            Metric::Dtm
        } else {
            Metric::Dtc
        }
    }

    /// Waits for the oldest batch in flight, if any, and stores its blocks.
    fn store_pending(&mut self) -> Result<(), TableError> {
        let Some(rx) = self.pending.pop_front() else {
            return Ok(());
        };
        let Batch { blocks, symbols } = rx.recv().map_err(|_| {
            TableError::io(&self.tmp_path)(std::io::Error::other(
                "a compressing thread stopped before its blocks were done",
            ))
        })?;
        self.spare.push(symbols);
        for (wz, dz) in blocks {
            self.dtc_index
                .push((self.offset, dz.len() as u32, crc32fast::hash(&dz)));
            self.put(&dz)?;
            self.wdl_index
                .push((0, wz.len() as u32, crc32fast::hash(&wz)));
            self.wdl_blocks.push(wz);
        }
        Ok(())
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), TableError> {
        self.out
            .write_all(bytes)
            .map_err(TableError::io(&self.tmp_path))?;
        self.body_crc.update(bytes);
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Writes the WDL blocks, value table, block index, header and trailer, syncs, and renames
    /// the file into place. `sides` and `tallies` count the positions of each side to move and
    /// give each value's first index (every decided value written must be in its side's
    /// histogram).
    pub fn finish(
        mut self,
        rule_set: RuleSet,
        sides: ByColor<SideCounts>,
        tallies: &ByColor<(Histogram, Firsts)>,
        max_order: u16,
    ) -> Result<PathBuf, TableError> {
        assert_eq!(
            self.written,
            ByColor([self.entries; 2]),
            "every entry of both sides written"
        );
        assert_eq!(
            rule_set,
            rule_set.for_material(self.material),
            "a table records dtc-any exactly when no rules change its values"
        );
        assert!(
            rule_set.has_orders() || max_order == 0,
            "rule set {} has order 0 only",
            rule_set.name()
        );
        while !self.pending.is_empty() {
            self.store_pending()?;
        }
        for (k, block) in std::mem::take(&mut self.wdl_blocks).into_iter().enumerate() {
            self.wdl_index[k].0 = self.offset;
            self.put(&block)?;
        }
        let mut tail = Vec::with_capacity(
            self.symbols.len() * super::VALUE_ENTRY_LEN
                + (self.wdl_index.len() + self.dtc_index.len()) * 16,
        );
        for s in &self.symbols {
            tail.extend_from_slice(&s.order.to_le_bytes());
            tail.extend_from_slice(&s.half.to_le_bytes());
            for (_, (h, firsts)) in tallies.iter() {
                let (win, loss) = ((s.order, 2 * s.half + 1), (s.order, 2 * s.half));
                let count = |key| h.get(&key).copied().unwrap_or(0);
                let first = |key| firsts.get(&key).copied().unwrap_or(NO_INDEX);
                for field in [count(win), count(loss), first(win), first(loss)] {
                    tail.extend_from_slice(&field.to_le_bytes());
                }
            }
        }
        debug_assert!(tallies
            .iter()
            .flat_map(|(_, (h, _))| h.keys())
            .all(|&(order, d)| self.symbols.contains(&Symbol { order, half: d / 2 })));
        for (_, fold) in self.fold.iter() {
            for &(order, distance) in fold {
                tail.extend_from_slice(&order.to_le_bytes());
                tail.extend_from_slice(&distance.to_le_bytes());
            }
        }
        let index_offset = self.offset + tail.len() as u64;
        for &(offset, len, crc) in self.wdl_index.iter().chain(&self.dtc_index) {
            let mut e = [0u8; INDEX_ENTRY_LEN];
            LE::write_u64(&mut e[0..], offset);
            LE::write_u32(&mut e[8..], len);
            LE::write_u32(&mut e[12..], crc);
            tail.extend_from_slice(&e);
        }
        self.put(&tail)?;
        let header = Header {
            material: self.material,
            rule_set,
            index_scheme: crate::index::INDEX_SCHEME_VERSION,
            entries: self.entries,
            block_entries: BLOCK_ENTRIES,
            max_order,
            sides,
            index_offset,
            symbols: self.symbols.len() as u32,
            file_len: self.offset + 4,
            index_crc: crc32fast::hash(&tail),
            builder: super::BUILDER_ID.to_string(),
            derived: self.derived,
            supports: std::mem::take(&mut self.supports),
            metric: self.metric(),
            fold_entries: ByColor::new(|side| self.fold[side].len() as u32),
            levels: self
                .levels
                .as_ref()
                .map_or_else(Levels::default, |l| l.with_max_order(max_order)),
        };
        debug_assert_eq!(header.index_offset + header.index_len(), self.offset);
        let head = header.to_bytes();
        let mut file_crc = crc32fast::Hasher::new();
        // Not header_crc: a crc32 followed by its own crc32 leaves a constant state, so with it
        // the trailer would not depend on the header at all (formats/table.md §9).
        file_crc.update(&head[..super::HEADER_CRC_AT]);
        file_crc.combine(&self.body_crc);
        let io = TableError::io(&self.tmp_path);
        let finish = |out: &mut BufWriter<File>| -> std::io::Result<()> {
            out.write_all(&file_crc.clone().finalize().to_le_bytes())?;
            out.flush()?;
            let f = out.get_mut();
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&head)?;
            f.sync_all()
        };
        finish(&mut self.out).map_err(io)?;
        crate::fsio::rename_synced(&self.tmp_path, &self.path)
            .map_err(TableError::io(&self.path))?;
        self.done = true;
        Ok(self.path.clone())
    }
}

/// A WDL block's content, into `raw`: four entries a byte, two bits each, entry `k` in bits
/// `2 (k % 4)` of byte `k / 4`; unused bits of the last byte zero.
fn pack_wdl(w: &[u8], raw: &mut Vec<u8>) {
    raw.clear();
    raw.extend(
        w.chunks(4)
            .map(|q| q.iter().rev().fold(0u8, |b, &x| b << 2 | x)),
    );
}

/// A distance block's content, into `raw`: a width byte (4, 8 or 16 bits a symbol, the least
/// that holds the block's largest symbol), then the symbols: two a byte (low nibble first), one
/// a byte, or little-endian `u16`.
fn pack_symbols(d: &[u16], raw: &mut Vec<u8>) {
    let max = d.iter().copied().max().unwrap_or(0);
    raw.clear();
    if max < 16 {
        raw.push(4);
        raw.extend(
            d.chunks(2)
                .map(|p| (p[0] | p.get(1).map_or(0, |&h| h << 4)) as u8),
        );
    } else if max < 256 {
        raw.push(8);
        raw.extend(d.iter().map(|&s| s as u8));
    } else {
        raw.push(16);
        raw.extend(d.iter().flat_map(|s| s.to_le_bytes()));
    }
}
