//! An in-memory driver: Fang's algorithms ([`crate::fang::levels::solve`]) on every position of a
//! Xiangqi material, its supporting tables solved first the same way. A reference for the
//! out-of-core port, for small materials only: it keeps every value, and the labels of the
//! unknown positions' moves, in RAM.
//!
//! Vertices are the legal entries `(side to move, index)` of the material's [`Indexer`]
//! (mirror-folded: an entry stands for a position and its mirror image, which have the same
//! value and the same labels). Moves inside are the legal quiet moves of the entry's position;
//! captures are exits, valued by the supporting table of the material left. Predecessors come
//! from the builder's retro-move rules ([`super::graph::Graph::predecessors`]), which
//! emit one predecessor per quiet move, as the children counts need.
//!
//! A chased piece is numbered by its colour and role; two pieces of one colour and role are
//! twins numbered by point in the entry's position (the lower first), and each move says which
//! pairs it trades ([`Edge::swaps`]) so that patterns can follow them
//! ([`crate::fang::tracked::Tracked`]; `formats/rules.md`, "Identical pieces").

use super::graph::Graph;
use super::numbering::{Numbering, NumberingError};
use crate::fang::graph::{Edge, GameGraph, PieceId, PieceSet, Vertex};
use crate::fang::levels::{solve, LevelKind, Options, SolveError};
use crate::index::{IndexError, Indexer};
use crate::material::Material;
use crate::piece::Color;
use crate::position::{Move, Position};
use crate::value::{Outcome, Value};
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use thiserror::Error;

/// Why a material could not be solved.
#[derive(Debug, Error)]
pub enum DriverError {
    /// The material could not be indexed, or a position not encoded.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Fang's algorithms stopped (distance or order overflow).
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// The material's pieces could not be numbered for the labels.
    #[error(transparent)]
    Numbering(#[from] NumberingError),
    /// A value was asked of a material that has not been solved.
    #[error("no solved table for {0}")]
    Missing(Material),
    /// A position that should have a value has none.
    #[error("{0}")]
    Inconsistent(String),
}

/// One side's counts of a solved table, in real positions (entries weighed by multiplicity).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideCounts {
    /// Positions won by the side to move.
    pub win: u64,
    /// Positions drawn.
    pub draw: u64,
    /// Positions lost by the side to move.
    pub loss: u64,
}

/// One order's counts: positions won and lost at it (both sides), and the longest win.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderCounts {
    /// The order.
    pub order: u16,
    /// What seeded the order: `None` for order 0.
    pub kind: Option<LevelKind>,
    /// Positions won at this order (odd distances).
    pub win: u64,
    /// Positions lost at this order (even distances).
    pub loss: u64,
    /// The longest win of this order: its distance and FEN.
    pub longest_win: Option<(u16, String)>,
}

/// A solved material.
pub struct Table {
    /// The material solved (canonical orientation).
    pub material: Material,
    indexer: Indexer,
    /// By side to move, by index: `None` for an entry that is not a legal position.
    values: [Vec<Option<Value>>; 2],
    kinds: Vec<LevelKind>,
}

impl Table {
    /// The value of a legal position of this material (as numbered, not colour-flipped).
    pub fn value(&self, pos: &Position) -> Result<Value, DriverError> {
        let index = self.indexer.encode(pos)?;
        self.values[pos.turn().index()][index as usize].ok_or_else(|| {
            DriverError::Inconsistent(format!("{}: no value", crate::fen::to_fen(pos)))
        })
    }

    /// The material's index.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The value of entry `index` with `side` to move; `None` if it is not a legal position.
    pub fn entry(&self, side: Color, index: u64) -> Option<Value> {
        self.values[side.index()]
            .get(index as usize)
            .copied()
            .flatten()
    }

    /// Win/draw/loss counts of one side to move.
    pub fn counts(&self, side: Color) -> SideCounts {
        let mut c = SideCounts::default();
        for (index, v) in self.values[side.index()].iter().enumerate() {
            let Some(v) = v else { continue };
            let mult = self.indexer.multiplicity(index as u64) as u64;
            match v.outcome() {
                Outcome::Win => c.win += mult,
                Outcome::Draw => c.draw += mult,
                Outcome::Loss => c.loss += mult,
            }
        }
        c
    }

    /// Counts per order, both sides together, with each order's longest win.
    pub fn orders(&self) -> Vec<OrderCounts> {
        let mut out: Vec<OrderCounts> = (0..=self.kinds.len())
            .map(|r| OrderCounts {
                order: r as u16,
                kind: r.checked_sub(1).map(|k| self.kinds[k]),
                ..OrderCounts::default()
            })
            .collect();
        for side in Color::ALL {
            for (index, v) in self.values[side.index()].iter().enumerate() {
                let Some(Value::Decided { order, distance }) = *v else {
                    continue;
                };
                let mult = self.indexer.multiplicity(index as u64) as u64;
                let o = &mut out[order as usize];
                if distance % 2 == 0 {
                    o.loss += mult;
                    continue;
                }
                o.win += mult;
                if o.longest_win.as_ref().is_none_or(|(d, _)| distance > *d) {
                    let fen = self
                        .indexer
                        .decode(index as u64, side)
                        .map(|p| crate::fen::to_fen(&p));
                    o.longest_win = Some((distance, fen.unwrap_or_default()));
                }
            }
        }
        out
    }
}

