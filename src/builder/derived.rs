//! The full values of a DTM table's derived side, kept under `--tmp` while tables above it are
//! built (`formats/build.md` §2.2). A DTM table file stores only the outcome of its derived
//! side's entries (`formats/table.md` §5); a reader finds their distances from their moves. The
//! builder of a table above reads the value of every capture into it, about half of them on the
//! derived side: a look at the moves for each would cost more than the build. So the build that
//! writes a supporting table leaves that side's value codes beside it, 4 bytes an entry, bound to
//! the table file by its length and checksum; a table without them (built by an earlier run) has
//! them found once from its moves and kept the same way. `xqtb build` removes them when it ends.

use super::{BuildError, StopFlag};
use crate::material::Material;
use crate::piece::Color;
use crate::retro::Progress;
use crate::table::{Metric, SupportingTable, TableFile};
use crate::tablebase::Tablebase;
use byteorder::{ByteOrder, LE};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"XQTBDRV\0";
const VERSION: u32 = 1;
/// Bytes before the codes.
const HEADER_LEN: usize = 64;

/// Where the derived values of `material`'s DTM table are kept under `tmp`.
pub fn path(tmp: &Path, material: Material) -> PathBuf {
    tmp.join(format!("{material}.xqdtm-derived"))
}

/// Where this process writes the values bound for `path`: builds sharing `--tmp` may find the
/// same derived side at once, each into its own file; the renames leave one of the equal results.
fn part_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(format!(
        ".part-{}-{}",
        crate::lock::host_name(),
        std::process::id()
    ));
    PathBuf::from(p)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Whether `tmp` holds derived values (or half-written ones) of any table.
pub fn any_kept(tmp: &Path) -> bool {
    kept_files(tmp).next().is_some()
}

/// Removes every table's derived values under `tmp`; for a caller that no other build may be
/// reading or writing them beside.
pub fn remove_all(tmp: &Path) {
    for path in kept_files(tmp) {
        let _ = std::fs::remove_file(path);
    }
}

fn kept_files(tmp: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(tmp)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".xqdtm-derived"))
        .map(|e| e.path())
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

/// How a derived side's codes are held: all in memory, or read from the kept file through a
/// cache of this many bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// Every code in memory.
    Memory,
    /// Pages of the kept file, at most this many bytes of them.
    Cache(usize),
}

/// Entries per page of a kept file read through a cache (16 KiB): captures into a table reach
/// it at many places at once, so many small pages hit more often than a few large ones.
const PAGE_ENTRIES: u64 = 1 << 12;

/// A derived side's codes: in memory, or read from the file kept under `--tmp` a page at a time
/// (a table that does not fit the memory budget).
pub enum Derived {
    /// Every code, by index.
    Codes(Vec<u32>),
    /// The kept file, checked.
    File(Pages),
}

/// The kept file's codes through a small cache of pages, most recently used first.
pub struct Pages {
    file: File,
    path: PathBuf,
    entries: u64,
    capacity: usize,
    pages: Mutex<VecDeque<(u64, Arc<[u32]>)>>,
}

impl Pages {
    fn code(&self, index: u64) -> Result<u32, BuildError> {
        let (page, k) = (index / PAGE_ENTRIES, (index % PAGE_ENTRIES) as usize);
        {
            let mut pages = self.pages.lock().unwrap();
            if let Some(at) = pages.iter().position(|(p, _)| *p == page) {
                let hit = pages.remove(at).expect("found");
                let code = hit.1[k];
                pages.push_front(hit);
                return Ok(code);
            }
        }
        // Read outside the lock: another thread may read the same page meanwhile, which costs
        // a read, not a wrong answer.
        use std::os::unix::fs::FileExt;
        let start = page * PAGE_ENTRIES;
        let len = PAGE_ENTRIES.min(self.entries - start) as usize;
        let mut bytes = vec![0u8; 4 * len];
        self.file
            .read_exact_at(&mut bytes, HEADER_LEN as u64 + 4 * start)
            .map_err(io(&self.path))?;
        let mut codes = vec![0u32; len];
        LE::read_u32_into(&bytes, &mut codes);
        let code = codes[k];
        let mut pages = self.pages.lock().unwrap();
        pages.push_front((page, codes.into()));
        pages.truncate(self.capacity);
        Ok(code)
    }
}

impl Derived {
    /// The code of entry `index`.
    pub fn code(&self, index: u64) -> Result<u32, BuildError> {
        match self {
            Derived::Codes(c) => Ok(c[index as usize]),
            Derived::File(pages) => pages.code(index),
        }
    }
}

