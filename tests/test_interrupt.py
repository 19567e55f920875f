"""Long tail p-values stop cleanly on Ctrl-C (SIGINT), from the library and from the command line.

The tail draws run in chunks of a few thousand and the search for the tilt in
passes of about a second, so Python sees the signal between two kernel calls.
Each test starts a child process on a p-value that takes well over the
waiting time (N = 1e7, P = 1000 at p ~ 1e-100, about 16 s on an idle core,
and N = 1e6, P = 1e4 from the command line), sends SIGINT, and checks that it stops within a few
seconds; the command line must leave no output file behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics of POSIX")

_CHILD = """
import sys
import warnings
import pranker
pranker.significance_from_ap(0.5, 10**4, 20)  # load the kernels before the clock starts
pranker.significance_from_ap(0.5, 10**6, 20)
with warnings.catch_warnings():  # the same route (another seed: no shared draws), its kernels
    warnings.simplefilter("ignore")  # compiled (a fresh cache compiles them for ~20 s)
    pranker.significance_from_ap(0.0254747, 10**7, 1000, progress=False, seed=1)
print("started", flush=True)
r = pranker.significance_from_ap(0.0254747, 10**7, 1000, progress=False, max_work=10**13, rtol=0.003)
print("finished", r.log10_pvalue, flush=True)
"""


def _wait_for(proc, word: str, timeout: float) -> None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        line = proc.stdout.readline()
        if word in line:
            return
        if not line and proc.poll() is not None:
            break
    pytest.fail(f"the child never printed {word!r}: {proc.stderr.read()[-2000:]}")


def _interrupt(proc, delay: float) -> float:
    """Send SIGINT after ``delay`` seconds; seconds until the child exits."""
    time.sleep(delay)
    assert proc.poll() is None, "the child finished before the interrupt: the case is too short"
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the child did not stop within 30 s of SIGINT")
    return time.monotonic() - t0


@pytest.mark.slow
def test_library_call_stops_on_sigint():
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(proc, "started", 300)
    waited = _interrupt(proc, 3.0)
    err = proc.stderr.read()
    assert proc.returncode != 0
    assert "KeyboardInterrupt" in err
    assert "finished" not in proc.stdout.read()
    assert waited < 5.0, f"took {waited:.1f} s to stop"


@pytest.mark.slow
def test_cli_stops_on_sigint_and_writes_no_file(tmp_path):
    rng = np.random.default_rng(5)
    n, p = 1_000_000, 10_000  # minutes of tail draws at P = 1e4 with a large budget
    y = np.zeros(n, dtype=bool)
    y[rng.choice(n, p, replace=False)] = True
    scores = rng.standard_normal(n) + 1.0 * y
    data = tmp_path / "d.npz"
    np.savez(data, score=scores, label=y)
    out = tmp_path / "r.json"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        # a budget for minutes of draws (the default one answers within about a second)
        [sys.executable, "-m", "pranker.cli.main", "score", str(data), "-o", str(out), "-q"]
        + ["--method", "tilt", "--max-work", "10000000000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    # no "started" line from the command line: give it time to read, sort and enter the draws
    waited = _interrupt(proc, 8.0)
    assert proc.returncode == 130, proc.stderr.read()
    assert "interrupted" in proc.stderr.read()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["d.npz"]
    assert waited < 5.0, f"took {waited:.1f} s to stop"
