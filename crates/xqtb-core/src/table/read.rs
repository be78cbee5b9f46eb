//! Table reader: the file read by position (`pread`) behind [`ReadAt`] (tests feed in-memory
//! bytes), O(1) open (header, supporting-table list, value table and block index checksums),
//! one block decompressed per probe through a bounded, sharded LRU cache, and a full checksum
//! pass.
//!
//! The file is read, not memory-mapped: a mapped file that another process truncates or
//! rewrites in place (`cp new.xqtb X.xqtb` does) makes the next access fault (SIGBUS), which
//! would end a server and every table it serves. A read of such a file returns an error or
//! bytes that fail their block's checksum instead. Probes read only on a cache miss, one block
//! at a time, so the copy costs little (`docs/performance.md`). Legality is decided from the
//! position (the table's [`Indexer`] decodes the index), never from the stored bytes, which hold
//! "don't care" symbols for illegal entries.

use super::{
    derived_stand_in, is_order_seed, side_char, supports_from_bytes, wdl_outcome, Firsts, Header,
    Histogram, Levels, Metric, Stream, SupportingTable, Symbol, SymbolCounts, TableError,
    FOLD_ENTRY_LEN, HEADER_CRC_AT, HEADER_LEN, INDEX_ENTRY_LEN, NO_INDEX, SUPPORT_LEN,
    VALUE_ENTRY_LEN, WDL_DRAW, WDL_LOSS, WDL_WIN,
};
use crate::index::Indexer;
use crate::piece::{ByColor, Color};
use crate::value::{Outcome, Value, CODE_NONE, MAX_ORDER};
use byteorder::{ByteOrder, LittleEndian as LE};
use lru::LruCache;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Positional reads (`pread`): no shared cursor, so one file serves many threads.
pub trait ReadAt: Send + Sync {
    /// Fills `buf` with the bytes at `offset`; an error if they are not all there.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// The length in bytes.
    fn size(&self) -> io::Result<u64>;
    /// The bytes at `offset .. offset + len` in place, where the reader holds them in memory
    /// (a mapping, a vector): no copy. `None` if it does not or they are out of range.
    fn bytes_at(&self, _offset: u64, _len: usize) -> Option<&[u8]> {
        None
    }
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

fn slice_at(bytes: &[u8], offset: u64, len: usize) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    bytes.get(start..)?.get(..len)
}

fn copy_at(bytes: &[u8], buf: &mut [u8], offset: u64) -> io::Result<()> {
    match slice_at(bytes, offset, buf.len()) {
        Some(src) => {
            buf.copy_from_slice(src);
            Ok(())
        }
        None => Err(io::ErrorKind::UnexpectedEof.into()),
    }
}

impl ReadAt for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        copy_at(self, buf, offset)
    }
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
    fn bytes_at(&self, offset: u64, len: usize) -> Option<&[u8]> {
        slice_at(self, offset, len)
    }
}

const MAX_SHARDS: usize = 16;

/// The most bytes one decompressed block can take: a distance block of 16-bit symbols (a WDL
/// block is a quarter of a byte an entry, a 4-bit distance block half a byte).
fn max_block_bytes(header: &Header) -> usize {
    1 + 2 * (header.block_entries as u64).min(header.entries.max(1)) as usize
}

/// The most bytes all of a table's blocks can take decompressed, both streams and sides.
fn all_blocks_bytes(header: &Header) -> usize {
    let blocks = header.blocks_per_side();
    let side = header.entries.div_ceil(4) + 2 * header.entries + 2 * blocks;
    usize::try_from(2 * side).unwrap_or(usize::MAX)
}

/// How a cache of `cache_bytes` is laid out: shards and the bytes each may hold. At least one
/// block of any kind fits; a table's cache never counts more than all its blocks could take
/// (so a huge cache costs nothing up front: blocks are allocated as they are read).
fn cache_plan(header: &Header, cache_bytes: usize) -> (usize, usize) {
    let block = max_block_bytes(header);
    let cap = cache_bytes.min(all_blocks_bytes(header)).max(block);
    let shards = (cap / block).clamp(1, MAX_SHARDS);
    (shards, cap / shards)
}

