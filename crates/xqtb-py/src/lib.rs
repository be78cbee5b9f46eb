//! The native part of the Python module `xqtb` (`xqtb._native`): the class `Tablebase` over
//! xqtb-core's probing API. The values it returns and the exceptions it raises are the plain
//! Python classes of `xqtb._types` (typed, comparable, unpackable), looked up once each.
//!
//! Every probe reads table files, so it runs with the interpreter released (`Python::detach`):
//! threads probing one `Tablebase` (which is `Send + Sync`) run at once.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};
use std::cmp::Reverse;
use std::path::PathBuf;
use xqtb_core::table::TableError as CoreTableError;
use xqtb_core::tablebase::{Dtm, DtmMove, MoveValue};
use xqtb_core::{parse_position, Outcome, Position, ProbeError, Value};

/// The pure-Python module that defines the classes below.
const TYPES: &str = "xqtb._types";

pyo3::import_exception!(xqtb._types, PositionError);
pyo3::import_exception!(xqtb._types, MissingTableError);
pyo3::import_exception!(xqtb._types, TableError);
pyo3::import_exception!(xqtb._types, FileError);

/// The I/O error beneath a probe's failure, if that is what it is: the directory or a table
/// file could not be read (as opposed to read and found wrong).
fn io_error(e: &ProbeError) -> Option<&std::io::Error> {
    match e {
        ProbeError::Directory { source, .. } => Some(source),
        ProbeError::Table(t) => table_io_error(t),
        ProbeError::Unusable { source, .. } => table_io_error(source),
        _ => None,
    }
}

fn table_io_error(e: &CoreTableError) -> Option<&std::io::Error> {
    match e {
        CoreTableError::Io { source, .. } => Some(source),
        _ => None,
    }
}

/// The Python exception for a probe's failure, with the library's message.
fn probe_error(e: ProbeError) -> PyErr {
    let message = e.to_string();
    if let Some(io) = io_error(&e) {
        return FileError::new_err((message, io.raw_os_error()));
    }
    match e {
        ProbeError::Missing {
            material,
            metric,
            path,
            ..
        } => MissingTableError::new_err((
            message,
            material.to_string(),
            metric.name(),
            path.display().to_string(),
        )),
        ProbeError::Illegal | ProbeError::Index(_) | ProbeError::Game(_) => {
            PositionError::new_err(message)
        }
        _ => TableError::new_err(message),
    }
}

/// The position a FEN (only its board and side fields are read) or the classic query system's
/// string describes: `xqtb probe` reads both.
fn position(fen: &str) -> PyResult<Position> {
    parse_position(fen).map_err(|e| PositionError::new_err(format!("bad position {fen:?}: {e}")))
}

/// An instance of the class `name` of `xqtb._types` (imported into `class` on first use).
fn make<'py>(
    py: Python<'py>,
    class: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    class.import(py, TYPES, name)?.call1(args)
}

fn outcome(py: Python<'_>, o: Outcome) -> PyResult<Bound<'_, PyAny>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let code: i8 = match o {
        Outcome::Win => 1,
        Outcome::Draw => 0,
        Outcome::Loss => -1,
    };
    make(py, &CLASS, "Outcome", (code,))
}

fn value(py: Python<'_>, v: Value) -> PyResult<Bound<'_, PyAny>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let args = (outcome(py, v.outcome())?, v.order(), v.distance());
    make(py, &CLASS, "Value", args)
}

/// A DTM value's level as a tuple of phases (`()` for a mate); None for a draw.
fn level<'py>(py: Python<'py>, d: &Dtm) -> PyResult<Option<Bound<'py, PyTuple>>> {
    d.level().map(|l| PyTuple::new(py, l.phases())).transpose()
}

fn dtm<'py>(py: Python<'py>, d: &Dtm) -> PyResult<Bound<'py, PyAny>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let args = (outcome(py, d.outcome())?, d.distance(), level(py, d)?);
    make(py, &CLASS, "Dtm", args)
}

fn move_value<'py>(py: Python<'py>, m: &MoveValue, best: bool) -> PyResult<Bound<'py, PyAny>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let v = m.value;
    let result = outcome(py, v.outcome())?;
    let args = (
        m.mv.to_string(),
        m.capture,
        best,
        result,
        v.order(),
        v.distance(),
    );
    make(py, &CLASS, "MoveValue", args)
}

fn dtm_move<'py>(py: Python<'py>, m: &DtmMove, best: bool) -> PyResult<Bound<'py, PyAny>> {
    static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let v = &m.value;
    let result = outcome(py, v.outcome())?;
    let args = (
        m.mv.to_string(),
        m.capture,
        best,
        result,
        v.distance(),
        level(py, v)?,
    );
    make(py, &CLASS, "DtmMove", args)
}

/// A directory of xqtb tables, probed by FEN (or the classic query system's string, such as
/// `4K44B49994n495k399`). Tables open on first use (each with a 16 MiB
/// block cache) and stay open. One instance may be shared by any number of threads: probes
/// release the interpreter while they read the tables.
#[pyclass(module = "xqtb", frozen)]
struct Tablebase {
    tb: xqtb_core::Tablebase,
}

impl Tablebase {
    /// Runs `probe` on the FEN's position with the interpreter released: other Python threads
    /// run meanwhile, and other probes of this tablebase too.
    fn probe<T: Send>(
        &self,
        py: Python<'_>,
        fen: &str,
        probe: impl FnOnce(&xqtb_core::Tablebase, &Position) -> Result<T, ProbeError> + Send,
    ) -> PyResult<T> {
        let pos = position(fen)?;
        py.detach(|| probe(&self.tb, &pos)).map_err(probe_error)
    }
}

