"""The first call in a fresh environment: what compiles, and the notice on a terminal."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pranker._numba import _compile, tiegroups

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def fresh_notice():
    _compile._reset_for_tests()
    yield
    _compile._reset_for_tests()


def test_announce_once_on_a_terminal(fresh_notice):
    tty = FakeTTY()
    assert _compile.announce(3.4, tty)
    assert not _compile.announce(3.4, tty)
    text = tty.getvalue()
    assert text.count("compiling numerical kernels on first use") == 1
    assert "(about 3 s)" in text and "later runs reuse the cache" in text


def test_announce_nothing_off_a_terminal(fresh_notice):
    pipe = io.StringIO()
    assert not _compile.announce(10.0, pipe)
    assert pipe.getvalue() == ""
    # not spent: a terminal later in the process still gets it
    assert _compile.announce(10.0, FakeTTY())


def test_a_compiled_kernel_is_not_cold():
    a = np.array([1, 3], dtype=np.int64)
    tiegroups.ap_from_ranks(a, 2)
    assert not _compile.is_cold(tiegroups.ap_from_ranks)


def _run(code: str, cache_dir: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )


# Two kernels compiled one after the other, stderr a fake terminal: the notice
# once, at the first compile that lasts (here) more than 10 ms.
_CHILD = """
    import io, sys
    class FakeTTY(io.StringIO):
        def isatty(self):
            return True
    tty = FakeTTY()
    sys.stderr = tty if {tty} else io.StringIO()
    import numpy as np
    from pranker._numba import _compile, tiegroups
    _compile.NOTICE_AFTER = 0.01
    cold = _compile.is_cold(tiegroups.ap_from_ranks)
    tiegroups.ap_from_ranks(np.array([1, 3], dtype=np.int64), 2)
    tiegroups.sorted_search_both(np.arange(5.0), np.array([2.0]), np.zeros(1, np.int64),
                                 np.zeros(1, np.int64))
    out = sys.stderr.getvalue()
    sys.stderr = sys.__stderr__
    print(cold, out.count("compiling numerical kernels on first use"))
"""


def test_notice_printed_once_on_a_cold_cache(tmp_path):
    out = _run(_CHILD.format(tty=True), str(tmp_path)).stdout.split()
    assert out == ["True", "1"]
    # warm cache: nothing to compile, no notice
    out = _run(_CHILD.format(tty=True), str(tmp_path)).stdout.split()
    assert out == ["False", "0"]


def test_no_notice_when_stderr_is_not_a_terminal(tmp_path):
    out = _run(_CHILD.format(tty=False), str(tmp_path)).stdout.split()
    assert out == ["True", "0"]


def test_sorted_search_both_is_searchsorted():
    """The galloping walk (its searches inlined) against numpy.searchsorted: ties in the
    searched array, distinct ascending values (the distinct scores of its caller)."""
    rng = np.random.default_rng(3)
    for n, m in [(0, 3), (1, 1), (50, 7), (1000, 200), (1000, 1000)]:
        a = np.sort(rng.integers(0, 40, n).astype(np.float64))
        vals = np.unique(rng.integers(-5, 45, m).astype(np.float64))
        lo = np.zeros(vals.size, np.int64)
        hi = np.zeros(vals.size, np.int64)
        tiegroups.sorted_search_both(a, vals, lo, hi)
        assert np.array_equal(lo, np.searchsorted(a, vals, "left"))
        assert np.array_equal(hi, np.searchsorted(a, vals, "right"))


# The kernels the first AP compiles, recorded from numba's compile events in a fresh cache.
_COMPILED = """
    import json
    import numba.core.event as ev
    import numpy as np
    rec = ev.RecordingListener()
    ev.register("numba:compile", rec)
    import pranker
    rng = np.random.default_rng(0)
    y = rng.random({n}) < {q}
    pranker.auprc_ap(rng.standard_normal({n}) + y, y)
    names = []
    for _, e in rec.buffer:
        f = e.data["dispatcher"].py_func
        if e.is_start and f.__module__.startswith("pranker."):
            names.append(f.__module__ + "." + f.__name__)
    print(json.dumps(names))
