//! Final table files: one per material (both sides to move), laid out byte by byte in
//! `formats/table.md`. A fixed header (magic, versions, material, rule set, counts, longest
//! wins; its own crc32), zstd-compressed blocks of value codes ([`crate::value::Value::code`]),
//! a block index (offset, length, crc32 per block) and a trailer crc32 over the whole file.
//!
//! Writing computes every checksum while streaming ([`TableWriter`]); reading opens in O(1)
//! (header checks only) and decompresses one block per probe through a small cache
//! ([`TableFile`]); [`TableFile::verify_checksums`] checks every byte. Corruption is a typed
//! [`TableError`], never a panic.

mod read;
mod write;

pub use read::{ReadAt, TableFile};
pub use write::TableWriter;

use crate::material::Material;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"XQTB\x1aTBL";
/// Version of the layout described in `formats/table.md`.
pub const FORMAT_VERSION: u32 = 1;
/// Entries per compressed block.
pub const BLOCK_ENTRIES: u32 = 16384;
/// Header length in bytes.
pub const HEADER_LEN: usize = 256;
/// Bytes of one block-index entry.
pub const INDEX_ENTRY_LEN: usize = 16;

/// Which rules a table's values follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum RuleSet {
    /// Distance to conversion, order 0 only: no Asian-rule (perpetual check/chase) orders;
    /// positions not resolved by plain retrograde analysis are draws.
    DtcOrder0 = 1,
}

impl RuleSet {
    pub fn from_u32(v: u32) -> Option<RuleSet> {
        (v == 1).then_some(RuleSet::DtcOrder0)
    }

    pub fn name(self) -> &'static str {
        match self {
            RuleSet::DtcOrder0 => "dtc-order0",
        }
    }
}

/// The longest win of one side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LongestWin {
    pub order: u16,
    pub distance: u16,
    /// The smallest index holding it.
    pub index: u64,
}

/// What a table holds for one side to move. Counts are of real legal positions: a mirror-folded
/// entry counts twice (itself and its mirror image), identical pieces' permutations once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SideStats {
    pub legal: u64,
    pub win: u64,
    pub draw: u64,
    pub loss: u64,
    pub longest_win: Option<LongestWin>,
}

/// The decoded header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub material: Material,
    pub rule_set: RuleSet,
    pub index_scheme: u32,
    /// Index entries per side to move.
    pub entries: u64,
    pub block_entries: u32,
    pub max_order: u16,
    pub sides: [SideStats; 2],
    /// Where the block index starts; it runs to the trailer.
    pub index_offset: u64,
    pub file_len: u64,
    pub index_crc: u32,
}

impl Header {
    pub fn blocks_per_side(&self) -> u64 {
        self.entries.div_ceil(self.block_entries as u64)
    }

