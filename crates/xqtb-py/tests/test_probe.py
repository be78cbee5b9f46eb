"""Every answer of the module against `xqtb probe --json` on the sample of conftest.py: values,
moves, best moves, distances to mate, and the principal lines played out."""

import pytest

import xqtb
from conftest import probe_cli
from xqtb import Outcome

OUTCOME = {"win": Outcome.WIN, "draw": Outcome.DRAW, "loss": Outcome.LOSS}


def value(j):
    """(result, order, distance) of a JSON answer or move."""
    return (OUTCOME[j["result"]], j["order"], j["distance"])


def dtm(j):
    """(result, distance, level) of a JSON `dtm` object."""
    level = None if j["level"] is None else tuple(j["level"])
    return (OUTCOME[j["result"]], j["distance"], level)


def assert_same(pairs):
    """Fails naming the first positions where the module's answer (got) is not the command
    line's (want); `pairs` is (fen, got, want)."""
    wrong = [(fen, got, want) for fen, got, want in pairs if got != want]
    shown = "\n".join(f"{fen}\n  module: {got}\n  xqtb:   {want}" for fen, got, want in wrong[:5])
    assert not wrong, f"{len(wrong)} of {len(pairs)} differ:\n{shown}"


def test_the_sample_has_every_kind_of_answer(answers, legal):
    # Otherwise the comparisons below would prove little.
    assert len(legal) >= 1000, len(legal)
    for family in (("KNKA", "KAKN"), ("KRKN", "KNKR")):
        results = {a["result"] for a in legal if a["material"] in family}
        assert results == {"win", "draw", "loss"}, (family, results)
    for result in ("win", "loss"):
        assert sum(1 for a in legal if a["order"] and a["result"] == result) >= 5, result
    assert any(a["dtm"]["level"] for a in legal if a["result"] != "draw")
    assert any(m["capture"] for a in legal for m in a["moves"])
    assert any(not a["moves"] for a in legal), "no position without a legal move"
    assert any("error" in a for a in answers), "no illegal placement"


def test_outcomes_match(tb, legal):
    # As the JSON's strings, and of the enum's type (a plain int would compare equal too).
    def got(fen):
        o = tb.probe_wdl(fen)
        return type(o), str(o)

    assert_same([(a["fen"], got(a["fen"]), (Outcome, a["result"])) for a in legal])


def test_answers_are_of_the_module_types(tb, legal):
    fen = next(a["fen"] for a in legal if a["result"] == "win" and a["moves"])
    kinds = {
        "probe_dtc": xqtb.Value,
        "probe_dtm": xqtb.Dtm,
        "moves": xqtb.MoveValue,
        "dtm_moves": xqtb.DtmMove,
        "best_moves": str,
        "principal_line": str,
        "best_dtm_moves": str,
        "dtm_line": str,
    }
    for method, kind in kinds.items():
        answer = getattr(tb, method)(fen)
        for item in answer if isinstance(answer, list) else [answer]:
            assert type(item) is kind, method
            assert kind is str or type(item.result) is Outcome, method


def test_values_match(tb, legal):
    assert_same([(a["fen"], tb.probe_dtc(a["fen"]), value(a)) for a in legal])


def test_the_classic_string_is_read_as_the_fen(tb, legal):
    # `xqtb probe --json` gives each position's classic string (`qstring`) beside its FEN.
    assert_same([(a["qstring"], tb.probe_dtc(a["qstring"]), value(a)) for a in legal])


def test_a_small_cache_answers_the_same(tables, legal):
    small = xqtb.Tablebase(tables, cache_bytes=1)  # one block a table
    assert_same([(a["fen"], small.probe_dtc(a["fen"]), value(a)) for a in legal])


def test_moves_match_best_first(tb, legal):
    def want(a):
        return [(m["move"], m["capture"], m["best"], *value(m)) for m in a["moves"]]

    assert_same([(a["fen"], [tuple(m) for m in tb.moves(a["fen"])], want(a)) for a in legal])


def test_best_moves_match(tb, legal):
    def want(a):
        return sorted(m["move"] for m in a["moves"] if m["best"])

    assert_same([(a["fen"], sorted(tb.best_moves(a["fen"])), want(a)) for a in legal])


def test_distances_to_mate_match(tb, legal):
    assert_same([(a["fen"], tb.probe_dtm(a["fen"]), dtm(a["dtm"])) for a in legal])


def test_moves_under_distance_to_mate_match(tb, legal):
    # The command line lists moves in DTC order, each with its DTM: compared move by move.
    def got(fen):
        moves = tb.dtm_moves(fen)
        assert [m.best for m in moves] == sorted((m.best for m in moves), reverse=True), fen
        return {m.move: (m.capture, m.best, m.result, m.distance, m.level) for m in moves}

    def want(a):
        return {m["move"]: (m["capture"], m["dtm"]["best"], *dtm(m["dtm"])) for m in a["moves"]}

    assert_same([(a["fen"], got(a["fen"]), want(a)) for a in legal])


