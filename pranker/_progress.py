"""Optional progress bars (tqdm), off by default in library calls."""

from __future__ import annotations

import sys


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: int | None, desc: str, enabled: bool | None = False):
    """A tqdm bar when ``enabled`` (``None`` = only if stderr is a terminal), else a no-op.

    Usable as a context manager; call ``.update(n)``.
    """
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:
        raise ImportError(
            "progress=True needs tqdm: pip install 'pranker[progress]' (or pip install tqdm)."
        ) from exc
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False)
