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
