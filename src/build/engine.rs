//! One table's build: plan, initialise, propagate ply by ply, write the final file. See the
//! module docs of [`super`] for the algorithm and `formats/build.md` for the working files.

// Chunk numbers index several per-chunk arrays at once (records, frontier counts, buffers).
#![allow(clippy::needless_range_loop)]

use super::store::{
    Chunk, ChunkRecord, Manifest, StoreDir, ILLEGAL, MAX_WORKING_DISTANCE, STORE_VERSION, UNKNOWN,
};
use super::sub::{packed_bytes, Subtables};
use super::{BuildError, BuildOptions};
use crate::index::Indexer;
use crate::material::Material;
use crate::piece::{Color, Role};
use crate::position::Position;
use crate::table::{
    table_path, Header, LongestWin, RuleSet, SideStats, TableWriter, BLOCK_ENTRIES,
};
use crate::value::{Outcome, Value, CODE_DRAW, CODE_NONE};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

/// Entries a worker takes at a time.
const WINDOW: usize = 4096;
/// Bytes kept back from the budget for buffers not accounted below (I/O buffers, caches).
const RESERVE: u64 = 8 << 20;

/// What a build did for one table.
#[derive(Clone, Debug)]
pub struct TableReport {
    pub material: Material,
    /// Index entries per side.
    pub entries: u64,
    /// Legal positions, both sides to move.
    pub positions: u64,
    /// None if the table was already present.
    pub seconds: Option<f64>,
    /// Whether the working state was resident (false: streamed through chunk files).
    pub resident: bool,
    pub plies: u32,
}

impl TableReport {
    pub(super) fn present(material: Material, h: &Header) -> TableReport {
        TableReport {
            material,
            entries: h.entries,
            positions: h.sides[0].legal + h.sides[1].legal,
            seconds: None,
            resident: false,
            plies: 0,
        }
    }
}

/// Where a pass's updates go.
enum Mode {
    /// Every chunk resident.
    Resident([Vec<Chunk>; 2]),
    /// Chunks on disk; updates buffered up to `update_budget` bytes, then spilled to logs.
    Streaming { update_budget: u64 },
}

struct Build<'a> {
    material: Material,
    indexer: Indexer,
    subs: Subtables,
    store: StoreDir,
    n: u64,
    cl: u64,
    nchunks: usize,
    mode: Mode,
    /// Latest generation of every chunk (may be newer than the manifest's).
    current: [Vec<ChunkRecord>; 2],
    opts: &'a BuildOptions,
}

fn progress(opts: &BuildOptions, len: u64, msg: String) -> ProgressBar {
    let target = if opts.quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg}: {human_pos}/{human_len} [{bar:30}] {per_sec} ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(msg);
    bar
}