def test_best_moves_under_distance_to_mate_match(tb, legal):
    def want(a):
        return sorted(m["move"] for m in a["moves"] if m["dtm"]["best"])

    assert_same([(a["fen"], sorted(tb.best_dtm_moves(a["fen"])), want(a)) for a in legal])


def played_out(tables, known, lines):
    """The command line's answers along each line (start answer, UCCI moves): the start's, then
    the position's after each move. Fails if a move is not legal there. `known` (FEN to answer)
    saves asking again; the lines are followed together, one batch a ply."""
    paths = [[start] for start, _ in lines]
    for ply in range(max((len(moves) for _, moves in lines), default=0)):
        steps = [(path, moves[ply]) for path, (_, moves) in zip(paths, lines) if ply < len(moves)]
        fens = [entry(path[-1], move)["fen"] for path, move in steps]
        missing = sorted(set(fens) - known.keys())
        known.update(zip(missing, probe_cli(tables, missing)))
        for (path, _), fen in zip(steps, fens):
            path.append(known[fen])
    return paths


def entry(answer, move):
    """The JSON move `move` of an answer."""
    found = [m for m in answer["moves"] if m["move"] == move]
    assert found, f"{move} is not a legal move of {answer['fen']}"
    return found[0]


def dtc_line_faults(line, path):
    """What is wrong with a principal line, given the answers along it: each move must be a best
    move, a quiet one one ply nearer the conversion; it stops at a capture, at a position
    without a legal move, or (order above 0) where the distance runs out. A draw has none."""
    if path[0]["result"] == "draw":
        return ["a drawn position has a line"] if line else []
    faults = []
    for ply, move in enumerate(line):
        m = entry(path[ply], move)
        if not m["best"]:
            faults.append(f"ply {ply}: {move} is not a best move")
        if m["capture"] and ply != len(line) - 1:
            faults.append(f"ply {ply}: the line goes on after the capture {move}")
        if not m["capture"] and path[ply + 1]["distance"] != path[ply]["distance"] - 1:
            faults.append(f"ply {ply}: {move} does not bring the conversion one ply nearer")
    end = path[-1]
    converted = bool(line) and entry(path[-2], line[-1])["capture"]
    ruled = bool(end["order"]) and end["distance"] == 0
    if not (converted or ruled or not end["moves"]):
        faults.append("the line stops before the conversion")
    return faults


def dtm_line_faults(line, path):
    """What is wrong with a line to mate: each move must be a best move under distance to mate,
    one ply nearer, through captures; it stops at a position without a legal move or where a
    ruling's distance runs out. A draw has none."""
    if path[0]["result"] == "draw":
        return ["a drawn position has a line"] if line else []
    faults = []
    for ply, move in enumerate(line):
        if not entry(path[ply], move)["dtm"]["best"]:
            faults.append(f"ply {ply}: {move} is not a best move")
        if path[ply + 1]["dtm"]["distance"] != path[ply]["dtm"]["distance"] - 1:
            faults.append(f"ply {ply}: {move} does not bring mate one ply nearer")
    end = path[-1]["dtm"]
    ruled = bool(end["level"]) and end["distance"] == 0
    if not (ruled or not path[-1]["moves"]):
        faults.append("the line stops before mate")
    return faults


@pytest.mark.parametrize("metric", ["dtc", "dtm"])
def test_lines_are_played_out_with_best_moves(tb, tables, legal, metric):
    # Every third position, and each of order above 0 (they end at a ruling, not a capture).
    starts = [a for k, a in enumerate(legal) if k % 3 == 0 or a["order"]]
    line_of, faults_of = {
        "dtc": (tb.principal_line, dtc_line_faults),
        "dtm": (tb.dtm_line, dtm_line_faults),
    }[metric]
    lines = [(a, line_of(a["fen"])) for a in starts]
    assert any(len(moves) > 10 for _, moves in lines)
    known = {a["fen"]: a for a in legal}
    paths = played_out(tables, known, lines)
    wrong = [(a["fen"], moves, faults_of(moves, path)) for (a, moves), path in zip(lines, paths)]
    wrong = [w for w in wrong if w[2]]
    assert not wrong, f"{len(wrong)} of {len(lines)} lines are wrong, e.g. {wrong[:3]}"


def test_largest_counts_the_pieces_of_the_largest_table(tb, tmp_path):
    # KNKA and KRKN (and their smaller supporting tables): four pieces.
    assert tb.largest() == 4
    assert xqtb.Tablebase(tmp_path).largest() == 0