/// The most bytes of decompressed blocks a table's cache of `cache_bytes` holds: a real bound
/// (blocks are counted by their size), less than `cache_bytes` for a table smaller than its
/// cache, and at least one block.
pub fn cache_limit(header: &Header, cache_bytes: usize) -> usize {
    let (shards, per_shard) = cache_plan(header, cache_bytes);
    shards * per_shard
}

/// One shard of the block cache: least recently used blocks go first once the bytes they hold
/// pass the shard's budget.
struct Shard {
    blocks: LruCache<u64, Arc<[u8]>>,
    bytes: usize,
}

/// An open table file.
pub struct TableFile<R: ReadAt = File> {
    path: PathBuf,
    r: R,
    header: Header,
    /// The trailer: the crc32 of every byte before it, as the file states it.
    file_crc: u32,
    /// The block index (read and checked at open): no read of the file to find a block.
    block_index: Vec<u8>,
    indexer: Indexer,
    values: Vec<Symbol>,
    /// Positions holding each value-table entry's value, per side to move.
    counts: Vec<SymbolCounts>,
    /// Each folded side's fold table: distance symbol `k + 1` stands for value `k`, 0 for a
    /// draw (`formats/table.md` §7.1); empty for a side that is not folded.
    fold: ByColor<Vec<Value>>,
    /// Decompressed blocks by (stream, side, block): WDL (2 bits an entry), or a distance block (a width
    /// byte, then the symbols).
    cache: Vec<Mutex<Shard>>,
    /// Bytes each shard may hold.
    shard_budget: usize,
}

impl TableFile<File> {
    /// Opens a table with a cache of `cache_bytes` of decompressed blocks (at least one block).
    pub fn open(path: &Path, cache_bytes: usize) -> Result<TableFile<File>, TableError> {
        TableFile::from_reader(open_plain(path)?, path, cache_bytes)
    }

    /// The open file's metadata (of the file read, whatever its path names now).
    pub fn metadata(&self) -> io::Result<std::fs::Metadata> {
        self.r.metadata()
    }
}

/// The header of the table file at `path`, with its supporting-table list (checked as
/// [`TableFile::open`] checks them): a look at a file without opening it for probes.
pub fn read_header(path: &Path) -> Result<Header, TableError> {
    let f = open_plain(path)?;
    let len = f.metadata().map_err(TableError::io(path))?.len();
    header_of(&f, len, path)
}

/// Opens `path` for reading if it is a plain file (or a link to one): opening a FIFO would
/// block until a writer came, so the kind is looked at first.
fn open_plain(path: &Path) -> Result<File, TableError> {
    let kind = std::fs::metadata(path)
        .map_err(TableError::io(path))?
        .file_type();
    if !kind.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let kind = match () {
            _ if kind.is_dir() => "a directory",
            _ if kind.is_fifo() => "a FIFO",
            _ if kind.is_socket() => "a socket",
            _ if kind.is_block_device() || kind.is_char_device() => "a device",
            _ => "not a plain file",
        };
        return Err(TableError::NotAFile {
            path: path.to_owned(),
            kind,
        });
    }
    File::open(path).map_err(TableError::io(path))
}

/// What a table built from the file at `path` records of it ([`TableFile::as_support`]), from
/// its header and trailer alone.
pub fn read_identity(path: &Path) -> Result<SupportingTable, TableError> {
    let f = open_plain(path)?;
    let len = f.metadata().map_err(TableError::io(path))?.len();
    let h = header_of(&f, len, path)?;
    let mut trailer = [0u8; 4];
    f.read_exact_at(&mut trailer, len - 4)
        .map_err(TableError::io(path))?;
    Ok(SupportingTable {
        material: h.material,
        rule_set: h.rule_set,
        file_crc: LE::read_u32(&trailer),
        file_len: len,
    })
}

