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


# A progress bar is shown when the work is predicted to take longer than this many seconds.
BAR_SECONDS = 2.0


def progress_bar(total: int | None, desc: str, enabled: bool | None = False, **display):
    """A tqdm bar when ``enabled`` (``None`` = only if stderr is a terminal and tqdm is installed), else a no-op.

    Usable as a context manager; call ``.update(n)``. ``display`` are tqdm's
    options for how the bar reads (``unit="B"``, ``unit_scale=True``,
    ``bar_format=...``), set from its first frame.
    """
    asked = enabled is True
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError as exc:
        if not asked:  # the default on a terminal: no bar rather than an error
            return _NoBar()
        raise ImportError(
            "progress=True needs tqdm: pip install 'pranker[progress]' (or pip install tqdm)."
        ) from exc
    return tqdm(total=total, desc=desc, file=sys.stderr, leave=False, **display)
