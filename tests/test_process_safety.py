"""pranker in a user's own pools and threads: fork after use, process pools, threads.

The fork tests run in a fresh ``python -c`` process with a timeout, so that a
child that dies (or a pool that waits for it forever) fails the test instead of
stalling the suite. The numbers are checked against scikit-learn's
``average_precision_score`` (an independent oracle) and against the parent's.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import pranker
from pranker._numba import _threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Fork after use needs numba's TBB layer, a dependency where a tbb wheel exists (Linux
# x86-64: there the test must pass); elsewhere it runs only if TBB is installed.
_TBB_WHEEL = sys.platform.startswith("linux") and platform.machine() == "x86_64"
fork_only = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods()
    or not (_TBB_WHEEL or _threading.load_tbb()),
    reason="no fork start method, or no TBB on a platform without a tbb wheel",
)

# Four rankings of 2e5 items; the parent calls pranker() first (its parallel kernels run),
# then a fork-started pool maps the same work over its children.
_FORK_CHILD = """
    import json, sys
    import multiprocessing as mp
    import numpy as np
    import pranker

    def data(i):
        rng = np.random.default_rng(i)
        y = rng.random(200_000) < 0.001
        return rng.standard_normal(200_000) + 0.5 * y, y

    def job(i):
        s, y = data(i)
        r = pranker.pranker(s, y)
        return float(r.statistic), float(r.pvalue)

    if __name__ == "__main__":
        parent = [job(i) for i in range(4)]
        how = sys.argv[1]
        ctx = mp.get_context("fork")
        if how == "pool":
            with ctx.Pool(2) as pool:
                children = pool.map(job, range(4))
        else:
            from concurrent.futures import ProcessPoolExecutor
            with ProcessPoolExecutor(2, mp_context=ctx) as ex:
                children = list(ex.map(job, range(4)))
        print(json.dumps({"parent": parent, "children": children}))
"""


def _run_fork(how: str, script: str = _FORK_CHILD) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_THREADING_LAYER", None)  # the default, as a user gets it
    # its own session, so that on a timeout the pool's children go with it
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), how],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"a fork-started {how} after pranker() did not answer in 120 s:\n{err}")
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _sklearn_ap(i: int) -> float:
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(i)
    y = rng.random(200_000) < 0.001
    s = rng.standard_normal(200_000) + 0.5 * y
    return float(average_precision_score(y, s))


@fork_only
@pytest.mark.parametrize("how", ["pool", "executor"])
def test_fork_started_pool_after_use(how):
    """``multiprocessing.Pool(2)`` and ``ProcessPoolExecutor(2)``, fork-started after a
    pranker() call: every child answers, with the parent's numbers."""
    pytest.importorskip("sklearn")
    got = _run_fork(how)
    assert got["children"] == got["parent"]
    for i, (ap, p) in enumerate(got["parent"]):
        assert ap == pytest.approx(_sklearn_ap(i), rel=1e-12)
        assert 0.0 <= p <= 1.0


def test_four_threads_get_the_serial_answers():
    """Four threads calling pranker() at once (parallel kernels inside each) give the
    answers of the same calls one after the other, and scikit-learn's AP."""
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(7)
    cases = []
    for _ in range(8):
        y = rng.random(200_000) < 0.001
        cases.append((rng.standard_normal(200_000) + 0.5 * y, y))
    serial = [pranker.pranker(s, y) for s, y in cases]
    for (s, y), r in zip(cases, serial, strict=True):
        assert r.statistic == pytest.approx(average_precision_score(y, s), rel=1e-12)

    got: dict = {}
    errors: list = []
    start = threading.Barrier(4)

    def work(k):
        try:
            start.wait()
            for rep in range(3):
                for i in range(k, len(cases), 4):
                    r = pranker.pranker(*cases[i])
                    got[(i, rep)] = (r.statistic, r.pvalue)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert len(got) == 3 * len(cases)
    for (i, _), (ap, p) in got.items():
        assert ap == serial[i].statistic and p == serial[i].pvalue


def test_numba_chooses_tbb_where_the_wheel_is_installed():
    """With the tbb wheel installed (a dependency on Linux x86-64), numba's default choice,
    in a fresh process with no NUMBA_THREADING_LAYER, is TBB; a user's choice still wins."""
    if not _threading.load_tbb():
        if _TBB_WHEEL:
            pytest.fail("the tbb wheel is a dependency here but its library was not found")
        pytest.skip("no TBB on this platform")
    code = (
        "import numpy as np, numba, pranker\n"
        "y = np.arange(20_000) % 97 == 0\n"
        "pranker.pranker(np.arange(20_000.0), y)\n"
        "print(numba.threading_layer())"
    )
    for layer, expected in ((None, "tbb"), ("workqueue", "workqueue")):
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("NUMBA_THREADING_LAYER", None)
        if layer is not None:
            env["NUMBA_THREADING_LAYER"] = layer
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split()[-1] == expected


# The saddlepoint for millions of positives runs its scaled-down problems on a thread pool of
# its own, joined before it returns: a fork-started pool after it works, with the same answer.
_FORK_SCALED = """
    import json
    import multiprocessing as mp
    from pranker import significance_from_ap

    def job(z):
        n, p = 1_000_000, 500_000
        r = significance_from_ap(0.5 + z * 5e-4, n, p)  # z null sd above the mean
        return r.method, r.log10_pvalue, list(r.log10_pvalue_interval)

    if __name__ == "__main__":
        parent = [job(z) for z in (3.0, 10.0)]
        with mp.get_context("fork").Pool(2) as pool:
            children = pool.map(job, (3.0, 10.0))
        print(json.dumps({"parent": parent, "children": children}))
"""


@fork_only
def test_fork_started_pool_after_the_scaled_saddlepoint():
    got = _run_fork("pool", _FORK_SCALED)
    assert got["children"] == got["parent"]  # the same computation in parent and child
    assert all(m == "saddlepoint" for m, _, _ in got["parent"])