    pub(crate) fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        LE::write_u32(&mut b[8..], FORMAT_VERSION);
        LE::write_u32(&mut b[12..], self.index_scheme);
        LE::write_u32(&mut b[16..], self.rule_set as u32);
        let name = self.material.to_string();
        b[20..20 + name.len()].copy_from_slice(name.as_bytes());
        LE::write_u32(&mut b[36..], self.block_entries);
        LE::write_u64(&mut b[40..], self.entries);
        LE::write_u32(&mut b[48..], self.blocks_per_side() as u32);
        LE::write_u32(&mut b[52..], self.max_order as u32);
        for (s, st) in self.sides.iter().enumerate() {
            let o = 56 + 64 * s;
            LE::write_u64(&mut b[o..], st.legal);
            LE::write_u64(&mut b[o + 8..], st.win);
            LE::write_u64(&mut b[o + 16..], st.draw);
            LE::write_u64(&mut b[o + 24..], st.loss);
            let lw = st.longest_win;
            LE::write_u16(&mut b[o + 32..], lw.map_or(0, |l| l.order));
            LE::write_u16(&mut b[o + 34..], lw.map_or(0, |l| l.distance));
            LE::write_u64(&mut b[o + 40..], lw.map_or(u64::MAX, |l| l.index));
        }
        LE::write_u64(&mut b[184..], self.index_offset);
        LE::write_u64(&mut b[192..], self.file_len);
        LE::write_u32(&mut b[200..], self.index_crc);
        let crc = crc32fast::hash(&b[..HEADER_LEN - 4]);
        LE::write_u32(&mut b[HEADER_LEN - 4..], crc);
        b
    }

    pub(crate) fn from_bytes(b: &[u8; HEADER_LEN], path: &Path) -> Result<Header, TableError> {
        let bad = |what: String| TableError::BadHeader {
            path: path.to_owned(),
            what,
        };
        if b[0..8] != MAGIC {
            return Err(TableError::BadMagic(path.to_owned()));
        }
        let version = LE::read_u32(&b[8..]);
        if version != FORMAT_VERSION {
            return Err(TableError::UnsupportedVersion {
                path: path.to_owned(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let crc = crc32fast::hash(&b[..HEADER_LEN - 4]);
        if crc != LE::read_u32(&b[HEADER_LEN - 4..]) {
            return Err(TableError::HeaderChecksum(path.to_owned()));
        }
        let index_scheme = LE::read_u32(&b[12..]);
        if index_scheme != crate::index::INDEX_SCHEME_VERSION {
            return Err(bad(format!(
                "index scheme {index_scheme}, this program reads {}",
                crate::index::INDEX_SCHEME_VERSION
            )));
        }
        let rule_set = RuleSet::from_u32(LE::read_u32(&b[16..]))
            .ok_or_else(|| bad(format!("unknown rule set {}", LE::read_u32(&b[16..]))))?;
        let name_bytes = &b[20..36];
        let end = name_bytes.iter().position(|&c| c == 0).unwrap_or(16);
        let name = std::str::from_utf8(&name_bytes[..end])
            .map_err(|_| bad("material is not text".into()))?;
        let material: Material = name
            .parse()
            .map_err(|e| bad(format!("material {name:?}: {e}")))?;
        let block_entries = LE::read_u32(&b[36..]);
        let entries = LE::read_u64(&b[40..]);
        if block_entries == 0 {
            return Err(bad("zero entries per block".into()));
        }
        let mut sides = [SideStats::default(); 2];
        for (s, st) in sides.iter_mut().enumerate() {
            let o = 56 + 64 * s;
            let index = LE::read_u64(&b[o + 40..]);
            *st = SideStats {
                legal: LE::read_u64(&b[o..]),
                win: LE::read_u64(&b[o + 8..]),
                draw: LE::read_u64(&b[o + 16..]),
                loss: LE::read_u64(&b[o + 24..]),
                longest_win: (index != u64::MAX).then(|| LongestWin {
                    order: LE::read_u16(&b[o + 32..]),
                    distance: LE::read_u16(&b[o + 34..]),
                    index,
                }),
            };
        }
        let h = Header {
            material,
            rule_set,
            index_scheme,
            entries,
            block_entries,
            max_order: LE::read_u32(&b[52..]) as u16,
            sides,
            index_offset: LE::read_u64(&b[184..]),
            file_len: LE::read_u64(&b[192..]),
            index_crc: LE::read_u32(&b[200..]),
        };
        if LE::read_u32(&b[48..]) as u64 != h.blocks_per_side() {
            return Err(bad("block count does not match the entry count".into()));
        }
        let index_len = 2 * h.blocks_per_side() * INDEX_ENTRY_LEN as u64;
        if h.index_offset < HEADER_LEN as u64 || h.index_offset + index_len + 4 != h.file_len {
            return Err(bad(
                "block index does not end where the trailer starts".into()
            ));
        }
        Ok(h)
    }
}

/// The file name of a material's table: `KRKAABB.xqtb` (always the canonical orientation).
pub fn file_name(material: Material) -> String {
    format!("{}.xqtb", material.canonical())
}

/// The path of a material's table in `dir`.
pub fn table_path(dir: &Path, material: Material) -> PathBuf {
    dir.join(file_name(material))
}

/// Why a table file cannot be used. Every variant names the file.
#[derive(Debug, Error)]
pub enum TableError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: not an xqtb table file (bad magic)")]
    BadMagic(PathBuf),
    #[error("{path}: table format version {found}, this program reads version {supported}")]
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("{0}: header checksum mismatch (corrupted file)")]
    HeaderChecksum(PathBuf),
    #[error("{path}: bad header: {what}")]
    BadHeader { path: PathBuf, what: String },
    #[error("{path}: truncated or extended: header says {expected} bytes, file has {found}")]
    Length {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{0}: block index checksum mismatch (corrupted file)")]
    IndexChecksum(PathBuf),
    #[error("{path}: block {block} of side {side}: {what}")]
    Block {
        path: PathBuf,
        side: char,
        block: u64,
        what: String,
    },
    #[error("{0}: whole-file checksum mismatch (corrupted file)")]
    FileChecksum(PathBuf),
    #[error("{path}: material {found}, expected {expected}")]
    WrongMaterial {
        path: PathBuf,
        expected: Material,
        found: Material,
    },
}

impl TableError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
        move |source| TableError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// The side letter used in messages and JSON: `w` Red to move, `b` Black to move.
pub fn side_char(side: usize) -> char {
    if side == 0 {
        'w'
    } else {
        'b'
    }
}
