"""The module's exceptions, each for an input the command line refuses too (with the same
message where both come from the probing library)."""

import errno
import shutil

import pytest

import xqtb
from conftest import probe_cli, run_xqtb

# Every probing method, as a call on a FEN.
METHODS = [
    "probe_wdl",
    "probe_dtc",
    "moves",
    "best_moves",
    "principal_line",
    "probe_dtm",
    "dtm_moves",
    "best_dtm_moves",
    "dtm_line",
]

BAD_FENS = [
    "",
    "4k4/9/9 w",  # three ranks
    "4k4/9/9/9/9/9/9/9/9/4K3 w",  # a rank of eight points
    "4k4/9/9/9/9/9/9/9/9/4K4 x",  # no such side
    "4k4/9/9/9/9/9/9/9/9/4K3Q w",  # no such piece
    "4k4/9/9/9/9/9/9/9/9/3KK4 w",  # two kings
    "4k4/9/9/9/9/9/9/9/9/4K4 w",  # the kings face each other: Black, not to move, is in check
    "4k4/9/9/9/9/9/9/4A4/9/3K5 w",  # an advisor off its points
]


@pytest.mark.parametrize("fen", BAD_FENS)
def test_a_bad_position_is_a_position_error(tb, tables, fen):
    [cli] = probe_cli(tables, [fen])
    assert "error" in cli, cli
    for method in METHODS:
        with pytest.raises(xqtb.PositionError):
            getattr(tb, method)(fen)
    assert issubclass(xqtb.PositionError, ValueError)


def test_the_illegal_placements_of_the_sample_are_position_errors(tb, answers):
    illegal = [a["fen"] for a in answers if "error" in a]
    assert illegal
    for fen in illegal:
        with pytest.raises(xqtb.PositionError):
            tb.probe_wdl(fen)


@pytest.mark.parametrize("fen", ["3k5/9/9/9/9/9/9/9/9/4K1C2 w", "3k5/9/9/9/9/9/9/9/9/4K1c2 b"])
def test_a_missing_table_names_its_file(tb, tables, fen):
    # KCK was not built; a black cannon against a lone king is in the same table.
    [cli] = probe_cli(tables, [fen])
    for method in METHODS:
        with pytest.raises(xqtb.MissingTableError) as caught:
            getattr(tb, method)(fen)
        e = caught.value
        assert e.material == "KCK" and isinstance(e, xqtb.Error)
        if method.startswith(("probe_dtm", "dtm", "best_dtm")):
            assert (e.metric, e.path) == ("dtm", str(tables / "KCK.xqdtm")), method
        else:
            assert (e.metric, e.path) == ("dtc", str(tables / "KCK.xqtb")), method
            assert str(e) == cli["error"]


def test_a_capture_into_a_missing_table_is_a_missing_table_error(legal, tables, tmp_path):
    # KNKA's table alone: its captures lead into KNK and KAK, which are not there.
    shutil.copy(tables / "KNKA.xqtb", tmp_path)
    tb = xqtb.Tablebase(tmp_path)
    captures = [a for a in legal if any(m["capture"] for m in a["moves"])]
    fens = [a["fen"] for a in captures if a["material"] == "KNKA"]
    assert fens
    for fen, cli in zip(fens, probe_cli(tmp_path, fens)):
        with pytest.raises(xqtb.MissingTableError) as caught:
            tb.moves(fen)
        assert str(caught.value) == cli["error"]


def test_without_dtm_tables_only_the_dtm_probes_fail(tmp_path):
    run_xqtb("build", "KRK", "--dir", str(tmp_path), "--quiet")
    fen = "3k5/9/9/9/9/9/9/9/9/4K1R2 w"
    [cli] = probe_cli(tmp_path, [fen])
    assert "dtm" not in cli
    tb = xqtb.Tablebase(tmp_path)
    assert tb.probe_dtc(fen) == (xqtb.Outcome[cli["result"].upper()], cli["order"], cli["distance"])
    for method in ("probe_dtm", "dtm_moves", "best_dtm_moves", "dtm_line"):
        with pytest.raises(xqtb.MissingTableError) as caught:
            getattr(tb, method)(fen)
        assert (caught.value.metric, caught.value.path) == ("dtm", str(tmp_path / "KRK.xqdtm"))


def test_a_missing_directory_is_a_file_error(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(xqtb.FileError) as caught:
        xqtb.Tablebase(missing)
    e = caught.value
    assert isinstance(e, OSError) and isinstance(e, xqtb.Error)
    assert e.errno == errno.ENOENT and str(missing) in str(e)


def test_a_file_is_not_a_directory(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(xqtb.FileError) as caught:
        xqtb.Tablebase(plain)
    assert caught.value.errno == errno.ENOTDIR and str(plain) in str(caught.value)


def flip_middle_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(data)


def truncate(path):
    path.write_bytes(path.read_bytes()[:-100])


@pytest.mark.parametrize("damage", [flip_middle_byte, truncate])
def test_a_damaged_table_is_a_table_error(tables, legal, tmp_path, damage):
    damaged = tmp_path / "tables"
    shutil.copytree(tables, damaged)
    damage(damaged / "KNKA.xqtb")
    tb = xqtb.Tablebase(damaged)
    fens = [a["fen"] for a in legal if a["material"] in ("KNKA", "KAKN")]
    failed = 0
    for fen, cli in zip(fens, probe_cli(damaged, fens)):
        if "error" in cli:
            failed += 1
            with pytest.raises(xqtb.TableError) as caught:
                read_as_the_cli_does(tb, fen)
            assert str(caught.value) == cli["error"]
        else:
            assert read_as_the_cli_does(tb, fen)[0].distance == cli["distance"]
    assert failed, "the damage went unnoticed"


def read_as_the_cli_does(tb, fen):
    """What `xqtb probe` reads of a position: its value and every move's."""
    return tb.probe_dtc(fen), tb.moves(fen)


def test_tables_of_two_rule_sets_are_a_table_error(tables, legal, tmp_path):
    # KNKN built without the Asian rules, beside tables built under them: neither rule set's
    # tables are probed.
    mixed, other = tmp_path / "mixed", tmp_path / "other"
    shutil.copytree(tables, mixed)
    run_xqtb("build", "KNKN", "--dir", str(other), "--rules", "none", "--quiet")
    shutil.copy(other / "KNKN.xqtb", mixed)
    tb = xqtb.Tablebase(mixed)
    fen = next(a["fen"] for a in legal if a["material"] == "KRKN")
    [cli] = probe_cli(mixed, [fen])
    with pytest.raises(xqtb.TableError) as caught:
        tb.probe_dtc(fen)
    assert str(caught.value) == cli["error"]
