"""A two-worker ``distributed.LocalCluster`` for the tests that kill workers.

Bringing a SIGKILLed worker back is the nanny's job (distributed's, not
pranker's). On a loaded machine a restart can fail ("Failed to restart worker
after its process exited", seen in CI and in about one run in four of the
Dask tests here), and the nanny then stays down for good: with every worker
killed, a computation waits forever. The tests are about what pranker does
when workers die, so :meth:`RebuildableCluster.two_workers` waits a while for
the nannies and then starts replacement workers itself (``python -m
distributed.cli.dask_worker`` against the same scheduler, so pending work
carries on), printing what it did (run pytest with ``-s`` to see it) and
counting it in ``replaced``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any


class RebuildableCluster:
    def __init__(
        self,
        *,
        allowed_failures: int,
        silence_logs: int,
        memory_limit: str = "auto",
        warm: Callable[[Any], object] | None = None,
    ) -> None:
        import dask
        from distributed import Client, LocalCluster

        self.memory_limit = memory_limit
        self.replaced = 0
        self._extra: list[subprocess.Popen] = []
        with dask.config.set({"distributed.scheduler.allowed-failures": allowed_failures}):
            self.cluster = LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                memory_limit=memory_limit,
                dashboard_address=None,
                silence_logs=silence_logs,
            )
            self.client = Client(self.cluster)
        if warm is not None:
            warm(self.client)

    def running(self) -> int:
        info = self.client.scheduler_info(n_workers=-1)
        return sum(w.get("status") == "running" for w in info["workers"].values())

    def two_workers(self, patience: float = 30.0):
        """The client, once two workers run: the nannies' restarts, or replacements."""
        from distributed.exceptions import WorkerStartTimeoutError

        try:
            self.client.wait_for_workers(2, timeout=patience)
            return self.client
        except (WorkerStartTimeoutError, TimeoutError) as exc:
            missing = max(0, 2 - self.running())
            print(f"a nanny did not bring a killed worker back ({exc}); {missing} started")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        for _ in range(missing):
            cmd = [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                self.cluster.scheduler_address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--memory-limit",
                str(self.memory_limit),
            ]
            self._extra.append(
                subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
            self.replaced += 1
        self.client.wait_for_workers(2, timeout=120)
        return self.client

    def close(self) -> None:
        for closing in (self.client, self.cluster):
            try:
                closing.close(timeout=30)
            except Exception as exc:  # a stuck nanny must not hang the run
                print(f"closing {type(closing).__name__}: {exc!r}")
        for proc in self._extra:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