/// Solves materials in memory, keeping every table solved.
pub struct Solver {
    options: Options,
    tables: HashMap<Material, Table>,
}

impl Solver {
    /// A solver with no table solved yet, running [`solve`] with `options`.
    pub fn new(options: Options) -> Solver {
        Solver {
            options,
            tables: HashMap::new(),
        }
    }

    /// Solves `material` (canonical orientation) and every table it captures into.
    pub fn solve(&mut self, material: Material) -> Result<&Table, DriverError> {
        let material = material.canonical();
        for m in material.supporting() {
            if !self.tables.contains_key(&m) {
                let table = self.solve_one(m)?;
                self.tables.insert(m, table);
            }
        }
        self.tables
            .get(&material)
            .ok_or(DriverError::Missing(material))
    }

    fn solve_one(&self, material: Material) -> Result<Table, DriverError> {
        let graph = PositionGraph::new(material, &|child| self.outcome(child))?;
        let solution = solve(&graph, self.options)?;
        let size = graph.indexer.size() as usize;
        let mut values = [vec![None; size], vec![None; size]];
        for (v, &(side, index)) in graph.nodes.iter().enumerate() {
            values[side.index()][index as usize] = Some(solution.values[v]);
        }
        Ok(Table {
            material,
            indexer: graph.indexer,
            values,
            kinds: solution.levels.iter().map(|l| l.kind).collect(),
        })
    }

    /// The value of a position of a solved material (in either colour orientation).
    pub fn value(&self, pos: &Position) -> Result<Value, DriverError> {
        let material = Material::of(pos);
        let canonical = material.canonical();
        let table = self
            .tables
            .get(&canonical)
            .ok_or(DriverError::Missing(canonical))?;
        if canonical == material {
            table.value(pos)
        } else {
            table.value(&pos.flip_colors())
        }
    }

    /// The outcome, for its side to move, of a position of a solved supporting material.
    fn outcome(&self, pos: &Position) -> Result<Outcome, DriverError> {
        Ok(self.value(pos)?.outcome())
    }
}

/// The game graph of one material: its legal entries, with the exits and quiet-move counts
/// found once, and the labels of a position's moves computed when first asked for.
struct PositionGraph {
    indexer: Indexer,
    retro: Graph,
    nodes: Vec<(Color, u64)>,
    /// `side * size + index` → vertex, `u32::MAX` for an entry that is not a legal position.
    ids: Vec<u32>,
    exits: Vec<Option<Outcome>>,
    quiet: Vec<u8>,
    numbering: Numbering,
    labelled: RefCell<HashMap<Vertex, Box<[Packed]>>>,
}

/// A labelled move as the cache keeps it, in 8 bytes: the target, the chased pieces, and the
/// swapped twins with the check in the top bit (a material numbers at most 15 pieces).
#[derive(Clone, Copy)]
struct Packed {
    to: u32,
    chases: u16,
    swaps_check: u16,
}

const CHECK_BIT: u16 = 1 << 15;

impl Packed {
    fn pack(e: &Edge) -> Packed {
        Packed {
            to: e.to as u32,
            chases: e.chases.0 as u16,
            swaps_check: e.swaps.0 as u16 | if e.check { CHECK_BIT } else { 0 },
        }
    }

    fn unpack(self) -> Edge {
        Edge {
            to: self.to as Vertex,
            check: self.swaps_check & CHECK_BIT != 0,
            chases: PieceSet(self.chases as u32),
            swaps: PieceSet((self.swaps_check & !CHECK_BIT) as u32),
        }
    }
}

const NONE: u32 = u32::MAX;

/// How a driver values a position of a supporting table (for its side to move).
type OutcomeOf<'a> = dyn Fn(&Position) -> Result<Outcome, DriverError> + Sync + 'a;

impl PositionGraph {
    fn new(material: Material, outcome: &OutcomeOf<'_>) -> Result<PositionGraph, DriverError> {
        let indexer = Indexer::new(material)?;
        let size = indexer.size();
        let mut graph = PositionGraph {
            retro: Graph::new(Indexer::new(material)?),
            nodes: Vec::new(),
            ids: vec![NONE; 2 * size as usize],
            exits: Vec::new(),
            quiet: Vec::new(),
            numbering: Numbering::new(material)?,
            labelled: RefCell::new(HashMap::new()),
            indexer,
        };
        for side in Color::ALL {
            let found = (0..size)
                .into_par_iter()
                .map(|index| examine(&graph.indexer, side, index, outcome))
                .collect::<Result<Vec<_>, DriverError>>()?;
            for (index, found) in found.into_iter().enumerate() {
                let Some((exit, quiet)) = found else { continue };
                graph.ids[side.index() * size as usize + index] = graph.nodes.len() as u32;
                graph.nodes.push((side, index as u64));
                graph.exits.push(exit);
                graph.quiet.push(quiet);
            }
        }
        Ok(graph)
    }