pub(super) fn build_table(
    material: Material,
    opts: &BuildOptions,
    log: &(dyn Fn(&str) + Sync),
) -> Result<TableReport, BuildError> {
    let start = Instant::now();
    let indexer = Indexer::new(material)?;
    let n = indexer.size();
    let block = BLOCK_ENTRIES as u64;
    let store = StoreDir {
        dir: opts.tmp.join(format!("{material}.build")),
    };
    std::fs::create_dir_all(&store.dir).map_err(|source| BuildError::Io {
        path: store.dir.clone(),
        source,
    })?;
    let mut manifest = match store.read_manifest() {
        Ok(m) => m,
        Err(e) => {
            log(&format!(
                "{material}: {e}; restarting this table from scratch"
            ));
            None
        }
    };
    let fits = |m: &Manifest| {
        m.store_version == STORE_VERSION
            && m.material == material.to_string()
            && m.index_scheme == crate::index::INDEX_SCHEME_VERSION
            && m.entries == n
    };
    if manifest.as_ref().is_some_and(|m| !fits(m)) {
        log(&format!(
            "{material}: checkpoint from another build layout; restarting this table"
        ));
        manifest = None;
    }
    let cl = match &manifest {
        Some(m) => m.chunk_len,
        None => opts.chunk_len.max(1).div_ceil(block) * block,
    }
    .min(n.div_ceil(block) * block)
    .max(block);
    let nchunks = n.div_ceil(cl) as usize;

    // Memory plan: resident if the whole working state, the packed supporting tables and a
    // reserve fit the budget; otherwise stream, with room for the chunks in flight (a source
    // chunk's values and its file bytes, a destination chunk and its file bytes: 14 bytes per
    // chunk entry at most) and the rest for packed supporting tables and update buffers.
    let table_bytes = 2 * Chunk::bytes(n as usize) as u64;
    let sub_bytes: u64 = supporting_sizes(material)?
        .iter()
        .map(|&e| packed_bytes(e))
        .sum();
    let budget = opts.memory;
    let resident = !opts.force_streaming && table_bytes + sub_bytes + RESERVE <= budget;
    let in_flight = 14 * cl;
    let (pack_budget, cache_bytes) = if resident {
        (budget - table_bytes - RESERVE, 4 << 20)
    } else {
        (budget.saturating_sub(in_flight + RESERVE) / 2, 2 << 20)
    };
    let (subs, sub_used) = Subtables::open(&opts.dir, material, pack_budget, cache_bytes)?;
    let update_budget = budget
        .saturating_sub(in_flight + RESERVE + sub_used)
        .max(4 << 20);
    log(&format!(
        "{material}: {n} entries per side, {} ({nchunks} chunks of {cl} per side)",
        if resident {
            format!("resident ({} MiB working state)", table_bytes >> 20)
        } else {
            format!(
                "streaming through {} ({} MiB of update buffers)",
                store.dir.display(),
                update_budget >> 20
            )
        }
    ));

    let mut b = Build {
        material,
        indexer,
        subs,
        store,
        n,
        cl,
        nchunks,
        mode: if resident {
            Mode::Resident([Vec::new(), Vec::new()])
        } else {
            Mode::Streaming { update_budget }
        },
        current: [Vec::new(), Vec::new()],
        opts,
    };

    // Resume from a checkpoint whose files all check out, or start afresh.
    if let Some(m) = manifest.take() {
        match b.resume(&m) {
            Ok(()) => {
                log(&format!("{material}: resuming after ply {}", m.ply));
                manifest = Some(m);
            }
            Err(e) => log(&format!(
                "{material}: {e}; restarting this table from scratch"
            )),
        }
    }
    let mut m = match manifest {
        Some(m) => m,
        None => {
            b.store.remove_unreferenced(None)?;
            b.initialise()?
        }
    };
    let mut last_checkpoint = Instant::now();
    while m.ply == 0 || m.frontier.iter().flatten().any(|&c| c > 0) {
        let ply = m.ply + 1;
        if ply > MAX_WORKING_DISTANCE as u32 {
            return Err(BuildError::Overflow {
                material,
                ply,
                max: MAX_WORKING_DISTANCE,
            });
        }
        let mut next = [vec![0u64; nchunks], vec![0u64; nchunks]];
        for s in 0..2 {
            if m.frontier[s].iter().any(|&c| c > 0) {
                next[1 - s] = b.propagate(s, ply, &m.frontier[s], &m.chunks)?;
            }
        }
        if ply == 1 {
            for s in 0..2 {
                for c in 0..nchunks {
                    next[s][c] += m.init_wins[s][c];
                }
            }
        }
        m.ply = ply;
        m.frontier = next;
        if last_checkpoint.elapsed() >= opts.checkpoint_interval {
            b.checkpoint(&mut m)?;
            last_checkpoint = Instant::now();
        }
    }
    let positions = b.write_table()?;
    std::fs::remove_dir_all(&b.store.dir).map_err(|source| BuildError::Io {
        path: b.store.dir.clone(),
        source,
    })?;
    Ok(TableReport {
        material,
        entries: n,
        positions,
        seconds: Some(start.elapsed().as_secs_f64()),
        resident,
        plies: m.ply,
    })
}

