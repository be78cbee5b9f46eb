//! The full values of a DTM table's derived side, kept under `--tmp` while tables above it are
//! built (`formats/build.md` §2.2). A DTM table file stores only the outcome of its derived
//! side's entries (`formats/table.md` §5); a reader finds their distances from their moves. The
//! builder of a table above reads the value of every capture into it, about half of them on the
//! derived side: a look at the moves for each would cost more than the build. So the build that
//! writes a supporting table leaves that side's value codes beside it, 4 bytes an entry, bound to
//! the table file by its length and checksum; a table without them (built by an earlier run) has
//! them found once from its moves and kept the same way. `xqtb build` removes them when it ends.

use super::BuildError;
use crate::material::Material;
use crate::piece::Color;
use crate::table::{SupportingTable, TableFile};
use crate::tablebase::Tablebase;
use byteorder::{ByteOrder, LE};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"XQTBDRV\0";
const VERSION: u32 = 1;
/// Bytes before the codes.
const HEADER_LEN: usize = 64;

/// Where the derived values of `material`'s DTM table are kept under `tmp`.
pub fn path(tmp: &Path, material: Material) -> PathBuf {
    tmp.join(format!("{material}.xqdtm-derived"))
}

fn part_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".part");
    PathBuf::from(p)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Removes the derived values of `material` (and a half-written file) if there are any.
pub fn remove(tmp: &Path, material: Material) {
    let p = path(tmp, material);
    let _ = std::fs::remove_file(part_path(&p));
    let _ = std::fs::remove_file(p);
}

/// The header: what the codes are of (the table file's identity, side, entries) and their crc.
fn header(table: &SupportingTable, side: Color, entries: u64, crc: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    LE::write_u32(&mut h[8..], VERSION);
    LE::write_u32(&mut h[12..], side.index() as u32);
    let name = table.material.to_string();
    h[16..16 + name.len()].copy_from_slice(name.as_bytes());
    LE::write_u32(&mut h[32..], table.rule_set as u32);
    LE::write_u32(&mut h[36..], table.file_crc);
    LE::write_u64(&mut h[40..], table.file_len);
    LE::write_u64(&mut h[48..], entries);
    LE::write_u32(&mut h[56..], crc);
    let header_crc = crc32fast::hash(&h[..60]);
    LE::write_u32(&mut h[60..], header_crc);
    h
}

/// Writes one side's value codes, in index order, to `<path>.part`; [`Writer::finish`] binds
/// them to the table file and renames them into place.
pub struct Writer {
    path: PathBuf,
    out: BufWriter<File>,
    crc: crc32fast::Hasher,
    side: Color,
    entries: u64,
}

impl Writer {
    /// Starts the derived values of `side` at `path`.
    pub fn create(path: PathBuf, side: Color) -> Result<Writer, BuildError> {
        let part = part_path(&path);
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&part).map_err(io(&part))?);
        out.write_all(&[0u8; HEADER_LEN]).map_err(io(&part))?;
        Ok(Writer {
            path,
            out,
            crc: crc32fast::Hasher::new(),
            side,
            entries: 0,
        })
    }

    /// The side whose codes are written.
    pub fn side(&self) -> Color {
        self.side
    }

    /// Appends the next `codes`.
    pub fn write(&mut self, codes: &[u32]) -> Result<(), BuildError> {
        let mut bytes = vec![0u8; 4 * codes.len()];
        LE::write_u32_into(codes, &mut bytes);
        self.crc.update(&bytes);
        self.entries += codes.len() as u64;
        let part = part_path(&self.path);
        self.out.write_all(&bytes).map_err(io(&part))
    }

    /// Binds the codes to `table`, the file they are the derived side of, and renames them
    /// into place (durably: a later build trusts what it finds).
    pub fn finish(self, table: &SupportingTable) -> Result<(), BuildError> {
        let part = part_path(&self.path);
        let mut file = self
            .out
            .into_inner()
            .map_err(|e| io(&part)(e.into_error()))?;
        let h = header(table, self.side, self.entries, self.crc.finalize());
        use std::io::{Seek, SeekFrom};
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(&h))
            .and_then(|()| file.sync_all())
            .map_err(io(&part))?;
        std::fs::rename(&part, &self.path).map_err(io(&self.path))
    }
}

