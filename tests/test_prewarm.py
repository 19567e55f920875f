"""The demo's helper process: it compiles what the demo's p-values need, and never holds the
command up (a failed, slow or finished helper; stopped when the command ends)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from pranker.cli import prewarm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env(cache_dir: str) -> dict:
    return dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=ROOT)


# The demo's own models and p-values in a child process, recording what numba compiles.
_DEMO_PVALUES = """
    import json
    import numba.core.event as ev
    rec = ev.RecordingListener()
    ev.register("numba:compile", rec)
    from pranker.cli import demo, prewarm
    from pranker.cli.main import build_parser
    args = build_parser().parse_args(["demo"])
    worth = prewarm._worth_starting("tilt")
    scores, y, shape = demo._models(args.digit, args.seed)
    d = demo._score(args.digit, scores, y, shape, False)
    names = sorted({
        e.data["dispatcher"].py_func.__module__ + "." + e.data["dispatcher"].py_func.__name__
        for _, e in rec.buffer if e.is_start
    })
    print(json.dumps({"worth": worth, "compiled": names,
                      "methods": [r.method for r in d.results]}))
"""


@pytest.mark.slow
def test_the_helper_compiles_what_the_demo_p_values_need(tmp_path):
    """After the helper ran in a fresh cache, the demo's p-values compile none of the
    kernels of its job (they load from the cache), and a second helper is not started."""
    pytest.importorskip("sklearn")
    cache = str(tmp_path)
    helper = subprocess.run(
        [sys.executable, "-m", "pranker.cli.prewarm", "tilt"],
        env=_env(cache),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert helper.returncode == 0, helper.stderr
    assert helper.stdout.split() == ["tilt"]
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_DEMO_PVALUES)],
        env=_env(cache),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == 0, child.stderr
    got = json.loads(child.stdout.strip().splitlines()[-1])
    assert got["methods"] == ["tilt", "tilt"]  # the route the helper's job compiles
    job = {f"{k.py_func.__module__}.{k.py_func.__name__}" for k in prewarm._tilt_kernels()}
    assert not job & set(got["compiled"]), got["compiled"]
    assert got["worth"] is False


def _sleeper(seconds: float, say: str = "") -> subprocess.Popen:
    code = f"import time, sys; print({say!r}, flush=True) if {bool(say)} else None; time.sleep({seconds})"
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )


def test_a_slow_helper_is_waited_for_at_most_the_timeout_and_stopped_at_close():
    with prewarm.Prewarm("tilt", _sleeper(60)) as helper:
        t0 = time.perf_counter()
        assert helper.wait(timeout=0.3) is False
        assert 0.25 < time.perf_counter() - t0 < 5.0
        proc = helper.proc
    assert proc.poll() is not None  # stopped by close(), not left running


def test_a_failed_helper_ends_the_wait_at_once():
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.exit(3)"],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    with prewarm.Prewarm("tilt", proc) as helper:
        t0 = time.perf_counter()
        assert helper.wait(timeout=60) is False
        assert time.perf_counter() - t0 < 30


def test_a_helper_that_said_done_is_not_waited_for_again():
    with prewarm.Prewarm("tilt", _sleeper(60, say="tilt")) as helper:
        assert helper.wait(timeout=60) is True  # its line came; it may still be exiting
        assert helper.wait(timeout=0.0) is True
        proc = helper.proc
    assert proc.poll() is not None


def test_no_helper_is_a_wait_of_nothing():
    helper = prewarm.Prewarm("tilt", None)
    assert helper.wait(timeout=0.0) is True
    helper.close()