    fn vertex(&self, side: Color, index: u64) -> Option<Vertex> {
        let id = self.ids[side.index() * self.indexer.size() as usize + index as usize];
        (id != NONE).then_some(id as Vertex)
    }

    fn position(&self, u: Vertex) -> Position {
        let (side, index) = self.nodes[u];
        self.indexer
            .decode(index, side)
            .expect("a vertex is a legal entry")
    }

    /// The moves from `u` with their labels.
    fn label(&self, u: Vertex) -> Vec<Edge> {
        let pos = self.position(u);
        let mut out = Vec::new();
        for mv in pos.legal_moves() {
            if pos.is_capture(mv) {
                continue;
            }
            let (to, child, mirrored) = self.child(&pos, mv);
            let entry = if mirrored { child.mirror() } else { child };
            let labels = self.numbering.labels(&pos, mv);
            out.push(Edge {
                to,
                check: labels.check,
                chases: labels.chases,
                swaps: self.numbering.swaps(&pos, mv, &entry, mirrored),
            });
        }
        out
    }

    /// The vertex a quiet move of `pos` reaches, the position after it, and whether that
    /// vertex's entry decodes to its mirror image.
    fn child(&self, pos: &Position, mv: Move) -> (Vertex, Position, bool) {
        let mut child = pos.clone();
        child.play(mv);
        let (index, mirrored) = self
            .indexer
            .encode_mirrored(&child)
            .expect("a quiet move keeps the material");
        let to = self
            .vertex(child.turn(), index)
            .expect("a legal move reaches a legal position");
        (to, child, mirrored)
    }
}

/// The best exit and quiet-move count of an entry, `None` if it is not a legal position.
fn examine(
    indexer: &Indexer,
    side: Color,
    index: u64,
    outcome: &OutcomeOf<'_>,
) -> Result<Option<(Option<Outcome>, u8)>, DriverError> {
    match indexer.decode(index, side) {
        Some(mut pos) if !pos.opponent_in_check() => exits_and_quiet(&mut pos, outcome).map(Some),
        _ => Ok(None),
    }
}

/// The best exit (a capture into a supporting table) and the number of legal quiet moves.
fn exits_and_quiet(
    pos: &mut Position,
    outcome: &OutcomeOf<'_>,
) -> Result<(Option<Outcome>, u8), DriverError> {
    let mut best: Option<Outcome> = None;
    let mut quiet = 0;
    for mv in pos.legal_moves() {
        if !pos.is_capture(mv) {
            quiet += 1;
            continue;
        }
        let undo = pos.play(mv);
        let theirs = outcome(pos);
        pos.undo(mv, undo);
        let mine = theirs?.flip();
        best = Some(best.map_or(mine, |b| b.max(mine)));
    }
    Ok((best, quiet))
}

impl GameGraph for PositionGraph {
    fn vertex_count(&self) -> usize {
        self.nodes.len()
    }

    fn side(&self, u: Vertex) -> Color {
        self.nodes[u].0
    }

    fn exit(&self, u: Vertex) -> Option<Outcome> {
        self.exits[u]
    }

    fn successors(&self, u: Vertex, out: &mut Vec<Edge>) {
        let mut cache = self.labelled.borrow_mut();
        let moves = cache
            .entry(u)
            .or_insert_with(|| self.label(u).iter().map(Packed::pack).collect());
        out.extend(moves.iter().map(|p| p.unpack()));
    }

    fn move_count(&self, u: Vertex) -> usize {
        self.quiet[u] as usize
    }

    fn predecessors(&self, v: Vertex, out: &mut Vec<Vertex>) {
        let (_, index) = self.nodes[v];
        let child = self.position(v);
        let emitted = self.retro.predecessors(&child, index, |node| {
            if let Some(u) = self.vertex(node.side, node.index) {
                out.push(u);
            }
        });
        emitted.expect("a retro move keeps the material");
    }

    fn pieces(&self, owner: Color) -> PieceSet {
        self.numbering.pieces(owner)
    }

    fn twin(&self, p: PieceId) -> Option<PieceId> {
        self.numbering.twin(p)
    }

    fn predecessor_swaps(&self, v: Vertex, out: &mut Vec<(Vertex, PieceSet)>) {
        let mut parents = Vec::new();
        self.predecessors(v, &mut parents);
        parents.sort_unstable();
        parents.dedup();
        for u in parents {
            let pos = self.position(u);
            for mv in pos.legal_moves() {
                if pos.is_capture(mv) {
                    continue;
                }
                let (to, child, mirrored) = self.child(&pos, mv);
                if to == v {
                    let entry = if mirrored { child.mirror() } else { child };
                    out.push((u, self.numbering.swaps(&pos, mv, &entry, mirrored)));
                }
            }
        }
    }
}
