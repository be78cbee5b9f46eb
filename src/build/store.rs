//! The builder's chunked working store (`formats/build.md`): each side's entries split into
//! chunks of consecutive indices, each chunk a file of 16-bit working values and 8-bit children
//! counts with its own crc32. Chunk files are never rewritten in place: a changed chunk is
//! written under a new generation number, and only the manifest (written atomically) says which
//! generation is current, so a kill at any moment leaves the last checkpoint intact.

use super::BuildError;
use byteorder::{ByteOrder, LittleEndian as LE};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

/// Working value: not a legal position.
pub const ILLEGAL: u16 = 0xFFFF;
/// Working value: not (yet) resolved; a draw once propagation ends.
pub const UNKNOWN: u16 = 0xFFFE;
/// Largest distance the working state holds (beyond it a build stops with an overflow error).
pub const MAX_WORKING_DISTANCE: u16 = 0xFFFD;

const CHUNK_MAGIC: [u8; 8] = *b"XQTBCHK1";
const CHUNK_HEADER: usize = 32;
/// Version of the working-store layout (chunk files and manifest).
pub const STORE_VERSION: u32 = 1;

/// One chunk's working state. Atomics let worker threads apply updates to it concurrently; the
/// result does not depend on their order (decrements commute, and every update of one ply
/// writes the same distance).
pub struct Chunk {
    pub vals: Vec<AtomicU16>,
    pub cnts: Vec<AtomicU8>,
}

impl Chunk {
    pub fn new(len: usize) -> Chunk {
        Chunk {
            vals: (0..len).map(|_| AtomicU16::new(UNKNOWN)).collect(),
            cnts: (0..len).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.vals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// Bytes a resident chunk of `len` entries takes.
    pub const fn bytes(len: usize) -> usize {
        3 * len
    }

    /// Serialises to the chunk file layout; returns the bytes and their crc32 (the last 4).
    fn to_bytes(&self, side: usize, chunk: usize, gen: u64) -> Vec<u8> {
        let n = self.len();
        let mut b = vec![0u8; CHUNK_HEADER + 3 * n + 4];
        b[..8].copy_from_slice(&CHUNK_MAGIC);
        LE::write_u32(&mut b[8..], STORE_VERSION);
        LE::write_u32(&mut b[12..], side as u32);
        LE::write_u32(&mut b[16..], chunk as u32);
        LE::write_u32(&mut b[20..], n as u32);
        LE::write_u64(&mut b[24..], gen);
        let (vals, rest) = b[CHUNK_HEADER..].split_at_mut(2 * n);
        for (d, v) in vals.chunks_exact_mut(2).zip(&self.vals) {
            LE::write_u16(d, v.load(Relaxed));
        }
        for (d, c) in rest[..n].iter_mut().zip(&self.cnts) {
            *d = c.load(Relaxed);
        }
        let crc = crc32fast::hash(&b[..CHUNK_HEADER + 3 * n]);
        let end = b.len() - 4;
        LE::write_u32(&mut b[end..], crc);
        b
    }
}

/// What the manifest records of one chunk file.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ChunkRecord {
    pub gen: u64,
    pub crc: u32,
}

/// The checkpoint: written atomically at pass boundaries; everything a resumed build needs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    pub store_version: u32,
    pub material: String,
    pub index_scheme: u32,
    pub entries: u64,
    pub chunk_len: u64,
    /// The last completed ply (0: initialisation done).
    pub ply: u32,
    /// Current file of every chunk, per side.
    pub chunks: [Vec<ChunkRecord>; 2],
    /// Per side and chunk: entries whose distance equals `ply` (the next ply's frontier).
    pub frontier: [Vec<u64>; 2],
    /// Per side and chunk: entries set to distance 1 by initialisation (captures into lost
    /// positions); they join the frontier of ply 2.
    pub init_wins: [Vec<u64>; 2],
}

/// The working directory of one table's build.
pub struct StoreDir {
    pub dir: PathBuf,
}

impl StoreDir {
    pub fn chunk_path(&self, side: usize, chunk: usize, gen: u64) -> PathBuf {
        self.dir.join(format!("s{side}-c{chunk:05}-g{gen}.chunk"))
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join("manifest.json")
    }