/// The header and supporting-table list of a table file of `len` bytes read through `r`,
/// checked: magic, versions, checksums, fields, and the length the header states.
fn header_of<R: ReadAt>(r: &R, len: u64, path: &Path) -> Result<Header, TableError> {
    if len < HEADER_LEN as u64 {
        return Err(TableError::Length {
            path: path.to_owned(),
            expected: HEADER_LEN as u64,
            found: len,
        });
    }
    let mut head = [0u8; HEADER_LEN];
    r.read_exact_at(&mut head, 0)
        .map_err(TableError::io(path))?;
    let fields = Header::from_bytes(&head, path)?;
    let mut header = fields.header;
    if header.file_len != len {
        return Err(TableError::Length {
            path: path.to_owned(),
            expected: header.file_len,
            found: len,
        });
    }
    let mut list = vec![0u8; fields.supports as usize * SUPPORT_LEN];
    r.read_exact_at(&mut list, HEADER_LEN as u64)
        .map_err(TableError::io(path))?;
    header.supports = supports_from_bytes(&list, &header, fields.supports_crc, path)?;
    if header.metric == Metric::Dtm {
        let mut bytes = vec![0u8; fields.levels.len as usize];
        r.read_exact_at(&mut bytes, HEADER_LEN as u64 + list.len() as u64)
            .map_err(TableError::io(path))?;
        let bad = |what: String| TableError::BadHeader {
            path: path.to_owned(),
            what,
        };
        if crc32fast::hash(&bytes) != fields.levels.crc {
            return Err(bad("level table checksum mismatch".into()));
        }
        header.levels = Levels::from_bytes(&bytes, fields.levels.count as usize, header.max_order)
            .map_err(|e| bad(e.0))?;
    }
    Ok(header)
}