/// A derived side's codes: in memory, or read from the file kept under `--tmp` one at a time
/// (a table that does not fit the memory budget).
pub enum Derived {
    /// Every code, by index.
    Codes(Vec<u32>),
    /// The kept file, checked, and its path.
    File(File, PathBuf),
}

impl Derived {
    /// The code of entry `index`.
    pub fn code(&self, index: u64) -> Result<u32, BuildError> {
        match self {
            Derived::Codes(c) => Ok(c[index as usize]),
            Derived::File(f, path) => {
                use std::os::unix::fs::FileExt;
                let mut b = [0u8; 4];
                f.read_exact_at(&mut b, HEADER_LEN as u64 + 4 * index)
                    .map_err(io(path))?;
                Ok(LE::read_u32(&b))
            }
        }
    }
}

/// The codes kept at `path` for `side` of `table` (of `entries` entries a side), read into
/// memory if `in_memory`; `None` if there are none, or they are of another file or side, or
/// damaged: the caller finds them again.
fn open_kept(
    path: &Path,
    table: &SupportingTable,
    (side, entries): (Color, u64),
    in_memory: bool,
) -> Option<Derived> {
    let mut file = File::open(path).ok()?;
    let mut h = [0u8; HEADER_LEN];
    file.read_exact(&mut h).ok()?;
    let crc = LE::read_u32(&h[56..]);
    if h != header(table, side, entries, crc) {
        return None;
    }
    let mut codes = Vec::new();
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0u64;
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        read += n as u64;
        if in_memory {
            codes.extend_from_slice(&buf[..n]);
        }
    }
    if read != 4 * entries || hasher.finalize() != crc {
        return None;
    }
    Some(if in_memory {
        let mut out = vec![0u32; entries as usize];
        LE::read_u32_into(&codes, &mut out);
        Derived::Codes(out)
    } else {
        Derived::File(file, path.to_owned())
    })
}

/// The derived side's codes of `file` (a DTM table in `dir` whose derived side is `side`), in
/// memory if `in_memory`: kept under `tmp` if they are there and sound, else found from the
/// moves (each stand-in's position probed through `dir`'s tables) and kept for the next reader.
pub fn open(
    (dir, tmp): (&Path, &Path),
    file: &TableFile,
    side: Color,
    in_memory: bool,
) -> Result<Derived, BuildError> {
    let h = file.header();
    let at = path(tmp, h.material);
    let table = file.as_support();
    if let Some(d) = open_kept(&at, &table, (side, h.entries), in_memory) {
        return Ok(d);
    }
    let codes = resolve(dir, file, side)?;
    let mut w = Writer::create(at.clone(), side)?;
    w.write(&codes)?;
    w.finish(&table)?;
    if in_memory {
        return Ok(Derived::Codes(codes));
    }
    drop(codes);
    open_kept(&at, &table, (side, h.entries), false).ok_or_else(|| {
        BuildError::Inconsistent(format!("{}: written, but not read back", at.display()))
    })
}

/// Every code of `side` of `file`, its stand-ins replaced by the values their moves give.
fn resolve(dir: &Path, file: &TableFile, side: Color) -> Result<Vec<u32>, BuildError> {
    let h = file.header();
    let probe_error = |e: crate::tablebase::ProbeError| {
        BuildError::Inconsistent(format!(
            "{}: finding its derived side's values from the moves: {e}",
            file.path().display()
        ))
    };
    let tb = Tablebase::open(dir).map_err(probe_error)?;
    let blocks: Vec<Vec<u32>> = (0..h.blocks_per_side())
        .into_par_iter()
        .map(|b| tb.dtm_block_codes(h.material, side, b).map_err(probe_error))
        .collect::<Result<_, _>>()?;
    let mut all = blocks.concat();
    all.truncate(h.entries as usize);
    Ok(all)
}
