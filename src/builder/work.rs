//! The working state of one table's build: the entries of both sides (resident chunks, or chunk
//! files in the store), the bitmaps that drive and filter the passes, checkpoints and resume.

use super::buffers::Buffers;
use super::entry;
use super::frontier::Frontiers;
use super::layout::Layout;
use super::parked;
use super::plan::Plan;
use super::store::{Chunk, ChunkRecord, Log, Manifest, Provenance, StoreDir, STORE_VERSION};
use super::BuildError;
use crate::material::Material;
use crate::piece::{ByColor, Color};
use crate::retro::Bitmap;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Entries a worker takes at a time (a multiple of 64: whole bitmap words).
pub const WINDOW: usize = 4096;

/// Where the entries live.
pub enum Entries {
    /// Every chunk in RAM.
    Resident(ByColor<Vec<Chunk>>),
    /// Chunks in their files.
    Streaming,
}

/// The working state of one table's build: its entries, chunk records, bitmaps and update
/// buffers. Its storage (resident chunks or chunk files, checkpoints, resolution logs) is its
/// own: the other modules resolve entries through [`Work::resolve_entries`] and
/// [`Work::update_entries`]; only the pass framework (`pass`) reaches the entries, store and
/// buffers themselves, and the passes (`pass`, `dtc`, `rules`) share the bitmaps.
pub struct Work {
    /// The material being built.
    material: Material,
    /// How each side's entries split into chunks.
    layout: Layout,
    /// What the values depend on, recorded in every checkpoint.
    provenance: Provenance,
    /// The working directory: chunk files, update logs and the manifest.
    pub(super) store: StoreDir,
    /// Where the entries live: resident chunks, or chunk files in `store`.
    pub(super) entries: Entries,
    /// Latest file of every chunk (may be newer than the last checkpoint's).
    current: ByColor<Vec<ChunkRecord>>,
    /// The files the last checkpoint names.
    checkpointed: ByColor<Vec<ChunkRecord>>,
    /// Entries still unresolved (a filter: updates to others are skipped before touching the
    /// entry); absent when streaming on a tight budget.
    pub(super) unresolved: ByColor<Option<Bitmap>>,
    /// Entries the next pass from each side starts from, and entries resolved by the passes
    /// under way (the frontier after them).
    pub(super) frontiers: Frontiers,
    /// The passes' update buffers.
    pub(super) buffers: Buffers,
    /// Updates the shared buffer stages ([`super::plan::Plan::update_buffer`]).
    buffer_records: usize,
    /// Chunks a streaming pass may hold in RAM at once ([`super::plan::Plan::chunk_buffers`]).
    chunk_buffers: usize,
    /// Whether win plies may be pulled when that costs less (`dtc::pull_pays`); false pushes
    /// every ply (for tests: both give the same entries).
    pull: bool,
    /// Streaming: the chunks whose resolution log holds entries their file does not
    /// ([`Work::defer_resolved`]).
    resolved: ByColor<Vec<AtomicBool>>,
    /// Which side's unresolved filter is parked in the store, if the plan parks one
    /// ([`super::parked`]).
    parking: Option<Parking>,
    /// The bytes a rule stage's patterns computed in slices may take, if the plan computes
    /// them so ([`super::plan::Plan::pattern_slices`]).
    pub(super) pattern_slices: Option<u64>,
    /// The bytes a rule stage's loss candidates may take ([`super::plan::Plan::candidates`]).
    pub(super) candidates: u64,
    /// The bytes the propagation lends the rule phases ([`super::plan::Plan::lent`]).
    pub(super) lent: u64,
}

/// The unresolved filter of one side parked in the store while the other's is in RAM.
struct Parking {
    /// The side whose filter is parked.
    side: Color,
    /// The sequence number of each side's latest parked file.
    sequence: ByColor<u64>,
    /// The parked side's file while initialisation or a resume writes it a chunk at a time.
    writer: std::sync::Mutex<Option<parked::Writer>>,
}