impl<R: ReadAt> TableFile<R> {
    /// Checks the header (magic, version, checksum, length, material and index size) and reads
    /// the value table, checking it and the block index against their checksum: O(blocks), a
    /// few kilobytes.
    pub fn from_reader(r: R, path: &Path, cache_bytes: usize) -> Result<TableFile<R>, TableError> {
        let io_err = TableError::io(path);
        let len = r.size().map_err(io_err)?;
        let header = header_of(&r, len, path)?;
        let mut trailer = [0u8; 4];
        r.read_exact_at(&mut trailer, len - 4)
            .map_err(TableError::io(path))?;
        let bad = |what: String| TableError::BadHeader {
            path: path.to_owned(),
            what,
        };
        let indexer = Indexer::new(header.material)
            .map_err(|e| bad(format!("material {}: {e}", header.material)))?;
        if header.entries != indexer.size() {
            return Err(bad(format!(
                "{} entries per side, the index of {} has {}",
                header.entries,
                header.material,
                indexer.size()
            )));
        }
        // The tail (value table and block index) is below 2^37 bytes by the header checks, and
        // exactly what the file holds before its trailer.
        let tail_len = header.file_len - 4 - header.values_offset();
        let tail_len = usize::try_from(tail_len).map_err(|_| bad("block index too long".into()))?;
        let mut tail = vec![0u8; tail_len];
        r.read_exact_at(&mut tail, header.values_offset())
            .map_err(TableError::io(path))?;
        if crc32fast::hash(&tail) != header.index_crc {
            return Err(TableError::IndexChecksum(path.to_owned()));
        }
        let entries =
            tail[..header.symbols as usize * VALUE_ENTRY_LEN].chunks_exact(VALUE_ENTRY_LEN);
        let values: Vec<Symbol> = entries
            .clone()
            .map(|e| Symbol {
                order: LE::read_u16(e),
                half: LE::read_u16(&e[2..]),
            })
            .collect();
        // Per side 32 bytes from byte 4: won, lost, first won index, first lost index.
        let field = |e: &[u8], side: usize, k: usize| LE::read_u64(&e[4 + 32 * side + 8 * k..]);
        let counts: Vec<SymbolCounts> = entries
            .map(|e| SymbolCounts {
                win: [field(e, 0, 0), field(e, 1, 0)],
                loss: [field(e, 0, 1), field(e, 1, 1)],
                first_win: [field(e, 0, 2), field(e, 1, 2)],
                first_loss: [field(e, 0, 3), field(e, 1, 3)],
            })
            .collect();
        // A count has a first index inside the table, and only a count has one.
        let first_fits = |n: u64, first: u64| {
            (n == 0) == (first == NO_INDEX) && (n == 0 || first < header.entries)
        };
        if let Some((k, _)) = counts.iter().enumerate().find(|(_, c)| {
            (0..2).any(|side| {
                !first_fits(c.win[side], c.first_win[side])
                    || !first_fits(c.loss[side], c.first_loss[side])
            })
        }) {
            return Err(TableError::ValueTable {
                path: path.to_owned(),
                what: format!("value {k}: a first index without positions, or outside the table"),
            });
        }
        // A DTC value's order is a phase of the table; a DTM value's, an index into its levels.
        let top = match header.metric {
            Metric::Dtc => header.max_order as usize,
            Metric::Dtm => header.levels.len().saturating_sub(1),
        };
        if let Some(s) = values
            .iter()
            .find(|s| s.order > MAX_ORDER || s.order as usize > top || s.half > u16::MAX / 2)
        {
            return Err(TableError::ValueTable {
                path: path.to_owned(),
                what: format!(
                    "impossible value: order {}, half distance {}",
                    s.order, s.half
                ),
            });
        }
        for side in Color::ALL {
            let s = side.index();
            let (win, loss) = counts.iter().fold((0u64, 0u64), |(w, l), c| {
                (w.wrapping_add(c.win[s]), l.wrapping_add(c.loss[s]))
            });
            let st = &header.sides[side];
            if (win, loss) != (st.win, st.loss) {
                return Err(TableError::ValueTable {
                    path: path.to_owned(),
                    what: format!(
                        "side {} counts {win} wins and {loss} losses, the header {} and {}",
                        side_char(side),
                        st.win,
                        st.loss
                    ),
                });
            }
        }
        let (shards, shard_budget) = cache_plan(&header, cache_bytes);
        let mut block_index = tail.split_off(header.symbols as usize * VALUE_ENTRY_LEN);
        let folds = block_index
            .drain(..header.fold_len() as usize)
            .collect::<Vec<u8>>();
        let fold =
            fold_tables(&header, &folds, &values, &counts, &block_index).map_err(|what| {
                TableError::ValueTable {
                    path: path.to_owned(),
                    what,
                }
            })?;
        Ok(TableFile {
            path: path.to_owned(),
            r,
            file_crc: LE::read_u32(&trailer),
            block_index,
            header,
            indexer,
            values,
            counts,
            fold,
            cache: (0..shards)
                .map(|_| {
                    Mutex::new(Shard {
                        blocks: LruCache::unbounded(),
                        bytes: 0,
                    })
                })
                .collect(),
            shard_budget,
        })
    }

    /// The decoded header (checked at open).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// What a table built from this one records of it (`formats/table.md` §4.1): its material,
    /// rule set, trailer and length.
    pub fn as_support(&self) -> SupportingTable {
        SupportingTable {
            material: self.header.material,
            rule_set: self.header.rule_set,
            file_crc: self.file_crc,
            file_len: self.header.file_len,
        }
    }

    /// The path the table was opened from (used in error messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The index of this table's material.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The value table: distance symbol → (order, half distance).
    pub fn values(&self) -> &[Symbol] {
        &self.values
    }

    /// Positions holding each value of the value table, won and lost, per side to move: the
    /// table's distance histogram without reading a block.
    pub fn value_counts(&self) -> &[SymbolCounts] {
        &self.counts
    }

    /// One side's first index of each decided `(order, distance)` it holds, from
    /// [`TableFile::value_counts`].
    pub fn firsts(&self, side: Color) -> Firsts {
        let s = side.index();
        self.by_value(|c| [c.first_win[s], c.first_loss[s]], NO_INDEX)
    }

    /// One side's histogram, from [`TableFile::value_counts`]: positions per decided
    /// `(order, distance)`.
    pub fn histogram(&self, side: Color) -> Histogram {
        let s = side.index();
        self.by_value(|c| [c.win[s], c.loss[s]], 0)
    }

