"""One Tablebase shared by threads: every answer as the command line's."""

import threading
from concurrent.futures import ThreadPoolExecutor

import xqtb
from test_probe import assert_same, value

THREADS = 8


def test_threads_share_one_tablebase(tables, legal):
    # A fresh instance, so that the threads also open its tables at once.
    tb = xqtb.Tablebase(tables)
    start = threading.Barrier(THREADS)

    def share(k):
        start.wait()
        return [(a, tb.probe_dtc(a["fen"]), tb.moves(a["fen"])) for a in legal[k::THREADS]]

    with ThreadPoolExecutor(THREADS) as pool:
        done = [r for part in pool.map(share, range(THREADS)) for r in part]
    assert len(done) == len(legal)
    assert_same([(a["fen"], got, value(a)) for a, got, _ in done])

    def want(a):
        return [(m["move"], *value(m)) for m in a["moves"]]

    assert_same([(a["fen"], [(m.move, *m[3:]) for m in got], want(a)) for a, _, got in done])


def test_threads_raise_their_own_errors(tb):
    fens = ["3k5/9/9/9/9/9/9/9/9/4K1C2 w", "4k4/9/9 w"] * THREADS

    def fail(fen):
        try:
            tb.probe_dtc(fen)
        except xqtb.Error as e:
            return type(e)

    with ThreadPoolExecutor(THREADS) as pool:
        raised = list(pool.map(fail, fens))
    assert raised == [xqtb.MissingTableError, xqtb.PositionError] * THREADS