/// The codes kept at `path` for `side` of `table` (of `entries` entries a side), held as
/// `hold` says; `None` if there are none, or they are of another file or side, or damaged: the
/// caller finds them again.
fn open_kept(
    path: &Path,
    table: &SupportingTable,
    (side, entries): (Color, u64),
    hold: Hold,
) -> Option<Derived> {
    let in_memory = hold == Hold::Memory;
    let mut file = File::open(path).ok()?;
    let mut h = [0u8; HEADER_LEN];
    file.read_exact(&mut h).ok()?;
    let crc = LE::read_u32(&h[56..]);
    if h != header(table, side, entries, crc) {
        return None;
    }
    // The codes go straight into their place (in memory, nothing beside them but a 1 MiB
    // buffer: the budget counts 4 bytes an entry); read whole 4-byte codes at a time.
    let mut codes = vec![0u32; if in_memory { entries as usize } else { 0 }];
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut read = 0u64;
    loop {
        let want = buf
            .len()
            .min((4 * entries - read.min(4 * entries)) as usize + 4);
        let n = read_full(&mut file, &mut buf[..want]).ok()?;
        if n == 0 {
            break;
        }
        // Longer than its entries, or ending inside a code: damaged.
        if read + n as u64 > 4 * entries || n % 4 != 0 {
            return None;
        }
        hasher.update(&buf[..n]);
        if in_memory {
            let at = (read / 4) as usize;
            LE::read_u32_into(&buf[..n], &mut codes[at..at + n / 4]);
        }
        read += n as u64;
    }
    if read != 4 * entries || hasher.finalize() != crc {
        return None;
    }
    Some(match hold {
        Hold::Memory => Derived::Codes(codes),
        Hold::Cache(bytes) => Derived::File(Pages {
            file,
            path: path.to_owned(),
            entries,
            capacity: (bytes / (4 * PAGE_ENTRIES as usize)).max(1),
            pages: Mutex::new(VecDeque::new()),
        }),
    })
}