    /// A field of every value-table entry (`[win, loss]`), by `(order, distance)`, leaving out
    /// the values whose field is `none`.
    fn by_value(
        &self,
        field: impl Fn(&SymbolCounts) -> [u64; 2],
        none: u64,
    ) -> std::collections::BTreeMap<(u16, u16), u64> {
        let mut out = std::collections::BTreeMap::new();
        for (s, c) in self.values.iter().zip(&self.counts) {
            let [win, loss] = field(c);
            for (distance, x) in [(2 * s.half + 1, win), (2 * s.half, loss)] {
                if x != none {
                    out.insert((s.order, distance), x);
                }
            }
        }
        out
    }

    fn block_error(
        &self,
        stream: Stream,
        side: Color,
        block: u64,
        what: impl Into<String>,
    ) -> TableError {
        TableError::Block {
            path: self.path.clone(),
            stream: stream.name(),
            side: side_char(side),
            block,
            what: what.into(),
        }
    }

    /// Reads, checks (bounds, crc32, decompressed length) and decompresses one block of a
    /// stream: WDL (four 2-bit symbols a byte, entry `k` in bits `2 (k % 4)` of byte `k / 4`), or
    /// a distance block (its width byte: 4, 8 or 16 bits a symbol, then the
    /// symbols: two a byte, low nibble first; one a byte; little-endian `u16`).
    pub fn read_stream_block(
        &self,
        stream: Stream,
        side: Color,
        block: u64,
    ) -> Result<Vec<u8>, TableError> {
        let h = &self.header;
        assert!(block < h.blocks_per_side());
        let err = |what: &str| self.block_error(stream, side, block, what);
        let at = (h.index_entry_at(stream, side, block) - h.index_offset) as usize;
        let e = &self.block_index[at..at + INDEX_ENTRY_LEN];
        let (offset, clen, crc) = (
            LE::read_u64(e),
            LE::read_u32(&e[8..]),
            LE::read_u32(&e[12..]),
        );
        if offset < h.data_offset() || offset.saturating_add(clen as u64) > h.values_offset() {
            return Err(err("block index entry points outside the data"));
        }
        let copy;
        let data = match self.r.bytes_at(offset, clen as usize) {
            Some(d) => d,
            None => {
                let mut buf = vec![0u8; clen as usize];
                self.r
                    .read_exact_at(&mut buf, offset)
                    .map_err(TableError::io(&self.path))?;
                copy = buf;
                &copy[..]
            }
        };
        if crc32fast::hash(data) != crc {
            return Err(err("checksum mismatch (corrupted file)"));
        }
        let n = h.block_len(block);
        let cap = match stream {
            Stream::Wdl => n.div_ceil(4),
            Stream::Dtc => 1 + 2 * n,
        };
        let raw = zstd::bulk::decompress(data, cap).map_err(|e| err(&format!("zstd: {e}")))?;
        let ok = match stream {
            // No 2-bit field may hold 3.
            Stream::Wdl => {
                raw.len() == n.div_ceil(4) && raw.iter().all(|&b| b & (b >> 1) & 0x55 == 0)
            }
            Stream::Dtc => match raw.first() {
                Some(4) => raw.len() == 1 + n.div_ceil(2),
                Some(8) => raw.len() == 1 + n,
                Some(16) => raw.len() == 1 + 2 * n,
                _ => false,
            },
        };
        if !ok {
            return Err(err("wrong decompressed length or symbol"));
        }
        Ok(raw)
    }

    /// Bytes of decompressed blocks the cache holds now (at most [`cache_limit`]).
    pub fn cached_bytes(&self) -> usize {
        self.cache.iter().map(|s| s.lock().unwrap().bytes).sum()
    }

    /// A block through the cache.
    fn cached(&self, stream: Stream, side: Color, block: u64) -> Result<Arc<[u8]>, TableError> {
        let key = (stream as u64 * 2 + side as u64) * self.header.blocks_per_side() + block;
        let shard = &self.cache[(key % self.cache.len() as u64) as usize];
        if let Some(b) = shard.lock().unwrap().blocks.get(&key) {
            return Ok(b.clone());
        }
        let b: Arc<[u8]> = self.read_stream_block(stream, side, block)?.into();
        let mut shard = shard.lock().unwrap();
        if let Some(old) = shard.blocks.put(key, b.clone()) {
            // Another thread read it meanwhile.
            shard.bytes -= old.len();
        }
        shard.bytes += b.len();
        while shard.bytes > self.shard_budget && shard.blocks.len() > 1 {
            if let Some((_, gone)) = shard.blocks.pop_lru() {
                shard.bytes -= gone.len();
            }
        }
        Ok(b)
    }