fn supporting_sizes(material: Material) -> Result<Vec<u64>, BuildError> {
    let mut seen = Vec::new();
    for color in Color::ALL {
        for role in Role::ALL {
            if let Some(sub) = material.captured(color, role) {
                let c = sub.canonical();
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
        }
    }
    seen.into_iter()
        .map(|m| Ok(Indexer::new(m)?.size()))
        .collect()
}

impl Build<'_> {
    fn chunk_range(&self, c: usize) -> (u64, usize) {
        let base = c as u64 * self.cl;
        (base, (self.n - base).min(self.cl) as usize)
    }

    /// Loads (resident) or checks (streaming) every chunk a manifest names.
    fn resume(&mut self, m: &Manifest) -> Result<(), BuildError> {
        if m.chunks.iter().any(|c| c.len() != self.nchunks) {
            return Err(BuildError::Checkpoint(
                "manifest chunk count does not match".into(),
            ));
        }
        self.store.remove_unreferenced(Some(m))?;
        for s in 0..2 {
            for c in 0..self.nchunks {
                let len = self.chunk_range(c).1;
                let chunk = self.store.read_chunk(s, c, m.chunks[s][c], len)?;
                if let Mode::Resident(res) = &mut self.mode {
                    res[s].push(chunk);
                }
            }
        }
        self.current = m.chunks.clone();
        Ok(())
    }

    /// Writes the resident chunks (if any) as a new generation, then the manifest, then removes
    /// what it no longer references.
    fn checkpoint(&mut self, m: &mut Manifest) -> Result<(), BuildError> {
        if let Mode::Resident(res) = &self.mode {
            for s in 0..2 {
                for (c, chunk) in res[s].iter().enumerate() {
                    let gen = self.current[s].get(c).map_or(0, |r| r.gen + 1);
                    let rec = self.store.write_chunk(s, c, gen, chunk)?;
                    if c < self.current[s].len() {
                        self.current[s][c] = rec;
                    } else {
                        self.current[s].push(rec);
                    }
                }
            }
        }
        for s in 0..2 {
            for (c, rec) in self.current[s].iter().enumerate() {
                if m.chunks[s].get(c) != Some(rec) {
                    self.store.sync_chunk(s, c, rec.gen)?;
                }
            }
        }
        m.chunks = self.current.clone();
        self.store.write_manifest(m)?;
        self.store.remove_unreferenced(Some(m))
    }

    /// The initialisation pass; ends with a checkpoint at ply 0.
    fn initialise(&mut self) -> Result<Manifest, BuildError> {
        let bar = progress(self.opts, 2 * self.n, format!("{} init", self.material));
        let mut frontier = [vec![0u64; self.nchunks], vec![0u64; self.nchunks]];
        let mut init_wins = frontier.clone();
        for s in 0..2 {
            let turn = Color::ALL[s];
            for c in 0..self.nchunks {
                let (base, len) = self.chunk_range(c);
                let chunk = Chunk::new(len);
                let (zeros, ones) = (AtomicU64::new(0), AtomicU64::new(0));
                chunk
                    .vals
                    .par_chunks(WINDOW)
                    .zip(chunk.cnts.par_chunks(WINDOW))
                    .enumerate()
                    .try_for_each(|(w, (vals, cnts))| -> Result<(), BuildError> {
                        let first = base + (w * WINDOW) as u64;
                        let (mut z, mut o) = (0, 0);
                        for (k, (v, cnt)) in vals.iter().zip(cnts).enumerate() {
                            let (value, count) = self.initial(first + k as u64, turn)?;
                            z += (value == 0) as u64;
                            o += (value == 1) as u64;
                            v.store(value, Relaxed);
                            cnt.store(count, Relaxed);
                        }
                        zeros.fetch_add(z, Relaxed);
                        ones.fetch_add(o, Relaxed);
                        bar.inc(vals.len() as u64);
                        Ok(())
                    })?;
                frontier[s][c] = zeros.into_inner();
                init_wins[s][c] = ones.into_inner();
                match &mut self.mode {
                    Mode::Resident(res) => res[s].push(chunk),
                    Mode::Streaming { .. } => {
                        let rec = self.store.write_chunk(s, c, 0, &chunk)?;
                        self.current[s].push(rec);
                    }
                }
            }
        }
        bar.finish_and_clear();
        let mut m = Manifest {
            store_version: STORE_VERSION,
            material: self.material.to_string(),
            index_scheme: crate::index::INDEX_SCHEME_VERSION,
            entries: self.n,
            chunk_len: self.cl,
            ply: 0,
            chunks: [Vec::new(), Vec::new()],
            frontier,
            init_wins,
        };
        self.checkpoint(&mut m)?;
        Ok(m)
    }

    /// The initial working value and children count of one entry.
    #[inline]
    fn initial(&self, index: u64, turn: Color) -> Result<(u16, u8), BuildError> {
        let Some(pos) = self.indexer.decode(index, turn) else {
            return Ok((ILLEGAL, 0));
        };
        if pos.opponent_in_check() {
            return Ok((ILLEGAL, 0));
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok((0, 0));
        }
        let mut count = 0u8;
        for &m in &moves {
            match pos.piece_at(m.to) {
                None => count += 1,
                Some(victim) => {
                    let mut child = pos.clone();
                    child.play(m);
                    match self.subs.outcome(victim.code(), &child)? {
                        Outcome::Loss => return Ok((1, 0)),
                        // A drawn capture is a child that never resolves: it keeps the count up.
                        Outcome::Draw => count += 1,
                        Outcome::Win => {}
                    }
                }
            }
        }
        Ok(if count == 0 { (0, 0) } else { (UNKNOWN, count) })
    }

    /// Calls `emit` with the index of every predecessor of `child` (a position of this table),
    /// once per move from that entry's position into `child`'s entry: exactly the decrements
    /// its children count expects.
    ///
    /// The index folds a position with its mirror image unless both sides' defenders stand
    /// symmetrically (then each has an entry of its own). If `child`'s entry is unfolded, it
    /// stands for `child` alone, and a predecessor counts only as the position its entry
    /// decodes to (its mirror image moves into the mirror entry, which resolves at the same
    /// ply). If `child`'s entry is folded, it stands for `child` and its mirror image, so a
    /// predecessor with an unfolded entry (a defender's retro move made it symmetric) has a
    /// mirror image with an entry of its own that moves into `child`'s entry too.
    #[inline]
    fn predecessors(
        &self,
        child: &Position,
        index: u64,
        mut emit: impl FnMut(u64),
    ) -> Result<(), BuildError> {
        let moves = child.retro_moves();
        let child_unfolded = child.defenders_symmetric();
        let mut q = child.clone();
        for &m in &moves {
            let code = child.piece_at(m.to).map_or(0, |p| p.code());
            // An attacker's retro move keeps the defenders, hence the pair and the (absent)
            // mirroring of `child`'s own entry: only that piece's group rank changes.
            if let Some(parent) = self.indexer.moved(index, code, m.to, m.from) {
                emit(parent);
                continue;
            }
            q.unplay(m);
            let (parent, mirrored) = self.indexer.encode_mirrored(&q)?;
            if child_unfolded {
                if !mirrored {
                    emit(parent);
                }
            } else {
                emit(parent);
                let role = q.piece_at(m.from).map(|p| p.role());
                if matches!(role, Some(Role::King | Role::Advisor | Role::Elephant))
                    && q.defenders_symmetric()
                {
                    emit(self.indexer.encode(&q.mirror())?);
                }
            }
            q.play(m);
        }
        Ok(())
    }

    /// Ply `ply` from side `s`'s frontier (entries at distance `ply - 1`) into side `1 - s`.
    /// Returns, per destination chunk, how many entries it resolved.
    fn propagate(
        &mut self,
        s: usize,
        ply: u32,
        frontier: &[u64],
        checkpointed: &[Vec<ChunkRecord>; 2],
    ) -> Result<Vec<u64>, BuildError> {
        let t = 1 - s;
        let prev = (ply - 1) as u16;
        let d = ply as u16;
        // Children at an even distance are lost for their side to move: their predecessors win.
        let child_lost = prev.is_multiple_of(2);
        let total: u64 = frontier.iter().sum();
        let bar = progress(
            self.opts,
            total,
            format!("{} ply {ply} {}", self.material, ["w→b", "b→w"][s]),
        );
        let resolved: Vec<AtomicU64> = (0..self.nchunks).map(|_| AtomicU64::new(0)).collect();
        let turn = Color::ALL[s];
        let cl = self.cl;
        let apply = |chunk: &Chunk, local: usize| -> bool {
            let hit = if child_lost {
                true
            } else {
                chunk.cnts[local].fetch_sub(1, Relaxed) == 1
            };
            hit && chunk.vals[local]
                .compare_exchange(UNKNOWN, d, Relaxed, Relaxed)
                .is_ok()
        };
        match &self.mode {
            Mode::Resident(res) => {
                let (src, dst) = (&res[s], &res[t]);
                for (c, chunk) in src.iter().enumerate() {
                    if frontier[c] == 0 {
                        continue;
                    }
                    let base = c as u64 * cl;
                    chunk.vals.par_chunks(WINDOW).enumerate().try_for_each(
                        |(w, vals)| -> Result<(), BuildError> {
                            let mut local_resolved = Vec::new();
                            let mut seen = 0;
                            for (k, v) in vals.iter().enumerate() {
                                if v.load(Relaxed) != prev {
                                    continue;
                                }
                                seen += 1;
                                let index = base + (w * WINDOW + k) as u64;
                                let pos = self.decode(index, turn)?;
                                self.predecessors(&pos, index, |p| {
                                    let (dc, l) = ((p / cl) as usize, (p % cl) as usize);
                                    if apply(&dst[dc], l) {
                                        local_resolved.push(dc);
                                    }
                                })?;
                            }
                            for dc in local_resolved {
                                resolved[dc].fetch_add(1, Relaxed);
                            }
                            bar.inc(seen);
                            Ok(())
                        },
                    )?;
                }
            }
            Mode::Streaming { update_budget } => {
                let nchunks = self.nchunks;
                let buffers: Mutex<(Vec<Vec<u32>>, u64)> =
                    Mutex::new((vec![Vec::new(); nchunks], 0));
                let spill = |bufs: &mut (Vec<Vec<u32>>, u64)| -> Result<(), BuildError> {
                    for (dc, b) in bufs.0.iter_mut().enumerate() {
                        if !b.is_empty() {
                            self.store.append_log(t, dc, b)?;
                            *b = Vec::new();
                        }
                    }
                    bufs.1 = 0;
                    Ok(())
                };
                for c in 0..nchunks {
                    if frontier[c] == 0 {
                        continue;
                    }
                    let (base, len) = self.chunk_range(c);
                    let vals = self.store.read_values(s, c, self.current[s][c], len)?;
                    vals.par_chunks(WINDOW).enumerate().try_for_each(
                        |(w, vals)| -> Result<(), BuildError> {
                            let mut local: Vec<Vec<u32>> = vec![Vec::new(); nchunks];
                            let mut seen = 0;
                            for (k, &v) in vals.iter().enumerate() {
                                if v != prev {
                                    continue;
                                }
                                seen += 1;
                                let index = base + (w * WINDOW + k) as u64;
                                let pos = self.decode(index, turn)?;
                                self.predecessors(&pos, index, |p| {
                                    local[(p / cl) as usize].push((p % cl) as u32);
                                })?;
                            }
                            let mut g = buffers.lock().unwrap();
                            for (dc, l) in local.iter().enumerate() {
                                // Count capacity, not length: a growing vector may hold up
                                // to twice what it stores.
                                let before = g.0[dc].capacity();
                                g.0[dc].extend_from_slice(l);
                                g.1 += 4 * (g.0[dc].capacity() - before) as u64;
                            }
                            if g.1 > *update_budget {
                                spill(&mut g)?;
                            }
                            bar.inc(seen);
                            Ok(())
                        },
                    )?;
                }
                let (bufs, _) = buffers.into_inner().unwrap();
                for (dc, buf) in bufs.into_iter().enumerate() {
                    let has_log = self.store.log_path(t, dc).exists();
                    if buf.is_empty() && !has_log {
                        continue;
                    }
                    let len = self.chunk_range(dc).1;
                    let chunk = self.store.read_chunk(t, dc, self.current[t][dc], len)?;
                    let count = |recs: &[u32]| -> u64 {
                        recs.par_iter()
                            .map(|&l| apply(&chunk, l as usize) as u64)
                            .sum()
                    };
                    let mut n = count(&buf);
                    drop(buf);
                    self.store
                        .drain_log(t, dc, 1 << 20, |recs| n += count(recs))?;
                    resolved[dc].store(n, Relaxed);
                    let old = self.current[t][dc];
                    self.current[t][dc] = self.store.write_chunk(t, dc, old.gen + 1, &chunk)?;
                    // A generation written since the last checkpoint is needed by nobody once
                    // superseded.
                    if checkpointed[t][dc] != old {
                        self.store.remove_chunk(t, dc, old.gen)?;
                    }
                }
            }
        }
        bar.finish_and_clear();
        Ok(resolved.into_iter().map(AtomicU64::into_inner).collect())
    }

    fn decode(&self, index: u64, turn: Color) -> Result<Position, BuildError> {
        self.indexer.decode(index, turn).ok_or_else(|| {
            BuildError::Inconsistent(format!(
                "{}: resolved entry {index} does not decode",
                self.material
            ))
        })
    }

    /// Converts the working state into the final table file; returns the number of legal
    /// positions.
    fn write_table(&self) -> Result<u64, BuildError> {
        let path = table_path(&self.opts.dir, self.material);
        let mut w = TableWriter::create(&path, self.material, self.n)?;
        let mut stats = [SideStats::default(); 2];
        for (s, st) in stats.iter_mut().enumerate() {
            for c in 0..self.nchunks {
                let (base, len) = self.chunk_range(c);
                let owned;
                let vals: Vec<u16> = match &self.mode {
                    Mode::Resident(res) => res[s][c].vals.iter().map(|v| v.load(Relaxed)).collect(),
                    Mode::Streaming { .. } => {
                        owned = self.store.read_values(s, c, self.current[s][c], len)?;
                        owned
                    }
                };
                let codes: Vec<u32> = vals
                    .iter()
                    .map(|&v| match v {
                        ILLEGAL => CODE_NONE,
                        UNKNOWN => CODE_DRAW,
                        d => Value::Decided {
                            order: 0,
                            distance: d,
                        }
                        .code(),
                    })
                    .collect();
                for (k, &v) in vals.iter().enumerate() {
                    if v == ILLEGAL {
                        continue;
                    }
                    let idx = base + k as u64;
                    let mult = self.indexer.multiplicity(idx) as u64;
                    st.legal += mult;
                    match v {
                        UNKNOWN => st.draw += mult,
                        d if d % 2 == 0 => st.loss += mult,
                        d => {
                            st.win += mult;
                            if st.longest_win.is_none_or(|l| d > l.distance) {
                                st.longest_win = Some(LongestWin {
                                    order: 0,
                                    distance: d,
                                    index: idx,
                                });
                            }
                        }
                    }
                }
                w.write(s, &codes)?;
            }
        }
        w.finish(RuleSet::DtcOrder0, stats, 0)?;
        Ok(stats[0].legal + stats[1].legal)
    }
}
