"""What the tests compare the module with: tables built by the xqtb command line, and its
answers to `xqtb probe --json -` for a sample of positions. Expected values come only from the
command line, never from the module.

XQTB_BIN names the xqtb binary (the Rust harness tests/probing/python.rs sets it to the one of
its build); the default is target/release/xqtb.
"""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

import xqtb

ROOT = Path(__file__).resolve().parents[3]
XQTB = os.environ.get("XQTB_BIN", str(ROOT / "target" / "release" / "xqtb"))

# Horse against advisor (captures into KNK and KAK) and rook against horse (orders 0 and 1 under
# the Asian rules), both metrics.
MATERIALS = ["KNKA", "KRKN"]

# Where each piece may stand, Red's side (Black's is mirrored rank for rank): kings in the
# palace, advisors on its five points, horses and rooks anywhere.
PALACE = [(f, r) for f in range(3, 6) for r in range(3)]
ADVISOR = [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)]
ANYWHERE = [(f, r) for f in range(9) for r in range(10)]
DOMAIN = {"K": PALACE, "A": ADVISOR, "N": ANYWHERE, "R": ANYWHERE}


def run_xqtb(*args, stdin=None):
    """`xqtb ARGS`'s standard output; fails the test if it fails."""
    done = subprocess.run([XQTB, *args], input=stdin, capture_output=True, text=True)
    assert done.returncode == 0, f"xqtb {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def probe_cli(directory, fens):
    """`xqtb probe --dir DIR --json -`'s answer to each FEN: one JSON object each, in order
    (`{"fen", "error"}` for a position it cannot probe)."""
    lines = "".join(f + "\n" for f in fens)
    out = run_xqtb("probe", "--dir", str(directory), "--json", "-", stdin=lines)
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(fens), out
    return answers


def fen_of(pieces, red_to_move):
    """The FEN of `pieces` ((letter, file, rank); upper case Red) and the side to move."""
    board = [["1"] * 9 for _ in range(10)]
    for letter, f, r in pieces:
        board[r][f] = letter
    ranks = []
    for r in range(9, -1, -1):
        text = "".join(board[r])
        for n in range(9, 1, -1):
            text = text.replace("1" * n, str(n))
        ranks.append(text)
    return "/".join(ranks) + (" w" if red_to_move else " b")


def twin(material):
    """The material with the colours swapped: KAKN for KNKA."""
    split = material.index("K", 1)
    return material[split:] + material[:split]


def random_fens(material, count, rng):
    """`count` placements of `material` (e.g. KRKN: Red king and rook, Black king and horse),
    some illegal (the side not to move in check): the command line tells which."""
    split = material.index("K", 1)
    red, black = material[:split], material[split:]
    fens = []
    while len(fens) < count:
        taken, pieces = set(), []
        for letters, is_red in ((red, True), (black, False)):
            for letter in letters:
                squares = [(f, r if is_red else 9 - r) for f, r in DOMAIN[letter]]
                f, r = rng.choice([s for s in squares if s not in taken])
                taken.add((f, r))
                pieces.append((letter if is_red else letter.lower(), f, r))
        fens.append(fen_of(pieces, rng.random() < 0.5))
    return fens


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    """A directory with the DTC and DTM tables of MATERIALS and those they capture into."""
    directory = tmp_path_factory.mktemp("tables")
    for material in MATERIALS:
        run_xqtb("build", material, "--dir", str(directory), "--metric", "both", "--quiet")
    return directory


def order_above_zero(tables, wanted=150):
    """KRKN positions of order above 0, up to about `wanted`: the longest win of each order and
    side that `xqtb stats` names, and those reached from them, breadth first, by moves into
    positions of order above 0."""
    stats = json.loads(run_xqtb("stats", "--dir", str(tables), "KRKN", "--json"))
    wins = [w for side in stats["sides"].values() for w in side["longest_wins"]]
    fens = [w["fen"] for w in wins if w["order"] > 0]
    found, seen = [], set(fens)
    while fens and len(found) < wanted:
        found += fens
        moves = [m for a in probe_cli(tables, fens) for m in a["moves"]]
        fens = sorted({m["fen"] for m in moves if m["order"]} - seen)
        seen.update(fens)
    return found


@pytest.fixture(scope="session")
def answers(tables):
    """The command line's answers for the sample: random placements of each material and of its
    colour-flipped twin, KRKN's positions of order above 0, and every position one move from
    these (captures reach the smaller tables). Each answer is the JSON of `xqtb probe`, or
    `{"fen", "error"}` for an illegal placement."""
    rng = random.Random(37)
    roots = order_above_zero(tables)
    for material in MATERIALS:
        roots += random_fens(material, 120, rng) + random_fens(twin(material), 120, rng)
    first = probe_cli(tables, roots)
    children = sorted({m["fen"] for a in first if "error" not in a for m in a["moves"]})
    return first + probe_cli(tables, children)


@pytest.fixture(scope="session")
def legal(answers):
    """The answers for legal positions."""
    return [a for a in answers if "error" not in a]


@pytest.fixture(scope="session")
def tb(tables):
    """The module's view of `tables`."""
    return xqtb.Tablebase(tables)