    /// Block and offset of an index; an error past the end.
    fn locate(&self, side: Color, index: u64) -> Result<(u64, usize), TableError> {
        let h = &self.header;
        let be = h.block_entries as u64;
        if index >= h.entries {
            return Err(self.block_error(
                Stream::Wdl,
                side,
                index / be,
                format!("index {index} past the end ({} entries)", h.entries),
            ));
        }
        Ok((index / be, (index % be) as usize))
    }

    /// Is `index` a legal position with `side` to move? Decided from the position (decode,
    /// then the side not to move must not be in check), as `verify` and the builder do.
    pub fn is_legal(&self, side: Color, index: u64) -> bool {
        self.indexer
            .decode(index, side)
            .is_some_and(|p| !p.opponent_in_check())
    }

    /// The outcome of a legal position's entry, reading only the WDL stream (a folded side's
    /// distance stream, which holds its outcomes, `formats/table.md` §5.1). The caller has
    /// checked legality (as `Tablebase::probe_dtc` does before encoding); for an index that is not
    /// a legal position the answer means nothing.
    pub fn outcome_legal(&self, side: Color, index: u64) -> Result<Outcome, TableError> {
        if self.header.folds(side) {
            return Ok(self.stored_legal(side, index)?.outcome());
        }
        let (block, k) = self.locate(side, index)?;
        Ok(wdl_outcome(wdl_at(
            &self.cached(Stream::Wdl, side, block)?,
            k,
        )))
    }

    /// The outcome of an entry; `None` if it is not a legal position.
    pub fn outcome(&self, side: Color, index: u64) -> Result<Option<Outcome>, TableError> {
        self.locate(side, index)?;
        if !self.is_legal(side, index) {
            return Ok(None);
        }
        self.outcome_legal(side, index).map(Some)
    }

    /// The value of a WDL symbol and distance symbol; an error for a symbol outside the value
    /// table (corruption). On a derived side (format 4, §5) symbol 0 is the stand-in of the
    /// outcome, and symbol `s + 1` a loss at value `s`, which must be a seed of an order above 0.
    fn decode_value(
        &self,
        w: u8,
        sym: usize,
        side: Color,
        block: u64,
    ) -> Result<Value, TableError> {
        if w == WDL_DRAW {
            return Ok(Value::Draw);
        }
        let derived = self.header.derived == Some(side);
        if derived && sym == 0 {
            return Ok(derived_stand_in(wdl_outcome(w)));
        }
        let error = |what: String| self.block_error(Stream::Dtc, side, block, what);
        let Some(s) = self.values.get(sym - derived as usize) else {
            return Err(error(format!(
                "symbol {sym} outside the value table ({} entries)",
                self.values.len()
            )));
        };
        let value = Value::Decided {
            order: s.order,
            distance: 2 * s.half + (w == WDL_WIN) as u16,
        };
        if derived && !is_order_seed(value) {
            return Err(error(format!(
                "derived side's symbol {sym} is not a loss of a seed"
            )));
        }
        Ok(value)
    }

    /// The value of a folded side's distance symbol: 0 a draw, `k + 1` its fold table's entry
    /// `k`; an error past the table (corruption).
    fn unfold(&self, sym: usize, side: Color, block: u64) -> Result<Value, TableError> {
        if sym == 0 {
            return Ok(Value::Draw);
        }
        let fold = &self.fold[side];
        fold.get(sym - 1).copied().ok_or_else(|| {
            self.block_error(
                Stream::Dtc,
                side,
                block,
                format!(
                    "symbol {sym} outside the fold table ({} entries)",
                    fold.len()
                ),
            )
        })
    }

