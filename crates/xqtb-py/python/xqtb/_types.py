"""The values and exceptions of the xqtb module, in plain Python so that they can be typed,
compared, unpacked and caught as Python code expects. The native part (``xqtb._native``)
builds and raises these very classes."""

import enum
from typing import NamedTuple


class Outcome(enum.IntEnum):
    """Win, draw or loss for the side to move: 1, 0 and -1, so that a higher outcome is better
    and ``-outcome`` is the other side's. ``str()`` gives ``"win"``, ``"draw"`` or ``"loss"``, as
    the ``result`` fields of ``xqtb probe --json``."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    def __str__(self) -> str:
        return self.name.lower()


class Value(NamedTuple):
    """A position's distance-to-conversion value for its side to move (``xqtb probe``'s
    ``result``, ``order`` and ``distance``). ``order`` is 0 for the plain retrograde result and
    higher for results the Asian rules on perpetual check and chase decide; ``distance`` counts
    plies to the next capture or mate (odd a win, even a loss). Both are None for a draw."""

    result: Outcome
    order: int | None
    distance: int | None


class Dtm(NamedTuple):
    """A position's distance-to-mate value for its side to move: plies to mate, through
    captures, when ``level`` is ``()``; otherwise to the ruling on perpetual check or chase that
    the level names (``(0, 2)``: the second phase of the table reached after one capture).
    ``distance`` and ``level`` are None for a draw."""

    result: Outcome
    distance: int | None
    level: tuple[int, ...] | None


class MoveValue(NamedTuple):
    """A legal move (UCCI, e.g. ``"h2e2"``) and the value of the position it leads to, for the
    side to move there (the opponent), as each of ``xqtb probe --json``'s ``moves``. ``best``
    marks the best moves by Fang's Definition 9: the shortest win of the lowest order, else a
    draw, else the longest loss of the highest order."""

    move: str
    capture: bool
    best: bool
    result: Outcome
    order: int | None
    distance: int | None


class DtmMove(NamedTuple):
    """A legal move and the distance-to-mate value of the position it leads to, for the side to
    move there; ``best`` marks the best moves under distance to mate (the lowest level, then the
    shortest mate; for a loser the highest level, then the longest)."""

    move: str
    capture: bool
    best: bool
    result: Outcome
    distance: int | None
    level: tuple[int, ...] | None


class Error(Exception):
    """The base of every error the module raises."""


class PositionError(Error, ValueError):
    """The FEN (or classic string) cannot be parsed, or the position is illegal (the side not to move is in check,
    or a piece stands where it never can)."""


class MissingTableError(Error):
    """The directory has no table for a material the probe needs. ``material`` is the table's
    canonical material (``"KRKN"``), ``metric`` ``"dtc"`` or ``"dtm"`` and ``path`` the file it
    would be in. A search treats it as "no information"."""

    def __init__(self, message: str, material: str, metric: str, path: str) -> None:
        super().__init__(message)
        self.material = material
        self.metric = metric
        self.path = path


class TableError(Error):
    """A table is damaged (a checksum fails), of another rule set than the directory's, built
    from other supporting tables than those present, or contradicts another table."""


class FileError(Error, OSError):
    """The directory or a table file could not be read. ``errno`` is the system's error number
    where it gave one (``errno.ENOENT`` for a missing directory), else None."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno
