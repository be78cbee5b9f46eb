"""Probing xqtb's Xiangqi endgame tablebases from Python.

    import xqtb
    tb = xqtb.Tablebase("tables")
    tb.probe_dtc("4k4/4a4/9/9/9/4N4/9/5K3/9/9 w")
    # Value(result=<Outcome.WIN: 1>, order=0, distance=21)

The values are those of ``xqtb probe --json``: see ``Tablebase``, ``Value``, ``MoveValue``,
``Dtm`` and ``DtmMove``. Every error is an ``xqtb.Error``.
"""

from ._native import Tablebase
from ._types import (
    Dtm,
    DtmMove,
    Error,
    FileError,
    MissingTableError,
    MoveValue,
    Outcome,
    PositionError,
    TableError,
    Value,
)

__all__ = [
    "Dtm",
    "DtmMove",
    "Error",
    "FileError",
    "MissingTableError",
    "MoveValue",
    "Outcome",
    "PositionError",
    "TableError",
    "Tablebase",
    "Value",
]