/// The entries an update reaches ([`Work::update_entries`]): every chunk of a side (resident),
/// or one chunk read from its file, with its first index.
pub enum EntryView<'a> {
    /// A side's resident chunks.
    Chunks(&'a [Chunk], Layout),
    /// One chunk and the index of its first entry.
    Chunk(&'a Chunk, u64),
}

impl<'a> EntryView<'a> {
    /// The entry of `index` (which must be in the view).
    #[inline]
    pub fn entry(&self, index: u64) -> &'a std::sync::atomic::AtomicU32 {
        match *self {
            EntryView::Chunks(chunks, layout) => {
                &chunks[layout.chunk(index)].entries[layout.local(index)]
            }
            EntryView::Chunk(chunk, base) => &chunk.entries[(index - base) as usize],
        }
    }
}

/// The chunks a rewrite wrote, with their new records (for [`Work::record`]).
pub type Rewritten = Vec<(usize, ChunkRecord)>;

/// What [`Work::load`] puts in the bitmaps, per entry word.
pub struct Select {
    /// Entries that belong to the next pass's frontier.
    pub frontier: u32,
    /// Entries that belong to the frontier after it (seeds set ahead of their pass).
    pub next: u32,
}

impl Work {
    /// An empty state (no chunk yet: [`Work::put_chunk`] or [`Work::load`] fills it), as `plan`
    /// has it: resident or streaming, with its bitmaps (the unresolved filter only if planned),
    /// its update buffers and room for its chunks read from files, set aside now by the
    /// calling thread; `pull`: whether win plies may be pulled.
    pub fn new(
        material: Material,
        layout: Layout,
        store: StoreDir,
        plan: &Plan,
        pull: bool,
        provenance: Provenance,
    ) -> Work {
        let n = layout.entries();
        let (resident, unresolved_filter) = (plan.resident, plan.unresolved_filter);
        let buffer_records = (plan.update_buffer / Buffers::RECORD_BYTES) as usize;
        let chunk_buffers = plan.chunk_buffers;
        store.reserve(chunk_buffers, layout.chunk_len());
        Work {
            material,
            layout,
            store,
            provenance,
            entries: if resident {
                Entries::Resident(ByColor::new(|_| Vec::new()))
            } else {
                Entries::Streaming
            },
            buffers: Buffers::new(buffer_records, rayon::current_num_threads()),
            buffer_records,
            current: ByColor::new(|_| Vec::new()),
            checkpointed: ByColor::new(|_| Vec::new()),
            unresolved: ByColor::new(|side| {
                let parked = plan.filter_parked && side == Color::Black;
                (unresolved_filter && !parked).then(|| Bitmap::new(n))
            }),
            frontiers: Frontiers::new(layout, plan.frontier_lists),
            chunk_buffers,
            pull,
            resolved: ByColor::new(|_| (0..layout.chunks()).map(|_| false.into()).collect()),
            pattern_slices: plan.pattern_slices,
            candidates: plan.candidates,
            lent: plan.lent,
            parking: plan.filter_parked.then(|| Parking {
                side: Color::Black,
                sequence: ByColor::new(|_| 0),
                writer: std::sync::Mutex::new(None),
            }),
        }
    }

    /// The material being built.
    pub fn material(&self) -> Material {
        self.material
    }

    /// How each side's entries split into chunks.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Whether win plies may be pulled when that costs less.
    pub fn pull(&self) -> bool {
        self.pull
    }

    /// Removes the store's files that no checkpoint names (before a fresh start).
    pub fn remove_unreferenced_files(&self) -> Result<(), BuildError> {
        self.store.remove_unreferenced(None)
    }

    /// Drops the state, keeping only its store directory.
    pub fn into_store(self) -> StoreDir {
        self.store
    }

    /// Frees what only the passes use (bitmaps, update buffers, chunk buffers beyond one), so
    /// that the final write has that memory for its compressors and buffers.
    pub fn release_pass_memory(&mut self) {
        for side in Color::ALL {
            self.unresolved[side] = None;
        }
        self.parking = None;
        self.frontiers = Frontiers::none();
        self.buffers = Buffers::new(0, 0);
        // The write reads one chunk at a time.
        if !self.resident() {
            self.store.reserve(1, self.layout.chunk_len());
        }
    }