/// Fills `buf` from `file` as far as the file goes; returns the bytes read (a multiple of 4
/// unless the file ends inside a code).
fn read_full(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Block cache per table the stand-ins' moves are probed through: with less, a table's few
/// blocks in use at once no longer fit and each probe decompresses again (1 MiB made finding a
/// side of 35 million entries a hundred times slower than 4 MiB).
const RESOLVE_CACHE: usize = 4 << 20;
/// Tables open at once while the stand-ins' moves are probed, if the budget allows: the table,
/// the tables its captures lead to and theirs (four sufficed where six was the limit).
const RESOLVE_TABLES: usize = 6;

/// The derived side's codes of `file` (a DTM table whose derived side is `side`) kept under
/// `tmp` ([`keep`]), held as `hold` says.
pub fn open(tmp: &Path, file: &TableFile, side: Color, hold: Hold) -> Result<Derived, BuildError> {
    let h = file.header();
    let at = path(tmp, h.material);
    open_kept(&at, &file.as_support(), (side, h.entries), hold).ok_or_else(|| {
        BuildError::Inconsistent(format!(
            "{}: the derived values of {} are not there or damaged",
            at.display(),
            file.path().display()
        ))
    })
}

/// Keeps the derived side's codes of `file` (a DTM table in `dir` whose derived side is `side`)
/// under `tmp`, unless they are there and sound: found from the moves (each stand-in's position
/// probed through `dir`'s tables) within about `budget` bytes.
pub fn keep(
    (dir, tmp): (&Path, &Path),
    (file, partial): (&TableFile, Option<Color>),
    side: Color,
    budget: u64,
    (progress, stop): (&dyn Progress, &StopFlag),
) -> Result<(), BuildError> {
    let h = file.header();
    let at = path(tmp, h.material);
    let table = file.as_support();
    if open_kept(&at, &table, (side, h.entries), Hold::Cache(0)).is_some() {
        return Ok(());
    }
    let mut w = Writer::create(at, side)?;
    progress.start(&format!("{} derived side", h.material), h.entries);
    resolve((dir, partial), file, &mut w, budget, (progress, stop))?;
    progress.finish();
    w.finish(&table)
}

/// Writes every code of `w`'s side of `file` to `w`, its stand-ins replaced by the values their
/// moves give, within about `budget` bytes: a few blocks per worker at a time, and as many
/// tables open as their caches allow (the stand-ins' captures lead into smaller tables, and on
/// to theirs where they reach a derived side). In a build of partial tables best for
/// `partial`, withheld tables' positions take its stand-ins.
fn resolve(
    (dir, partial): (&Path, Option<Color>),
    file: &TableFile,
    w: &mut Writer,
    budget: u64,
    (progress, stop): (&dyn Progress, &StopFlag),
) -> Result<(), BuildError> {
    let h = file.header();
    let probe_error = |e: crate::tablebase::ProbeError| {
        BuildError::Inconsistent(format!(
            "{}: finding its derived side's values from the moves: {e}",
            file.path().display()
        ))
    };
    let threads = rayon::current_num_threads();
    let batch = threads as u64;
    // The batch's codes (4 bytes an entry, stored and found), then the caches: every stand-in
    // probes the table's stored side, so the table itself gets up to half (all its blocks if
    // they fit: with 4 MiB, KCPAKAAB's side took 3,148 s, one block read per probe); the
    // tables its captures reach share the rest, at least `RESOLVE_TABLES` open, up to
    // `RESOLVE_CACHE` each, and each thread keeps the table it probed last open beside those
    // the limit counts.
    let held = 2 * batch * 4 * h.block_entries as u64;
    let caches = budget.saturating_sub(held);
    let own = crate::table::cache_limit(h, (caches / 2) as usize) as u64;
    let rest = caches.saturating_sub(own);
    let cache = (rest / (RESOLVE_TABLES + threads) as u64).clamp(1 << 20, RESOLVE_CACHE as u64);
    let limit = (rest / cache) as usize;
    let tb = match partial {
        Some(best_for) => Tablebase::of_partial_build(dir, cache as usize, best_for),
        None => Tablebase::new(dir, cache as usize),
    }
    .with_table_cache(h.material, Metric::Dtm, own as usize)
    .with_open_limit(limit.saturating_sub(threads));
    let blocks = h.blocks_per_side();
    let mut left = h.entries;
    for first in (0..blocks).step_by(batch as usize) {
        // A stop asked for while a side is found leaves its `.part` file: the next run finds
        // the side again from its start.
        if stop.raised() {
            return Err(BuildError::Stopped);
        }
        let codes: Vec<Vec<u32>> = (first..blocks.min(first + batch))
            .into_par_iter()
            .map(|b| {
                tb.dtm_block_codes(h.material, w.side(), b)
                    .map_err(probe_error)
            })
            .collect::<Result<_, _>>()?;
        for c in codes {
            let n = c.len().min(left as usize);
            w.write(&c[..n])?;
            left -= n as u64;
        }
        progress.advance(h.entries - left);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::RuleSet;

    fn table() -> SupportingTable {
        SupportingTable {
            material: "KRKN".parse().unwrap(),
            rule_set: RuleSet::DtcAsian,
            file_crc: 0x1234_5678,
            file_len: 99_999,
        }
    }

    /// Codes written in pieces read back the same, in memory and through a cache of a few
    /// pages (read in an order that evicts them), and only for the table and side they are of.
    #[test]
    fn kept_codes_read_back_and_bind_to_their_table() {
        let dir = tempfile::tempdir().unwrap();
        let at = dir.path().join("KRKN.xqdtm-derived");
        let n = 5 * PAGE_ENTRIES + 17;
        let codes: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let mut w = Writer::create(at.clone(), Color::Black).unwrap();
        for part in codes.chunks(1000) {
            w.write(part).unwrap();
        }
        w.finish(&table()).unwrap();
        assert!(!part_path(&at).exists());
        let key = (Color::Black, n);
        let Some(Derived::Codes(all)) = open_kept(&at, &table(), key, Hold::Memory) else {
            panic!("not read into memory");
        };
        assert!(all == codes);
        let pages = open_kept(&at, &table(), key, Hold::Cache(8 * PAGE_ENTRIES as usize));
        let pages = pages.expect("opened");
        assert!(matches!(pages, Derived::File(_)));
        for i in (0..n).rev().step_by(997).chain((0..n).step_by(1009)) {
            assert_eq!(pages.code(i).unwrap(), codes[i as usize], "entry {i}");
        }
        let other = SupportingTable {
            file_crc: 1,
            ..table()
        };
        assert!(open_kept(&at, &other, key, Hold::Memory).is_none());
        assert!(open_kept(&at, &table(), (Color::Red, n), Hold::Memory).is_none());
        assert!(open_kept(&at, &table(), (Color::Black, n + 1), Hold::Memory).is_none());
        // One bit changed in the codes, or in the header: not trusted.
        let good = std::fs::read(&at).unwrap();
        for at_byte in [HEADER_LEN + 4 * 3000, 13] {
            let mut bad = good.clone();
            bad[at_byte] ^= 1;
            std::fs::write(&at, &bad).unwrap();
            assert!(open_kept(&at, &table(), key, Hold::Memory).is_none());
        }
        // Cut inside a code, or longer than its entries: not trusted.
        for bad in [
            good[..good.len() - 2].to_vec(),
            [&good[..], &[0u8; 4]].concat(),
        ] {
            std::fs::write(&at, &bad).unwrap();
            assert!(open_kept(&at, &table(), key, Hold::Memory).is_none());
            assert!(open_kept(&at, &table(), key, Hold::Cache(1 << 20)).is_none());
        }
    }
}