    /// The value a legal position's entry stores (WDL and distance streams). Not always the
    /// position's value: a win at `(0, 1)` or a loss at `(0, 0)` stores an arbitrary distance
    /// ([`super::resolve`] and `Tablebase::probe_dtc` give the value). The caller has checked
    /// legality; for an index that is not a legal position the answer means nothing.
    pub fn stored_legal(&self, side: Color, index: u64) -> Result<Value, TableError> {
        let (block, k) = self.locate(side, index)?;
        if self.header.folds(side) {
            let d = self.cached(Stream::Dtc, side, block)?;
            return self.unfold(symbol_at(&d, k), side, block);
        }
        let w = wdl_at(&self.cached(Stream::Wdl, side, block)?, k);
        if w == WDL_DRAW {
            return Ok(Value::Draw);
        }
        let d = self.cached(Stream::Dtc, side, block)?;
        self.decode_value(w, symbol_at(&d, k), side, block)
    }

    /// The value an entry stores ([`TableFile::stored_legal`]); `None` if it is not a legal
    /// position (decided from the position, [`TableFile::is_legal`]).
    pub fn stored(&self, side: Color, index: u64) -> Result<Option<Value>, TableError> {
        self.locate(side, index)?;
        if !self.is_legal(side, index) {
            return Ok(None);
        }
        self.stored_legal(side, index).map(Some)
    }

    /// One block's raw WDL symbols (`WDL_LOSS`, `WDL_DRAW`, `WDL_WIN`), entries that are not
    /// legal positions included (their symbols mean nothing).
    pub fn read_wdl_block(&self, side: Color, block: u64) -> Result<Vec<u8>, TableError> {
        if self.header.folds(side) {
            let d = self.read_stream_block(Stream::Dtc, side, block)?;
            return (0..self.header.block_len(block))
                .map(|k| Ok(wdl_symbol(self.unfold(symbol_at(&d, k), side, block)?)))
                .collect();
        }
        let packed = self.read_stream_block(Stream::Wdl, side, block)?;
        Ok((0..self.header.block_len(block))
            .map(|k| wdl_at(&packed, k))
            .collect())
    }

    /// One block's stored value codes ([`Value::code`]; stored as in
    /// [`TableFile::stored_legal`]) with whatever the file holds for entries that are not legal
    /// positions (a valid code, meaning nothing): for callers that decide legality themselves.
    pub fn read_stored_raw(&self, side: Color, block: u64) -> Result<Vec<u32>, TableError> {
        let d = self.read_stream_block(Stream::Dtc, side, block)?;
        if self.header.folds(side) {
            return (0..self.header.block_len(block))
                .map(|k| Ok(self.unfold(symbol_at(&d, k), side, block)?.code()))
                .collect();
        }
        let w = self.read_wdl_block(side, block)?;
        w.iter()
            .enumerate()
            .map(|(k, &w)| Ok(self.decode_value(w, symbol_at(&d, k), side, block)?.code()))
            .collect()
    }

    /// One block's stored value codes ([`Value::code`]; stored as in
    /// [`TableFile::stored_legal`]), [`CODE_NONE`] for entries that are not legal positions.
    pub fn read_stored(&self, side: Color, block: u64) -> Result<Vec<u32>, TableError> {
        let mut codes = self.read_stored_raw(side, block)?;
        let base = block * self.header.block_entries as u64;
        for (k, c) in codes.iter_mut().enumerate() {
            if !self.is_legal(side, base + k as u64) {
                *c = CODE_NONE;
            }
        }
        Ok(codes)
    }