    pub fn log_path(&self, side: usize, chunk: usize) -> PathBuf {
        self.dir.join(format!("s{side}-c{chunk:05}.updates"))
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
        move |source| BuildError::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// Writes a chunk under a new generation; returns its record. Not synced here: a
    /// checkpoint syncs every file it is about to reference ([`StoreDir::sync_chunk`]) before
    /// writing the manifest, so the chunk writes between checkpoints cost no fsync each.
    pub fn write_chunk(
        &self,
        side: usize,
        index: usize,
        gen: u64,
        chunk: &Chunk,
    ) -> Result<ChunkRecord, BuildError> {
        let path = self.chunk_path(side, index, gen);
        let bytes = chunk.to_bytes(side, index, gen);
        let crc = LE::read_u32(&bytes[bytes.len() - 4..]);
        let mut f = File::create(&path).map_err(Self::io(&path))?;
        f.write_all(&bytes).map_err(Self::io(&path))?;
        Ok(ChunkRecord { gen, crc })
    }

    /// Makes a written chunk durable.
    pub fn sync_chunk(&self, side: usize, index: usize, gen: u64) -> Result<(), BuildError> {
        let path = self.chunk_path(side, index, gen);
        File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(Self::io(&path))
    }

    /// Removes a superseded generation.
    pub fn remove_chunk(&self, side: usize, index: usize, gen: u64) -> Result<(), BuildError> {
        let path = self.chunk_path(side, index, gen);
        std::fs::remove_file(&path).map_err(Self::io(&path))
    }

    /// Reads a chunk, checking its layout and both checksums (its own and the manifest's).
    pub fn read_chunk(
        &self,
        side: usize,
        index: usize,
        rec: ChunkRecord,
        len: usize,
    ) -> Result<Chunk, BuildError> {
        let path = self.chunk_path(side, index, rec.gen);
        let bytes = std::fs::read(&path).map_err(Self::io(&path))?;
        let bad = |what: &str| BuildError::Checkpoint(format!("{}: {what}", path.display()));
        if bytes.len() != CHUNK_HEADER + 3 * len + 4 {
            return Err(bad("wrong length"));
        }
        let crc = crc32fast::hash(&bytes[..bytes.len() - 4]);
        if crc != LE::read_u32(&bytes[bytes.len() - 4..]) || crc != rec.crc {
            return Err(bad("checksum mismatch"));
        }
        if bytes[..8] != CHUNK_MAGIC
            || LE::read_u32(&bytes[8..]) != STORE_VERSION
            || LE::read_u32(&bytes[12..]) as usize != side
            || LE::read_u32(&bytes[16..]) as usize != index
            || LE::read_u32(&bytes[20..]) as usize != len
            || LE::read_u64(&bytes[24..]) != rec.gen
        {
            return Err(bad("header does not match the manifest"));
        }
        let body = &bytes[CHUNK_HEADER..];
        Ok(Chunk {
            vals: body[..2 * len]
                .chunks_exact(2)
                .map(|b| AtomicU16::new(LE::read_u16(b)))
                .collect(),
            cnts: body[2 * len..3 * len]
                .iter()
                .map(|&c| AtomicU8::new(c))
                .collect(),
        })
    }

    /// The working values of a chunk (what a frontier scan needs). Reads and checks the whole
    /// chunk file: the check is cheap next to the work a frontier chunk brings.
    pub fn read_values(
        &self,
        side: usize,
        index: usize,
        rec: ChunkRecord,
        len: usize,
    ) -> Result<Vec<u16>, BuildError> {
        let chunk = self.read_chunk(side, index, rec, len)?;
        Ok(chunk.vals.into_iter().map(AtomicU16::into_inner).collect())
    }

    pub fn write_manifest(&self, m: &Manifest) -> Result<(), BuildError> {
        let path = self.manifest_path();
        let text = serde_json::to_vec_pretty(m).expect("manifest serialises");
        crate::fsio::write_atomic(&path, &text).map_err(Self::io(&path))
    }

    /// The manifest, `Ok(None)` if there is none, or a checkpoint error if it is unreadable.
    pub fn read_manifest(&self) -> Result<Option<Manifest>, BuildError> {
        let path = self.manifest_path();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| BuildError::Checkpoint(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Self::io(&path)(e)),
        }
    }

    /// Deletes every file the manifest does not reference (chunks of an interrupted pass, old
    /// generations, update logs).
    pub fn remove_unreferenced(&self, m: Option<&Manifest>) -> Result<(), BuildError> {
        let keep: Vec<PathBuf> = m
            .map(|m| {
                (0..2)
                    .flat_map(|s| {
                        m.chunks[s]
                            .iter()
                            .enumerate()
                            .map(move |(c, r)| self.chunk_path(s, c, r.gen))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let rd = std::fs::read_dir(&self.dir).map_err(Self::io(&self.dir))?;
        for e in rd {
            let e = e.map_err(Self::io(&self.dir))?;
            let p = e.path();
            if p != self.manifest_path() && !keep.contains(&p) {
                std::fs::remove_file(&p).map_err(Self::io(&p))?;
            }
        }
        Ok(())
    }

    /// Appends update records (local indices) to a chunk's log.
    pub fn append_log(&self, side: usize, chunk: usize, records: &[u32]) -> Result<(), BuildError> {
        let path = self.log_path(side, chunk);
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(Self::io(&path))?;
        let mut w = BufWriter::with_capacity(1 << 16, f);
        let mut buf = [0u8; 4];
        for &r in records {
            LE::write_u32(&mut buf, r);
            w.write_all(&buf).map_err(Self::io(&path))?;
        }
        w.flush().map_err(Self::io(&path))
    }

    /// Streams a chunk's log in batches of at most `batch` records, then deletes it.
    pub fn drain_log(
        &self,
        side: usize,
        chunk: usize,
        batch: usize,
        mut f: impl FnMut(&[u32]),
    ) -> Result<(), BuildError> {
        let path = self.log_path(side, chunk);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Self::io(&path)(e)),
        };
        let mut r = BufReader::with_capacity(1 << 16, file);
        let mut bytes = vec![0u8; 4 * batch.max(1)];
        let mut recs = vec![0u32; batch.max(1)];
        loop {
            let mut filled = 0;
            while filled < bytes.len() {
                let n = r.read(&mut bytes[filled..]).map_err(Self::io(&path))?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
            if filled % 4 != 0 {
                return Err(BuildError::Checkpoint(format!(
                    "{}: torn update log",
                    path.display()
                )));
            }
            if filled == 0 {
                break;
            }
            let k = filled / 4;
            LE::read_u32_into(&bytes[..filled], &mut recs[..k]);
            f(&recs[..k]);
            if filled < bytes.len() {
                break;
            }
        }
        std::fs::remove_file(&path).map_err(Self::io(&path))
    }
}
