"""A two-worker ``distributed.LocalCluster`` for the tests that kill workers.

Bringing a SIGKILLed worker back is the nanny's job (distributed's, not
pranker's). On a loaded machine a restart can fail ("Failed to restart worker
after its process exited"), and the nanny then stays with one worker for good.
The tests are about what pranker does when workers die, so a cluster left with
fewer than two workers is replaced by a fresh one; the replacement is printed
(run pytest with ``-s`` to see it) and counted in ``rebuilt``.
"""

from __future__ import annotations

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
        self._options = dict(
            allowed_failures=allowed_failures,
            silence_logs=silence_logs,
            memory_limit=memory_limit,
        )
        self._warm = warm
        self.rebuilt = 0
        self.client, self.cluster = self._start()

    def _start(self):
        import dask
        from distributed import Client, LocalCluster

        o = self._options
        with dask.config.set({"distributed.scheduler.allowed-failures": o["allowed_failures"]}):
            cluster = LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                memory_limit=o["memory_limit"],
                dashboard_address=None,
                silence_logs=o["silence_logs"],
            )
            client = Client(cluster)
        if self._warm is not None:
            self._warm(client)
        return client, cluster

    def two_workers(self):
        """The client, once two workers run (a killed one is back, or a new cluster)."""
        from distributed.exceptions import WorkerStartTimeoutError

        try:
            self.client.wait_for_workers(2, timeout=45)
        except (WorkerStartTimeoutError, TimeoutError) as exc:
            print(f"the nanny did not bring a killed worker back ({exc}); new cluster")
            self.close()
            self.client, self.cluster = self._start()
            self.rebuilt += 1
            self.client.wait_for_workers(2, timeout=60)
        return self.client

    def close(self) -> None:
        for closing in (self.client, self.cluster):
            try:
                closing.close(timeout=30)
            except Exception as exc:  # a stuck nanny must not hang the run
                print(f"closing {type(closing).__name__}: {exc!r}")