    /// Checks every byte: the whole-file checksum, the value table and block index checksum
    /// (at open), and every block's checksum, decompressed length and symbols (WDL symbols are
    /// 0, 1 or 2; every win or loss entry's distance symbol is in the value table).
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        self.verify_file_checksum()?;
        for side in Color::ALL {
            for block in 0..self.header.blocks_per_side() {
                self.read_stored_raw(side, block)?;
            }
        }
        Ok(())
    }

    /// Checks the trailer only: the crc32 of every byte before it but `header_crc` (one
    /// sequential read of the file, nothing decompressed).
    pub fn verify_file_checksum(&self) -> Result<(), TableError> {
        let h = &self.header;
        let io = |e| TableError::io(&self.path)(e);
        let mut crc = crc32fast::Hasher::new();
        let body = h.file_len - 4;
        let mut buf = vec![0u8; 1 << 20];
        self.r
            .read_exact_at(&mut buf[..HEADER_LEN], 0)
            .map_err(io)?;
        crc.update(&buf[..HEADER_CRC_AT]);
        let mut at = HEADER_LEN as u64;
        while at < body {
            let n = (body - at).min(buf.len() as u64) as usize;
            self.r.read_exact_at(&mut buf[..n], at).map_err(io)?;
            crc.update(&buf[..n]);
            at += n as u64;
        }
        let mut trailer = [0u8; 4];
        self.r.read_exact_at(&mut trailer, body).map_err(io)?;
        if crc.finalize() != LE::read_u32(&trailer) {
            return Err(TableError::FileChecksum(self.path.clone()));
        }
        Ok(())
    }
}

/// The WDL symbol of a value.
fn wdl_symbol(v: Value) -> u8 {
    match v.outcome() {
        Outcome::Loss => WDL_LOSS,
        Outcome::Draw => WDL_DRAW,
        Outcome::Win => WDL_WIN,
    }
}

/// Each side's fold table (`formats/table.md` §7.1) from its bytes `b` (side 0's entries, then
/// side 1's), checked: every entry a value the side holds by the value table's counts, none
/// twice; and a folded side's WDL blocks empty in the block index.
fn fold_tables(
    h: &Header,
    b: &[u8],
    values: &[Symbol],
    counts: &[SymbolCounts],
    block_index: &[u8],
) -> Result<ByColor<Vec<Value>>, String> {
    let mut entries = b.chunks_exact(FOLD_ENTRY_LEN);
    let mut fold = ByColor::<Vec<Value>>::default();
    let by_value: std::collections::HashMap<Symbol, &SymbolCounts> =
        values.iter().copied().zip(counts).collect();
    for side in Color::ALL {
        let s = side.index();
        let table = &mut fold[side];
        let mut seen = std::collections::HashSet::new();
        for e in entries.by_ref().take(h.fold_entries[side] as usize) {
            let (order, distance) = (LE::read_u16(e), LE::read_u16(&e[2..]));
            let half = distance / 2;
            let held = by_value.get(&Symbol { order, half }).is_some_and(|c| {
                (if distance % 2 == 1 {
                    c.win[s]
                } else {
                    c.loss[s]
                }) > 0
            });
            let value = Value::Decided { order, distance };
            if !held || !seen.insert((order, distance)) {
                return Err(format!(
                    "side {}'s fold table names ({order}, {distance}) {}",
                    side_char(side),
                    if held {
                        "twice"
                    } else {
                        "which the side does not hold"
                    }
                ));
            }
            table.push(value);
        }
        if h.folds(side) {
            let first = (h.index_entry_at(Stream::Wdl, side, 0) - h.index_offset) as usize;
            let wdl = &block_index[first..first + h.blocks_per_side() as usize * INDEX_ENTRY_LEN];
            if wdl
                .chunks_exact(INDEX_ENTRY_LEN)
                .any(|e| LE::read_u32(&e[8..]) != 0)
            {
                return Err(format!(
                    "side {} is folded, its WDL blocks are not empty",
                    side_char(side)
                ));
            }
        }
    }
    Ok(fold)
}

/// WDL symbol `k` of a decompressed, checked WDL block (four 2-bit symbols a byte).
#[inline]
fn wdl_at(w: &[u8], k: usize) -> u8 {
    w[k / 4] >> (2 * (k % 4)) & 3
}

/// Distance symbol `k` of a decompressed, checked distance block (its width byte, then the
/// symbols).
#[inline]
fn symbol_at(d: &[u8], k: usize) -> usize {
    match d[0] {
        4 => (d[1 + k / 2] >> (4 * (k % 2)) & 15) as usize,
        8 => d[1 + k] as usize,
        _ => LE::read_u16(&d[1 + 2 * k..]) as usize,
    }
}