    /// Frees, for the rule stage's pattern phase, what only the propagation passes use: the
    /// update buffers, the spare chunk buffers and the frontier bitmaps (empty between orders;
    /// the seeds go into fresh ones). They are mapped blocks (`main.rs`), so their pages go back
    /// to the system, and the plan counts the pattern phase in their place
    /// ([`super::plan::plan`]). [`Work::restore_pass_memory`] sets them up again.
    pub fn lend_pass_memory(&mut self) {
        let n = self.layout.entries();
        if let Frontiers::Bits { now, next } = &mut self.frontiers {
            for side in Color::ALL {
                for map in [&mut now[side], &mut next[side]] {
                    if map.is_clear() {
                        *map = Bitmap::summarised(n);
                    }
                }
            }
        }
        self.buffers = Buffers::new(0, 0);
        self.store.reserve(0, 0);
    }

    /// Sets up again what [`Work::lend_pass_memory`] freed (by this thread: see [`Buffers`]).
    pub fn restore_pass_memory(&mut self) {
        self.buffers = Buffers::new(self.buffer_records, rayon::current_num_threads());
        self.store
            .reserve(self.chunk_buffers, self.layout.chunk_len());
    }

    /// Are the chunks resident (false: streaming through chunk files)?
    pub fn resident(&self) -> bool {
        matches!(self.entries, Entries::Resident(_))
    }

    /// Stores chunk `c` of `side`, computed for the first time (chunks are filled in order).
    pub fn put_chunk(
        &mut self,
        side: Color,
        c: usize,
        chunk: Chunk,
        select: &Select,
    ) -> Result<(), BuildError> {
        debug_assert_eq!(self.current[side].len(), c);
        self.mark_bitmaps(side, c, &chunk, select)?;
        match &mut self.entries {
            Entries::Resident(res) => {
                res[side].push(chunk);
                self.current[side].push(ChunkRecord { gen: 0, crc: 0 });
            }
            Entries::Streaming => {
                let rec = self.store.write_chunk(side, c, 0, &chunk)?;
                self.current[side].push(rec);
                self.store.recycle(chunk);
            }
        }
        Ok(())
    }