#[pymethods]
impl Tablebase {
    /// Opens the tables in the directory `path`, each table with a block cache of `cache_bytes`
    /// (default 16 MiB). Raises FileError if it is missing or not a directory.
    #[new]
    #[pyo3(signature = (path, cache_bytes = xqtb_core::tablebase::DEFAULT_CACHE_BYTES))]
    fn new(path: PathBuf, cache_bytes: usize) -> PyResult<Tablebase> {
        let tb = xqtb_core::Tablebase::open_with_cache(&path, cache_bytes).map_err(probe_error)?;
        Ok(Tablebase { tb })
    }

    /// The directory of the tables.
    #[getter]
    fn path(&self) -> PathBuf {
        self.tb.dir().to_owned()
    }

    fn __repr__(&self) -> String {
        format!("xqtb.Tablebase({:?})", self.tb.dir())
    }

    /// The pieces (kings included) of the largest table in the directory now, of either
    /// metric (0 if none): positions with more need not be probed.
    fn largest(&self, py: Python<'_>) -> PyResult<u32> {
        py.detach(|| self.tb.largest()).map_err(probe_error)
    }

    /// Notices tables rebuilt, replaced or removed on disk since they were opened: if any
    /// changed, every table is closed and opened anew on its next probe. Returns whether
    /// anything changed.
    fn refresh(&self, py: Python<'_>) -> bool {
        py.detach(|| self.tb.refresh())
    }

    /// Win, draw or loss for the side to move (an Outcome), from the table's win/draw/loss
    /// blocks alone: the cheapest probe, for a search.
    fn probe_wdl<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Bound<'py, PyAny>> {
        let o = self.probe(py, fen, |tb, pos| tb.probe_wdl(pos))?;
        outcome(py, o)
    }

    /// The position's Value for its side to move: result, order and plies to the next
    /// conversion (capture or mate); order and distance are None for a draw.
    fn probe_dtc<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Bound<'py, PyAny>> {
        let v = self.probe(py, fen, |tb, pos| tb.probe_dtc(pos))?;
        value(py, v)
    }

    /// Every legal move as a MoveValue (the value of the position it leads to, for the side to
    /// move there), best first as `xqtb probe` lists them: by Fang's Definition 9 for the
    /// mover, ties in the order `xqtb probe` gives them. Empty without a legal move.
    fn moves<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut moves = self.probe(py, fen, |tb, pos| tb.probe_moves(pos))?;
        moves.sort_by_key(|m| (Reverse(m.for_mover().rank()), m.mv));
        let best = moves.first().map(|m| m.for_mover().rank());
        moves
            .iter()
            .map(|m| move_value(py, m, Some(m.for_mover().rank()) == best))
            .collect()
    }

    /// The best moves (UCCI) by Fang's Definition 9, as `xqtb probe` marks them with `*`: the
    /// shortest win of the lowest order, else a draw, else the longest loss of the highest
    /// order. In the order the moves are generated; empty without a legal move.
    fn best_moves(&self, py: Python<'_>, fen: &str) -> PyResult<Vec<String>> {
        let best = self.probe(py, fen, |tb, pos| tb.best_moves(pos))?;
        Ok(best.iter().map(|m| m.mv.to_string()).collect())
    }

    /// The principal line (UCCI) to the next conversion: both sides play a best move (the same
    /// one every time where several are) until a capture, a position without a legal move, or,
    /// at an order above 0, the point where the loser has only perpetual check or chase left.
    /// As many moves as the position's distance; none for a draw.
    fn principal_line(&self, py: Python<'_>, fen: &str) -> PyResult<Vec<String>> {
        let line = self.probe(py, fen, |tb, pos| tb.principal_line(pos))?;
        Ok(line.moves.iter().map(|m| m.mv.to_string()).collect())
    }

    /// The position's Dtm (distance to mate) for its side to move, from the directory's DTM
    /// tables (`xqtb build --metric dtm` or `both`); MissingTableError without them.
    fn probe_dtm<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Bound<'py, PyAny>> {
        let d = self.probe(py, fen, |tb, pos| tb.probe_dtm(pos))?;
        dtm(py, &d)
    }

    /// Every legal move as a DtmMove (the distance to mate after it, for the side to move
    /// there), best first under distance to mate (ties as in `moves`).
    fn dtm_moves<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut moves = self.probe(py, fen, |tb, pos| tb.probe_dtm_moves(pos))?;
        moves.sort_by(|a, b| {
            let worth = b.for_mover().cmp_for_mover(&a.for_mover());
            worth.then(a.mv.cmp(&b.mv))
        });
        let best = moves.first().map(DtmMove::for_mover);
        moves
            .iter()
            .map(|m| dtm_move(py, m, Some(m.for_mover()) == best))
            .collect()
    }

    /// The best moves (UCCI) under distance to mate, in the order the moves are generated.
    fn best_dtm_moves(&self, py: Python<'_>, fen: &str) -> PyResult<Vec<String>> {
        let best = self.probe(py, fen, |tb, pos| tb.best_dtm_moves(pos))?;
        Ok(best.iter().map(|m| m.mv.to_string()).collect())
    }

    /// The line (UCCI) to mate, through captures, both sides playing a best move under
    /// distance to mate; at a level other than `()` it stops where the loser has only
    /// perpetual check or chase left. As many moves as the distance; none for a draw.
    fn dtm_line(&self, py: Python<'_>, fen: &str) -> PyResult<Vec<String>> {
        let line = self.probe(py, fen, |tb, pos| tb.dtm_line(pos))?;
        Ok(line.moves.iter().map(|m| m.mv.to_string()).collect())
    }
}

/// The native part of `xqtb`; import `xqtb`, which re-exports it with its types.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tablebase>()
}
