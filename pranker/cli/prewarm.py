"""Compile kernels in a second process while the command does other work (a first run only).

numba compiles each kernel on first use and caches it on disk; in a fresh
environment ``pranker demo`` spends most of its time compiling, one kernel
after another, on one core. Compiling is single-threaded (numba holds one
compiler lock per process), so the command starts one helper process that
compiles the kernels of the tilted p-values into numba's cache while the
command itself fits its models and computes its curves and random rankings.
When the command reaches its p-values, it waits for the helper (bounded) and
then loads those kernels from the cache.

The helper changes no number: it computes throwaway p-values, and a kernel
loaded from the cache is the one a compile would give. It starts only when
those kernels are not in the cache yet, at least two CPUs are available and
numba's compiler is on (``NUMBA_DISABLE_JIT`` unset); it is stopped when the
command ends, however it ends. If it fails, or is slow, the command compiles
what it needs itself, as it would without it.

    python -m pranker.cli.prewarm tilt     # what the helper runs
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

__all__ = ["JOBS", "Prewarm", "start"]

# the demo's held-out half: N = 899 digits, about 90 of one class (the p-values take the tilt
# there); the same kernels and signatures answer every size on that route
_TILT_N, _TILT_P = 899, 90
WAIT_SECONDS = 120.0  # the longest the command waits for the helper before compiling itself


def _tilt() -> None:
    """The tilted p-values' kernels: the recursion, the draws and the split draws."""
    from pranker import null_distribution

    null = null_distribution(_TILT_N, _TILT_P, method="tilt")
    null.pvalue(0.35)  # about 10^-17: deep enough for the split draws


def _tilt_kernels() -> list:
    from pranker._numba import tilt

    return list(tilt.SERIAL_ROUTE)


JOBS = {"tilt": (_tilt, _tilt_kernels)}


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _worth_starting(job: str) -> bool:
    """Whether a helper would save time: some kernel of the job is not in the cache, two
    CPUs, and numba's compiler is on."""
    from pranker._numba import is_cold

    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0") or _cpus() < 2:
        return False
    return any(is_cold(k) for k in JOBS[job][1]())


class Prewarm:
    """A helper process compiling one job's kernels; ``wait()`` until it is done."""

    def __init__(self, job: str, proc: subprocess.Popen | None):
        self.job = job
        self.proc = proc
        self.done = proc is None  # the helper said its job's kernels are in the cache
        self._ended = threading.Event()
        if proc is None:
            self._ended.set()
            return
        self._reader = threading.Thread(target=self._read, daemon=True, name="pranker-prewarm")
        self._reader.start()

    def _read(self) -> None:
        # the helper prints the job's name once its kernels are cached; the end of its
        # output (it exited, or failed) ends the wait as well
        try:
            for line in self.proc.stdout:  # type: ignore[union-attr]
                if line.strip() == self.job:
                    self.done = True
                    break
        except (OSError, ValueError):
            pass
        finally:
            self._ended.set()

    def wait(self, timeout: float = WAIT_SECONDS) -> bool:
        """Wait for the helper, at most ``timeout`` seconds; True if there is nothing left to
        wait for: it said its job is done, or there is no helper."""
        self._ended.wait(timeout)
        return self.done

    def close(self) -> None:
        """Stop the helper if it still runs (numba writes each cache file whole)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5.0)  # the helper's end ends its output
        if self.proc.stdout is not None and not self._reader.is_alive():
            self.proc.stdout.close()

    def __enter__(self) -> Prewarm:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start(job: str = "tilt") -> Prewarm:
    """Start the helper for ``job`` when it would save time (else a Prewarm that does nothing)."""
    if not _worth_starting(job):
        return Prewarm(job, None)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pranker.cli.prewarm", job],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return Prewarm(job, None)
    return Prewarm(job, proc)


def _main(argv: list) -> int:
    for job in argv:
        JOBS[job][0]()
        print(job, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