"""


def test_first_ap_compiles_few_kernels(tmp_path):
    """A small first AP compiles only the kernels of its own path, each once: no search
    kernel (numpy counts the tie groups), no parallel kernel, no rank counting; a larger one
    (positives too many for rank counting) adds the galloping walk, with its searches inlined
    (no galloping search of its own)."""
    import json

    names = json.loads(
        _run(_COMPILED.format(n=5000, q=0.1), str(tmp_path)).stdout.strip().splitlines()[-1]
    )
    assert len(names) == len(set(names)), names  # one signature each
    assert not [n for n in names if "_gallop" in n or "search" in n], names
    assert not [n for n in names if "parallel" in n], names
    assert "pranker._numba.tiegroups.ap_from_groups" in names
    assert len(names) <= 6, names
    more = json.loads(
        _run(_COMPILED.format(n=40_000, q=0.3), str(tmp_path)).stdout.strip().splitlines()[-1]
    )
    assert more == ["pranker._numba.tiegroups.sorted_search_both"], more  # the walk did run


def test_distinct_runs_against_a_plain_loop():
    """Runs of equal values (==, so -0.0 joins 0.0 and each NaN stands alone)."""
    from pranker._numba import rankcount

    def runs_by_loop(x):
        vals, runs = [], []
        for v in x:
            if runs and vals[-1] == v:
                runs[-1] += 1
            else:
                vals.append(v)
                runs.append(1)
        return vals, runs

    rng = np.random.default_rng(5)
    cases = [
        np.array([]),
        np.array([1.0]),
        np.array([-1.0, -0.0, 0.0, 0.0, np.inf, np.nan, np.nan]),
    ]
    cases += [np.sort(rng.integers(0, k, n).astype(np.float64)) for k, n in [(3, 50), (100, 60)]]
    for x in cases:
        vals, runs = rankcount.distinct_runs(x)
        want_vals, want_runs = runs_by_loop(x.tolist())
        assert runs.dtype == np.int64 and runs.tolist() == want_runs
        np.testing.assert_array_equal(vals, np.array(want_vals, dtype=np.float64))
        assert np.signbit(vals).tolist() == np.signbit(np.array(want_vals)).tolist()


def test_generator_is_splitmix64():
    """The draws' generator (inlined into the kernels that draw) against splitmix64 written
    out in Python integers: the seed of draw i and the uniforms that follow it."""
    from pranker._numba import sampling

    mask = (1 << 64) - 1
    golden, mix1, mix2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB

    def next_(state):
        state = (state + golden) & mask
        z = state
        z = ((z ^ (z >> 30)) * mix1) & mask
        z = ((z ^ (z >> 27)) * mix2) & mask
        return state, z ^ (z >> 31)

    for seed, i in [(0, 0), (12345, 7), (2**64 - 1, 2**40)]:
        state = next_((seed ^ (i * mix2)) & mask)[1]
        assert int(sampling._draw_seed(np.uint64(seed), np.int64(i))) & mask == state
        s = np.uint64(state)
        for _ in range(3):
            state, z = next_(state)
            s, u = sampling._uniform01(s)
            assert int(s) & mask == state and u == ((z >> 11) + 0.5) / 2**53
            s = np.uint64(int(s) & mask)  # numba hands a uint64 back as a signed int


def test_min_auprc_scalar_path_against_fractions():
    """The smallest AP (all positives last) computed for one (N, P) in Python, against
    (1/P) sum_k k / (N - P + k) in exact fractions, and equal to the array path."""
    from fractions import Fraction

    from pranker.null import min_auprc

    for n, p in [(1, 1), (2, 1), (10, 5), (899, 90), (5000, 500), (7, 7)]:
        want = sum(Fraction(k, n - p + k) for k in range(1, p + 1)) / p
        got = min_auprc(n, p)
        assert abs(Fraction(got) - want) <= want * Fraction(1, 10**14), (n, p)
        assert got == float(min_auprc(np.array([n]), np.array([p]))[0])