    /// Sets the unresolved filter of chunk `c` from its entries (or parks it), and the
    /// frontiers by `select`.
    fn mark_bitmaps(
        &self,
        side: Color,
        c: usize,
        chunk: &Chunk,
        select: &Select,
    ) -> Result<(), BuildError> {
        let words = marks_of(chunk, select);
        let first = (self.layout.base(c) / 64) as usize;
        let parked = self.parking.as_ref().filter(|p| p.side == side);
        match (&self.unresolved[side], parked) {
            (Some(open), _) => words
                .par_iter()
                .enumerate()
                .for_each(|(k, w)| open.store_word(first + k, w[0])),
            (None, Some(p)) => self.park_chunk(p, c, words.iter().map(|w| w[0]))?,
            (None, None) => {}
        }
        match &self.frontiers {
            Frontiers::Bits { now, next } => {
                words.par_iter().enumerate().for_each(|(k, w)| {
                    now[side].store_word(first + k, w[1]);
                    next[side].store_word(first + k, w[2]);
                });
            }
            Frontiers::Lists(lists) => {
                for (which, now) in [(1, true), (2, false)] {
                    let locals = set_bits(&words, which);
                    for part in locals.chunks(super::frontier::LIST_BATCH) {
                        lists.add(&self.store, side, c, now, part)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The file a side's parked filter is kept in.
    fn park_path(&self, side: Color) -> std::path::PathBuf {
        self.store
            .dir
            .join(format!("s{}-filter.park", side.index()))
    }

    /// The header of `side`'s parked filter of park `sequence`.
    fn park_tag(&self, side: Color, sequence: u64) -> parked::Tag {
        parked::Tag {
            side,
            chunks: self.layout.chunks() as u32,
            words: self.layout.entries().div_ceil(64),
            sequence,
        }
    }

    /// The filter words of chunk `c`'s entries (chunks are whole words: [`super::layout`]).
    fn chunk_words(&self, c: usize) -> std::ops::Range<usize> {
        let (base, len) = (self.layout.base(c), self.layout.len(c) as u64);
        (base / 64) as usize..(base + len).div_ceil(64) as usize
    }

    /// Appends chunk `c`'s filter words to the parked side's file (initialisation and resume
    /// derive it a chunk at a time, in order).
    fn park_chunk(
        &self,
        p: &Parking,
        c: usize,
        words: impl Iterator<Item = u64>,
    ) -> Result<(), BuildError> {
        let path = self.park_path(p.side);
        let io = |source| BuildError::Io {
            path: path.clone(),
            source,
        };
        let mut writer = p.writer.lock().unwrap();
        if c == 0 {
            let tag = self.park_tag(p.side, p.sequence[p.side]);
            *writer = Some(parked::Writer::create(&path, tag).map_err(io)?);
        }
        let w = writer
            .as_mut()
            .expect("chunks are parked in order from the first");
        w.chunk(words).map_err(io)?;
        if c + 1 == self.layout.chunks() {
            let written = writer.take().expect("written").finish().map_err(io)?;
            self.store.note_parked(true, written);
        }
        Ok(())
    }

    /// Makes `side`'s unresolved filter the one in RAM, parking the other's (nothing to do
    /// unless the plan parks one): a pass updates the entries of one side, and keeps that
    /// side's filter as it resolves them.
    pub fn use_filter(&mut self, side: Color) -> Result<(), BuildError> {
        let Some(p) = &self.parking else {
            return Ok(());
        };
        if p.side != side {
            return Ok(());
        }
        let loaded = !side;
        let sequence = p.sequence[loaded].max(p.sequence[side]) + 1;
        let map = self.unresolved[loaded]
            .take()
            .expect("one side's filter is in RAM");
        let ranges = |c| self.chunk_words(c);
        let (out, back) = (self.park_path(loaded), self.park_path(side));
        let io = |path: &std::path::Path| {
            let path = path.to_owned();
            move |source| BuildError::Io { path, source }
        };
        let written =
            parked::park(&out, self.park_tag(loaded, sequence), &map, ranges).map_err(io(&out))?;
        self.store.note_parked(true, written);
        let tag = self.park_tag(side, p.sequence[side]);
        let read = parked::unpark(&back, tag, &map, ranges).map_err(io(&back))?;
        self.store.note_parked(false, read);
        self.unresolved[side] = Some(map);
        let p = self.parking.as_mut().expect("parking");
        p.sequence[loaded] = sequence;
        p.side = loaded;
        Ok(())
    }

    /// The order of a ply's two passes: with a parked filter, first the pass into the side
    /// whose filter is in RAM, so a ply parks and reads back one filter, not two.
    pub fn pass_order(&self) -> [Color; 2] {
        match &self.parking {
            // The pass from the parked side updates the other side.
            Some(p) => [p.side, !p.side],
            None => Color::ALL,
        }
    }

    /// Calls `f` with chunk `c` of `side` (read from its file when streaming).
    pub fn with_chunk<T>(
        &self,
        side: Color,
        c: usize,
        f: impl FnOnce(&Chunk) -> T,
    ) -> Result<T, BuildError> {
        match &self.entries {
            Entries::Resident(res) => Ok(f(&res[side][c])),
            Entries::Streaming => {
                let chunk = self.read(side, c)?;
                let out = f(&chunk);
                self.store.recycle(chunk);
                Ok(out)
            }
        }
    }

    /// Reads the latest file of chunk `c` of `side`, with the resolutions its file does not
    /// hold yet ([`Work::defer_resolved`]).
    pub fn read(&self, side: Color, c: usize) -> Result<Chunk, BuildError> {
        let len = self.layout.len(c);
        let chunk = self.store.read_chunk(side, c, self.current[side][c], len)?;
        if self.resolved[side][c].load(Relaxed) {
            let mut words = vec![0u32; 1 << 14];
            let mut bad = None;
            let applied = self.store.read_resolved(side, c, &mut words, |pairs| {
                for pair in pairs.chunks_exact(2) {
                    match chunk.entries.get(pair[0] as usize) {
                        Some(e) if entry::is_unresolved(e.load(Relaxed)) => {
                            e.store(pair[1], Relaxed)
                        }
                        _ => bad = Some(pair[0]),
                    }
                }
            });
            let failed = applied.err().or(bad.map(|l| {
                let path = self.store.log_path(Log::Resolved, side, c);
                BuildError::Inconsistent(format!(
                    "{}: resolves entry {l}, which is not an unresolved entry of the chunk",
                    path.display()
                ))
            }));
            if let Some(e) = failed {
                // The chunk's buffer goes back to the plan's reserve either way.
                self.store.recycle(chunk);
                return Err(e);
            }
        }
        Ok(chunk)
    }

    /// Resolves `side`'s unresolved entries `indices` to the word `to` (an order's seeds): in
    /// place when resident; streaming, into their chunks' resolution logs, not their files
    /// (`formats/build.md` §7.2: an order's seeds are a few thousand entries spread over every
    /// chunk; reading and writing those chunks took KRCKR 0.40 s in its 20 orders at `--memory
    /// 256M`). They leave the unresolved filter.
    pub fn resolve_entries(
        &self,
        side: Color,
        indices: &mut [u64],
        to: u32,
    ) -> Result<(), BuildError> {
        if self.parking.as_ref().is_some_and(|p| p.side == side) {
            return Err(BuildError::Inconsistent(
                "entries resolved while their side's unresolved filter is parked".into(),
            ));
        }
        if let Some(open) = &self.unresolved[side] {
            indices.iter().for_each(|&i| open.clear(i));
        }
        match &self.entries {
            Entries::Resident(res) => {
                for &i in indices.iter() {
                    let e = &res[side][self.layout.chunk(i)].entries[self.layout.local(i)];
                    debug_assert!(entry::is_unresolved(e.load(Relaxed)));
                    e.store(to, Relaxed);
                }
                Ok(())
            }
            Entries::Streaming => self.defer_resolved(side, indices, to),
        }
    }

    /// Streaming: notes entries of `side` just resolved to `to` (`indices`, sorted here: by a
    /// win ply, whose every update to an unresolved entry resolves it to `to`, or the seeds of
    /// an order) in their chunks' resolution logs instead of writing the chunks now. A chunk's
    /// file takes them the next time it is written (a rewrite,
    /// [`Work::rewrite_chunks`], a checkpoint); until then [`Work::read`] applies them. In the
    /// later orders of the Asian rules most plies resolve a few thousand entries spread over
    /// every chunk, and writing each chunk for them was 2.4 s of KRCKR's 5.6 s of such plies at
    /// `--memory 256M`.
    pub fn defer_resolved(
        &self,
        side: Color,
        indices: &mut [u64],
        to: u32,
    ) -> Result<(), BuildError> {
        indices.sort_unstable();
        let mut pairs = Vec::with_capacity(2 * indices.len());
        for (c, run) in super::buffers::runs(indices, |i| self.layout.chunk(i)) {
            pairs.clear();
            pairs.extend(run.iter().flat_map(|&i| [self.layout.local(i) as u32, to]));
            self.store.append_resolved(side, c, &pairs)?;
            self.resolved[side][c].store(true, Relaxed);
        }
        Ok(())
    }

    /// After chunk `c` of `side` was written from a [`Work::read`]: its file holds its
    /// resolutions.
    fn written(&self, side: Color, c: usize) -> Result<(), BuildError> {
        if self.resolved[side][c].swap(false, Relaxed) {
            self.store.clear_resolved(side, c)?;
        }
        Ok(())
    }

    /// Writes every chunk with resolutions its file does not hold (before a checkpoint, which
    /// names chunk files only).
    fn write_resolved(&mut self) -> Result<(), BuildError> {
        for side in Color::ALL {
            let chunks: Vec<usize> = (0..self.layout.chunks())
                .filter(|&c| self.resolved[side][c].load(Relaxed))
                .collect();
            if chunks.is_empty() {
                continue;
            }
            let workers = vec![(); self.chunk_workers(chunks.len())];
            let (_, written) = self.rewrite_chunks(side, &chunks, workers, |_, _, _| Ok(true))?;
            self.record(side, written);
        }
        Ok(())
    }

    /// Writes an updated chunk (streaming): as a new generation if the last checkpoint names
    /// the current one, else over the current one, which nothing else refers to (a kill while
    /// it is written loses only work since the checkpoint, whose files stay intact).
    #[cfg(test)]
    pub fn replace(&mut self, side: Color, c: usize, chunk: &Chunk) -> Result<(), BuildError> {
        self.current[side][c] = self
            .store
            .write_chunk(side, c, self.next_gen(side, c), chunk)?;
        self.written(side, c)
    }

    /// Streaming: reads each of `chunks` (of `side`), calls `f` with it and, if that returns
    /// true (an error stops the work), writes it back (a new generation if the last checkpoint names the current one). One worker
    /// per state in `states` (see [`Work::chunk_workers`]) takes the chunks one at a time, so
    /// one's file reads and writes overlap another's work. Returns the states and the chunks'
    /// new records, for [`Work::record`].
    pub fn rewrite_chunks<S: Send>(
        &self,
        side: Color,
        chunks: &[usize],
        states: Vec<S>,
        f: impl Fn(&mut S, usize, &Chunk) -> Result<bool, BuildError> + Sync,
    ) -> Result<(Vec<S>, Rewritten), BuildError> {
        let jobs: Vec<(usize, u64)> = chunks
            .iter()
            .map(|&c| (c, self.next_gen(side, c)))
            .collect();
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let done: Vec<(S, Vec<(usize, ChunkRecord)>)> = states
            .into_par_iter()
            .map(|mut state| {
                let mut written = Vec::new();
                while let Some(&(c, gen)) = jobs.get(taken.fetch_add(1, Relaxed)) {
                    let chunk = self.read(side, c)?;
                    if f(&mut state, c, &chunk)? {
                        written.push((c, self.store.write_chunk(side, c, gen, &chunk)?));
                        self.written(side, c)?;
                    }
                    self.store.recycle(chunk);
                }
                Ok((state, written))
            })
            .collect::<Result<_, BuildError>>()?;
        let (states, written): (Vec<S>, Vec<Vec<_>>) = done.into_iter().unzip();
        Ok((states, written.concat()))
    }

    /// Calls `f` to update `side`'s entries in place, with a range of indices and a view that
    /// reaches the entry of each: once over every entry when resident; streaming, once per chunk
    /// among `chunks`, each read and, if `f` returns true (it changed something), written back.
    pub fn update_entries(
        &mut self,
        side: Color,
        chunks: &[usize],
        f: impl Fn(&Work, std::ops::Range<u64>, &EntryView) -> bool + Sync,
    ) -> Result<(), BuildError> {
        let layout = self.layout;
        if let Entries::Resident(res) = &self.entries {
            f(
                self,
                0..layout.entries(),
                &EntryView::Chunks(&res[side], layout),
            );
            return Ok(());
        }
        let workers = vec![(); self.chunk_workers(chunks.len())];
        let (_, written) = self.rewrite_chunks(side, chunks, workers, |_, c, chunk| {
            let base = layout.base(c);
            let range = base..base + layout.len(c) as u64;
            Ok(f(self, range, &EntryView::Chunk(chunk, base)))
        })?;
        self.record(side, written);
        Ok(())
    }

    /// Workers for [`Work::rewrite_chunks`] of `n` chunks: one per thread, as many as the plan
    /// has chunk buffers for, at least one.
    pub fn chunk_workers(&self, n: usize) -> usize {
        rayon::current_num_threads()
            .min(self.chunk_buffers)
            .min(n)
            .max(1)
    }

    /// Notes chunks written by [`Work::rewrite_chunks`] as current.
    pub fn record(&mut self, side: Color, written: Vec<(usize, ChunkRecord)>) {
        for (c, rec) in written {
            self.current[side][c] = rec;
        }
    }

    /// The generation [`Work::replace`] writes chunk `c` of `side` as.
    pub fn next_gen(&self, side: Color, c: usize) -> u64 {
        let old = self.current[side][c];
        match self.checkpointed[side].get(c) == Some(&old) {
            true => old.gen + 1,
            false => old.gen,
        }
    }

    /// After the passes of one step: what they resolved becomes the frontier. Returns its size.
    pub fn advance(&mut self) -> Result<u64, BuildError> {
        self.frontiers.advance(&self.store)
    }

    /// Frontier entries of `side`.
    pub fn frontier_in_all(&self, side: Color) -> u64 {
        self.frontiers.now_in_all(side)
    }

    /// Notes `side`'s entries `indices` (sorted) as resolved by the passes under way: they
    /// start the pass from that side at the next ply.
    pub fn note_next(&self, side: Color, indices: &[u64]) -> Result<(), BuildError> {
        self.frontiers
            .note_next(&self.store, self.layout, side, indices)
    }

    /// A manifest for the state after `ply` of `order` (chunk records filled by
    /// [`Work::checkpoint`]).
    pub fn manifest(&self, order: u16, ply: u32) -> Manifest {
        Manifest {
            store_version: STORE_VERSION,
            material: self.material.to_string(),
            index_scheme: crate::index::INDEX_SCHEME_VERSION,
            entries: self.layout.entries(),
            chunk_shift: self.layout.shift(),
            order,
            ply,
            chunks: [Vec::new(), Vec::new()],
            provenance: self.provenance.clone(),
            crc32: 0,
        }
    }

    /// Does a manifest belong to this build (material, layout, versions)?
    pub fn fits(&self, m: &Manifest) -> bool {
        m.store_version == STORE_VERSION
            && m.material == self.material.to_string()
            && m.index_scheme == crate::index::INDEX_SCHEME_VERSION
            && m.entries == self.layout.entries()
            && m.chunk_shift == self.layout.shift()
            && m.chunks.iter().all(|c| c.len() == self.layout.chunks())
    }

    /// Writes the resident chunks (if any) as a new generation, syncs every file the manifest
    /// will name for the first time, writes the manifest, then removes what it no longer names.
    pub fn checkpoint(&mut self, mut m: Manifest) -> Result<(), BuildError> {
        self.write_resolved()?;
        if let Entries::Resident(res) = &self.entries {
            for (side, chunks) in res.iter() {
                for (c, chunk) in chunks.iter().enumerate() {
                    let gen = self.checkpointed[side].get(c).map_or(0, |r| r.gen + 1);
                    self.current[side][c] = self.store.write_chunk(side, c, gen, chunk)?;
                }
            }
        }
        for (side, recs) in self.current.iter() {
            for (c, rec) in recs.iter().enumerate() {
                if self.checkpointed[side].get(c) != Some(rec) {
                    self.store.sync_chunk(side, c, rec.gen)?;
                }
            }
        }
        m.chunks = self.current.clone().0;
        self.store.write_manifest(&m)?;
        self.checkpointed = self.current.clone();
        self.store.remove_unreferenced_but_lists(&m)
    }

    /// Loads the state a manifest names (every chunk read and checked; kept in RAM when
    /// resident) and derives the bitmaps: unresolved entries, and the frontiers by `select`.
    /// On error the state is unusable: the caller starts afresh with a new [`Work`].
    pub fn load(&mut self, m: &Manifest, select: &Select) -> Result<(), BuildError> {
        if !self.fits(m) {
            return Err(BuildError::Checkpoint(
                "the checkpoint is of another build layout".into(),
            ));
        }
        self.store.remove_unreferenced(Some(m))?;
        self.current = ByColor(m.chunks.clone());
        self.checkpointed = self.current.clone();
        for side in Color::ALL {
            for c in 0..self.layout.chunks() {
                let chunk = self.read(side, c)?;
                self.mark_bitmaps(side, c, &chunk, select)?;
                match &mut self.entries {
                    Entries::Resident(res) => res[side].push(chunk),
                    Entries::Streaming => self.store.recycle(chunk),
                }
            }
        }
        Ok(())
    }
}

/// Per 64 entries of `chunk`: the bits of its unresolved entries, of those `select` puts in the
/// frontier, and of those it puts in the next one.
fn marks_of(chunk: &Chunk, select: &Select) -> Vec<[u64; 3]> {
    chunk
        .entries
        .par_chunks(64)
        .map(|es| {
            let mut w = [0u64; 3];
            for (b, e) in es.iter().enumerate() {
                let e = e.load(Relaxed);
                w[0] |= (entry::is_unresolved(e) as u64) << b;
                w[1] |= ((e == select.frontier) as u64) << b;
                w[2] |= ((e == select.next) as u64) << b;
            }
            w
        })
        .collect()
}

/// The positions of the set bits of part `which` of `words` (64 positions a word), in order.
fn set_bits(words: &[[u64; 3]], which: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let mut bits = w[which];
        while bits != 0 {
            out.push((k * 64) as u32 + bits.trailing_zeros());
            bits &= bits - 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::entry::{resolved, unresolved};

    /// A streamed state of two chunks of `2^14` entries per side, every entry unresolved.
    fn streamed(dir: &std::path::Path) -> Work {
        let layout = Layout::new(1 << 15, 14);
        let store = StoreDir::open(dir.join("s")).unwrap();
        let plan = Plan {
            resident: false,
            unresolved_filter: true,
            frontier_lists: false,
            filter_parked: false,
            pack_budget: 0,
            update_buffer: 64 * Buffers::RECORD_BYTES,
            chunk_buffers: 2,
            pattern_slices: None,
            candidates: 0,
            lent: 0,
            total: 0,
        };
        let provenance = Provenance::new(
            crate::table::RuleSet::DtcAsian,
            crate::table::Metric::Dtc,
            &[],
        );
        let mut work = Work::new(
            "KRKN".parse().unwrap(),
            layout,
            store,
            &plan,
            true,
            provenance,
        );
        let select = Select {
            frontier: u32::MAX - 1,
            next: u32::MAX - 1,
        };
        for side in Color::ALL {
            for c in 0..layout.chunks() {
                let chunk = Chunk::new(layout.len(c));
                chunk
                    .entries
                    .iter()
                    .for_each(|e| e.store(unresolved(3), Relaxed));
                work.put_chunk(side, c, chunk, &select).unwrap();
            }
        }
        work
    }

    #[test]
    fn deferred_resolutions_are_read_until_the_chunk_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let mut work = streamed(tmp.path());
        let (win, side) = (resolved(2, 5), Color::Black);
        // Entries of both chunks, out of order.
        work.defer_resolved(side, &mut [20_000, 7, 16_384], win)
            .unwrap();
        let at = |work: &Work, c: usize, local: usize| work.read(side, c).unwrap().get(local);
        assert_eq!(at(&work, 0, 7), win);
        assert_eq!(at(&work, 0, 8), unresolved(3));
        assert_eq!((at(&work, 1, 0), at(&work, 1, 20_000 - 16_384)), (win, win));
        assert_eq!(
            work.read(!side, 0).unwrap().get(7),
            unresolved(3),
            "one side's"
        );
        // Written: the file holds them and the log is empty.
        let chunk = work.read(side, 0).unwrap();
        work.replace(side, 0, &chunk).unwrap();
        let log = work.store.log_path(Log::Resolved, side, 0);
        assert_eq!(std::fs::metadata(&log).unwrap().len(), 0);
        assert_eq!(at(&work, 0, 7), win);
        // A checkpoint writes the other chunk: its files hold every resolution.
        work.checkpoint(work.manifest(2, 5)).unwrap();
        assert!(!work.store.log_path(Log::Resolved, side, 1).exists());
        let rec = work.current[side][1];
        let file = work.store.read_chunk(side, 1, rec, 1 << 14).unwrap();
        assert_eq!(file.get(0), win);
    }

    #[test]
    fn a_resolution_of_an_entry_not_unresolved_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let work = streamed(tmp.path());
        work.defer_resolved(Color::Red, &mut [3], resolved(0, 1))
            .unwrap();
        // The same entry again: the log no longer fits the file.
        work.defer_resolved(Color::Red, &mut [3], resolved(0, 3))
            .unwrap();
        let err = work.read(Color::Red, 0).err().unwrap();
        assert!(err.to_string().contains("not an unresolved entry"), "{err}");
    }
}
