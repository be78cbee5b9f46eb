//! Table reader: O(1) open (header checks), one block decompressed per probe through a bounded,
//! sharded LRU cache, and a full checksum pass. File access goes through [`ReadAt`] so tests can
//! feed corrupted bytes without touching disk.

use super::{side_char, Header, TableError, HEADER_LEN, INDEX_ENTRY_LEN};
use crate::value::{Value, CODE_NONE};
use byteorder::{ByteOrder, LittleEndian as LE};
use lru::LruCache;
use std::fs::File;
use std::io;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Positional reads (`pread`): no shared cursor, so one file serves many threads.
pub trait ReadAt: Send + Sync {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    fn size(&self) -> io::Result<u64>;
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
    }
    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl ReadAt for Vec<u8> {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match self.get(start..).and_then(|s| s.get(..buf.len())) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
    fn size(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
}

const SHARDS: usize = 16;

/// An open table file.
pub struct TableFile<R: ReadAt = File> {
    path: PathBuf,
    r: R,
    header: Header,
    cache: [Mutex<LruCache<u64, Arc<[u32]>>>; SHARDS],
}

impl TableFile<File> {
    /// Opens a table with the default cache (`cache_bytes` of decoded blocks, at least one per
    /// shard).
    pub fn open(path: &Path, cache_bytes: usize) -> Result<TableFile<File>, TableError> {
        let f = File::open(path).map_err(TableError::io(path))?;
        TableFile::from_reader(f, path, cache_bytes)
    }
}

impl<R: ReadAt> TableFile<R> {
    /// Checks the header (magic, version, checksum, length) and nothing more: O(1).
    pub fn from_reader(r: R, path: &Path, cache_bytes: usize) -> Result<TableFile<R>, TableError> {
        let mut head = [0u8; HEADER_LEN];
        let len = r.size().map_err(TableError::io(path))?;
        if len < HEADER_LEN as u64 {
            return Err(TableError::Length {
                path: path.to_owned(),
                expected: HEADER_LEN as u64,
                found: len,
            });
        }
        r.read_exact_at(&mut head, 0)
            .map_err(TableError::io(path))?;
        let header = Header::from_bytes(&head, path)?;
        if header.file_len != len {
            return Err(TableError::Length {
                path: path.to_owned(),
                expected: header.file_len,
                found: len,
            });
        }
        let block_bytes = header.block_entries as usize * 4;
        let per_shard = NonZeroUsize::new((cache_bytes / block_bytes / SHARDS).max(1)).unwrap();
        Ok(TableFile {
            path: path.to_owned(),
            r,
            header,
            cache: std::array::from_fn(|_| Mutex::new(LruCache::new(per_shard))),
        })
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn block_error(&self, side: usize, block: u64, what: impl Into<String>) -> TableError {
        TableError::Block {
            path: self.path.clone(),
            side: side_char(side),
            block,
            what: what.into(),
        }
    }

    /// Reads, checks and decompresses one block of `side`.
    pub fn read_block(&self, side: usize, block: u64) -> Result<Vec<u32>, TableError> {
        let h = &self.header;
        let nb = h.blocks_per_side();
        assert!(side < 2 && block < nb);
        let mut e = [0u8; INDEX_ENTRY_LEN];
        let at = h.index_offset + (side as u64 * nb + block) * INDEX_ENTRY_LEN as u64;
        self.r
            .read_exact_at(&mut e, at)
            .map_err(TableError::io(&self.path))?;
        let (offset, clen, crc) = (
            LE::read_u64(&e),
            LE::read_u32(&e[8..]),
            LE::read_u32(&e[12..]),
        );
        if offset < HEADER_LEN as u64 || offset.saturating_add(clen as u64) > h.index_offset {
            return Err(self.block_error(side, block, "block index entry points outside the data"));
        }
        let mut data = vec![0u8; clen as usize];
        self.r
            .read_exact_at(&mut data, offset)
            .map_err(TableError::io(&self.path))?;
        if crc32fast::hash(&data) != crc {
            return Err(self.block_error(side, block, "checksum mismatch (corrupted file)"));
        }
        let entries = (h.entries - block * h.block_entries as u64).min(h.block_entries as u64);
        let raw = zstd::bulk::decompress(&data, entries as usize * 4)
            .map_err(|e| self.block_error(side, block, format!("zstd: {e}")))?;
        if raw.len() != entries as usize * 4 {
            return Err(self.block_error(side, block, "wrong decompressed length"));
        }
        let mut codes = vec![0u32; entries as usize];
        LE::read_u32_into(&raw, &mut codes);
        Ok(codes)
    }

    /// The stored code of an entry ([`Value::code`], or [`CODE_NONE`]).
    pub fn code(&self, side: usize, index: u64) -> Result<u32, TableError> {
        let h = &self.header;
        if index >= h.entries {
            return Err(self.block_error(
                side,
                index / h.block_entries as u64,
                format!("index {index} past the end ({} entries)", h.entries),
            ));
        }
        let be = h.block_entries as u64;
        let (block, off) = (index / be, (index % be) as usize);
        let key = side as u64 * h.blocks_per_side() + block;
        let shard = &self.cache[(key as usize) % SHARDS];
        if let Some(b) = shard.lock().unwrap().get(&key) {
            return Ok(b[off]);
        }
        let codes: Arc<[u32]> = self.read_block(side, block)?.into();
        let c = codes[off];
        shard.lock().unwrap().put(key, codes);
        Ok(c)
    }

    /// The value of an entry; an error if the file holds an impossible code there.
    pub fn value(&self, side: usize, index: u64) -> Result<Option<Value>, TableError> {
        let code = self.code(side, index)?;
        if code == CODE_NONE {
            return Ok(None);
        }
        match Value::from_code(code) {
            Some(v) => Ok(Some(v)),
            None => Err(self.block_error(
                side,
                index / self.header.block_entries as u64,
                format!("impossible value code {code:#x}"),
            )),
        }
    }

    /// Checks every byte: the whole-file checksum, the block index checksum, and every block's
    /// checksum and decompressed length.
    pub fn verify_checksums(&self) -> Result<(), TableError> {
        let h = &self.header;
        let io = |e| TableError::io(&self.path)(e);
        let mut crc = crc32fast::Hasher::new();
        let body = h.file_len - 4;
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0u64;
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
        let mut index = vec![0u8; (body - h.index_offset) as usize];
        self.r
            .read_exact_at(&mut index, h.index_offset)
            .map_err(io)?;
        if crc32fast::hash(&index) != h.index_crc {
            return Err(TableError::IndexChecksum(self.path.clone()));
        }
        for side in 0..2 {
            for block in 0..h.blocks_per_side() {
                let codes = self.read_block(side, block)?;
                if let Some(&c) = codes
                    .iter()
                    .find(|&&c| c != CODE_NONE && Value::from_code(c).is_none())
                {
                    return Err(self.block_error(
                        side,
                        block,
                        format!("impossible value code {c:#x}"),
                    ));
                }
            }
        }
        Ok(())
    }
}
