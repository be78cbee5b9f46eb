//! Streaming table writer: blocks are compressed in parallel, written in order, and every
//! checksum is computed while writing; the file appears under its final name only once complete
//! and synced (write to a temporary name, fsync, rename, fsync the directory).

use super::{Header, RuleSet, SideStats, TableError, BLOCK_ENTRIES, HEADER_LEN};
use crate::material::Material;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// zstd level of the value blocks: level 3 compresses value codes about as well as level 9 here,
/// several times faster.
const ZSTD_LEVEL: i32 = 3;

pub struct TableWriter {
    path: PathBuf,
    tmp_path: PathBuf,
    out: BufWriter<File>,
    material: Material,
    entries: u64,
    /// Entries written so far, per side.
    written: [u64; 2],
    /// Block index entries in file order (side 0's blocks, then side 1's).
    index: Vec<u8>,
    offset: u64,
    /// crc32 of everything after the header, as written.
    body_crc: crc32fast::Hasher,
}

impl TableWriter {
    /// Starts `path` (written as `path.tmp` until [`TableWriter::finish`]).
    pub fn create(
        path: &Path,
        material: Material,
        entries: u64,
    ) -> Result<TableWriter, TableError> {
        let tmp_path = path.with_extension("xqtb.tmp");
        let file = File::create(&tmp_path).map_err(TableError::io(&tmp_path))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0u8; HEADER_LEN])
            .map_err(TableError::io(&tmp_path))?;
        Ok(TableWriter {
            path: path.to_owned(),
            tmp_path,
            out,
            material,
            entries,
            written: [0; 2],
            index: Vec::new(),
            offset: HEADER_LEN as u64,
            body_crc: crc32fast::Hasher::new(),
        })
    }

    /// Appends the next `codes` of `side` (index order). Sides are written in order, side 0
    /// first; every call but a side's last must hold whole blocks.
    pub fn write(&mut self, side: usize, codes: &[u32]) -> Result<(), TableError> {
        assert!(
            side == 1 || self.written[1] == 0,
            "sides are written in order"
        );
        assert!(
            self.written[side].is_multiple_of(BLOCK_ENTRIES as u64),
            "only a side's last write may end inside a block"
        );
        assert!(self.written[side] + codes.len() as u64 <= self.entries);
        let blocks: Vec<Vec<u8>> = codes
            .par_chunks(BLOCK_ENTRIES as usize)
            .map(|block| {
                let mut raw = vec![0u8; block.len() * 4];
                LE::write_u32_into(block, &mut raw);
                zstd::bulk::compress(&raw, ZSTD_LEVEL).expect("zstd compression of a buffer")
            })
            .collect();
        for block in blocks {
            let mut e = [0u8; super::INDEX_ENTRY_LEN];
            LE::write_u64(&mut e[0..], self.offset);
            LE::write_u32(&mut e[8..], block.len() as u32);
            LE::write_u32(&mut e[12..], crc32fast::hash(&block));
            self.index.extend_from_slice(&e);
            self.put(&block)?;
        }
        self.written[side] += codes.len() as u64;
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

    /// Writes the block index, header and trailer, syncs, and renames the file into place.
    pub fn finish(
        mut self,
        rule_set: RuleSet,
        sides: [SideStats; 2],
        max_order: u16,
    ) -> Result<PathBuf, TableError> {
        assert_eq!(
            self.written, [self.entries; 2],
            "every entry of both sides written"
        );
        let index = std::mem::take(&mut self.index);
        let index_offset = self.offset;
        self.put(&index)?;
        let header = Header {
            material: self.material,
            rule_set,
            index_scheme: crate::index::INDEX_SCHEME_VERSION,
            entries: self.entries,
            block_entries: BLOCK_ENTRIES,
            max_order,
            sides,
            index_offset,
            file_len: self.offset + 4,
            index_crc: crc32fast::hash(&index),
        };
        let head = header.to_bytes();
        let mut file_crc = crc32fast::Hasher::new();
        file_crc.update(&head);
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
        drop(self.out);
        crate::fsio::rename_synced(&self.tmp_path, &self.path)
            .map_err(TableError::io(&self.path))?;
        Ok(self.path)
    }
}
