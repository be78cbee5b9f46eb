//! A directory of tables, as the query commands use it: probe any legal position whose material
//! (or colour-flipped twin) has a table, and every move from it.

use crate::index::{IndexError, Indexer};
use crate::material::Material;
use crate::position::{Move, Position};
use crate::table::{table_path, TableError, TableFile};
use crate::value::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use thiserror::Error;

/// Why a position could not be probed.
#[derive(Debug, Error)]
pub enum ProbeError {
    #[error("no table for material {material} in {dir} (build it with `xqtb build {material} --dir {dir}`)")]
    Missing { material: Material, dir: PathBuf },
    #[error("position is illegal: the side not to move is in check")]
    Illegal,
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("table {material} has no value for legal position {fen} (corrupted or wrong table)")]
    NoValue { material: Material, fen: String },
}

/// An open table with its indexer.
pub struct OpenTable {
    pub file: TableFile,
    pub indexer: Indexer,
}

/// Tables in one directory, opened on first use.
pub struct Tablebase {
    dir: PathBuf,
    cache_bytes: usize,
    open: Mutex<HashMap<Material, Arc<OpenTable>>>,
}

/// One legal move and the value of the position it leads to (for the side to move there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub mv: Move,
    pub capture: bool,
    pub value: Value,
}

impl Tablebase {
    /// `cache_bytes`: block cache per open table.
    pub fn new(dir: &Path, cache_bytes: usize) -> Tablebase {
        Tablebase {
            dir: dir.to_owned(),
            cache_bytes,
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table of a canonical material.
    pub fn table(&self, material: Material) -> Result<Arc<OpenTable>, ProbeError> {
        let material = material.canonical();
        if let Some(t) = self.open.lock().unwrap().get(&material) {
            return Ok(t.clone());
        }
        let path = table_path(&self.dir, material);
        if !path.exists() {
            return Err(ProbeError::Missing {
                material,
                dir: self.dir.clone(),
            });
        }
        let file = TableFile::open(&path, self.cache_bytes)?;
        if file.header().material != material {
            return Err(TableError::WrongMaterial {
                path,
                expected: material,
                found: file.header().material,
            }
            .into());
        }
        let indexer = Indexer::new(material)?;
        if file.header().entries != indexer.size() {
            return Err(TableError::BadHeader {
                path,
                what: format!(
                    "{} entries per side, the index of {material} has {}",
                    file.header().entries,
                    indexer.size()
                ),
            }
            .into());
        }
        let t = Arc::new(OpenTable { file, indexer });
        self.open.lock().unwrap().insert(material, t.clone());
        Ok(t)
    }

    /// The value of a legal position for its side to move.
    pub fn probe(&self, pos: &Position) -> Result<Value, ProbeError> {
        if pos.opponent_in_check() {
            return Err(ProbeError::Illegal);
        }
        let material = Material::of(pos);
        let flipped;
        let p = if material.is_canonical() {
            pos
        } else {
            flipped = pos.flip_colors();
            &flipped
        };
        let t = self.table(material)?;
        let index = t.indexer.encode(p)?;
        // `p` is legal (checked above): its entry holds its value.
        Ok(t.file.value_legal(p.turn().index(), index)?)
    }

    /// Every legal move with the value of its resulting position.
    pub fn probe_moves(&self, pos: &Position) -> Result<Vec<MoveValue>, ProbeError> {
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let capture = pos.piece_at(m.to).is_some();
            let mut child = pos.clone();
            child.play(m);
            out.push(MoveValue {
                mv: m,
                capture,
                value: self.probe(&child)?,
            });
        }
        Ok(out)
    }
}

impl MoveValue {
    /// What the move is worth to the mover in distance to conversion: a quiet move into a
    /// position lost (won) at distance d wins (loses) at d + 1; a capture converts, so a capture
    /// into a lost position wins at 1 and one into a won position loses at 0.
    pub fn for_mover(&self) -> Value {
        match self.value {
            Value::Draw => Value::Draw,
            Value::Decided { order, distance } => Value::Decided {
                order,
                distance: match (self.capture, distance % 2 == 0) {
                    (true, true) => 1,
                    (true, false) => 0,
                    (false, _) => distance.saturating_add(1),
                },
            },
        }
    }
}

/// The best moves, as the query system marks them with `*`: the shortest win, else a draw, else
/// the longest loss, counted to the next conversion. Empty if there are no moves.
pub fn best_moves(moves: &[MoveValue]) -> Vec<Move> {
    let best = moves.iter().map(|m| m.for_mover().rank()).max();
    moves
        .iter()
        .filter(|m| Some(m.for_mover().rank()) == best)
        .map(|m| m.mv)
        .collect()
}
