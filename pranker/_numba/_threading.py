"""Let numba find TBB, its fork-safe and thread-safe threading layer.

numba runs the parallel kernels (``parallel=True``) on one threading layer per
process, chosen at the first parallel launch: TBB if it loads, else OpenMP,
else its own ``workqueue``. GNU OpenMP (Linux) cannot survive ``fork()``: a
child forked after a parallel kernel ran (``multiprocessing.Pool`` and
``ProcessPoolExecutor`` fork by default on Linux up to Python 3.13) is
terminated at its first parallel kernel, and the pool waits for it forever.
``workqueue`` survives a fork but aborts the process when two threads launch
parallel kernels at once. TBB does both.

The ``tbb`` wheel (a dependency where a wheel exists: Linux x86-64) puts
``libtbb`` in ``<prefix>/lib``, where the dynamic loader does not look from a
virtual environment or a Python built with ``RUNPATH``, so numba would not find
it and would fall back to OpenMP. :func:`select`, run when
:mod:`pranker._numba` is imported (before any kernel module, so before any
launch), loads the library once by its full path (:func:`load_tbb`, from the
wheel's file list); numba's own version check and choice then find it.

Nothing is overridden: numba's order and a user's ``NUMBA_THREADING_LAYER``
(or ``numba.config.THREADING_LAYER``) decide as before, with TBB now
available to them. Without TBB the layer is numba's default (OpenMP: threads
are safe, a fork-started pool after use is not). ``numba.threading_layer()``,
after a parallel call, names the layer in use.
"""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

__all__ = ["load_tbb", "select"]

_TBB_NAMES = {"linux": "libtbb.so.12", "darwin": "libtbb.12.dylib", "win32": "tbb12.dll"}

_state: dict = {"selected": False, "tbb": None}


def _tbb_candidates(name: str) -> list[Path]:
    """Where the ``tbb`` wheel put ``name``: its own file list first, then ``<prefix>/lib``."""
    found: list[Path] = []
    try:
        from importlib import metadata

        for f in metadata.files("tbb") or ():
            if f.name == name:
                found.append(Path(str(f.locate())))
    except Exception:  # no tbb distribution, or unreadable metadata: fall through
        pass
    for prefix in dict.fromkeys([sys.prefix, sys.base_prefix]):
        found += [Path(prefix) / "lib" / name, Path(prefix) / "Library" / "bin" / name]
    return found


def load_tbb() -> str | None:
    """Load the TBB library by its full path (once); its path, or None if there is none."""
    if _state["tbb"] is not None:
        return _state["tbb"] or None
    name = _TBB_NAMES.get("linux" if sys.platform.startswith("linux") else sys.platform)
    _state["tbb"] = ""
    for path in _tbb_candidates(name) if name else ():
        if path.is_file():
            try:
                ctypes.CDLL(str(path), mode=getattr(ctypes, "RTLD_GLOBAL", 0))
            except OSError:
                continue
            _state["tbb"] = str(path)
            break
    return _state["tbb"] or None


def select() -> None:
    """Load TBB before numba chooses its threading layer (once; a no-op if it has chosen)."""
    if _state["selected"]:
        return
    _state["selected"] = True
    try:
        from numba.np.ufunc import parallel

        if parallel._is_initialized:
            return
    except (ImportError, AttributeError):
        pass
    load_tbb()
