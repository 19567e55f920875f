"""Say once, on a terminal, that numerical kernels are being compiled on first use.

The kernels of :mod:`pranker._numba` are compiled by numba the first time
they run and cached on disk (``cache=True``): the first call in a fresh
environment spends seconds compiling, later processes load the cache. So that
this pause is not mistaken for a hang, a listener on numba's compile events
(installed when the first kernel module is imported) watches the compiles of
pranker's kernels: when one has gone on for about a second and stderr is a
terminal, it prints, once per process,

    compiling numerical kernels on first use (about N s); later runs reuse the cache

A warm cache never triggers it (loading a cached kernel is not a compile
event), nor does output to a file or a pipe. The estimate N counts the
kernels of the modules being compiled that have no cache entry yet
(:func:`is_cold`: an index file in numba's cache directory for the kernel,
or a signature compiled in this process), at :data:`SECONDS_PER_KERNEL`.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from numba.core import event
from numba.core.registry import CPUDispatcher

__all__ = ["MESSAGE", "announce", "is_cold", "cold_kernels", "watch"]

MESSAGE = "compiling numerical kernels on first use (about {seconds} s); later runs reuse the cache"
SECONDS_PER_KERNEL = 0.2  # a kernel with its share of numba's library code, measured 0.1-0.5 s
NOTICE_AFTER = 1.0  # seconds of compiling before the notice
_PREFIX = "pranker._numba."

_lock = threading.Lock()
_state: dict[str, Any] = {"announced": False, "depth": 0, "timer": None, "modules": set()}


def _is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def announce(seconds: float, stream=None) -> bool:
    """Print the notice once per process, on a terminal; True if it was printed now."""
    stream = sys.stderr if stream is None else stream
    with _lock:
        if _state["announced"] or not _is_tty(stream):
            return False
        _state["announced"] = True
    print(MESSAGE.format(seconds=max(1, round(seconds))), file=stream, flush=True)
    return True


def is_cold(dispatcher) -> bool:
    """Whether running ``dispatcher`` starts with a compile: nothing compiled in this
    process and no index file in numba's cache directory (one ``stat``)."""
    if dispatcher.signatures:
        return False
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is None or not os.path.exists(index)


def _kernels(module_names):
    for name in sorted(module_names):
        module = sys.modules.get(name)
        for value in vars(module).values() if module is not None else ():
            if (
                isinstance(value, CPUDispatcher)
                and value.py_func.__module__ == name
                and value.targetoptions.get("inline", "never") != "always"
            ):
                yield value


def cold_kernels(module_names) -> list:
    """The kernels of these modules (not inlined helpers) that would compile on first use."""
    return [k for k in _kernels(module_names) if is_cold(k)]


def _fire() -> None:
    with _lock:
        modules = set(_state["modules"])
        busy = _state["depth"] > 0
    if busy:
        announce(SECONDS_PER_KERNEL * len(cold_kernels(modules)))


def _on_compile(event) -> None:
    dispatcher = event.data.get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
    with _lock:
        if _state["announced"]:
            return
        if event.is_start:
            if module.startswith(_PREFIX):
                _state["modules"].add(module)
            _state["depth"] += 1
            if _state["depth"] == 1 and module.startswith(_PREFIX) and _is_tty(sys.stderr):
                timer = threading.Timer(NOTICE_AFTER, _fire)
                timer.daemon = True
                _state["timer"] = timer
                timer.start()
        else:
            _state["depth"] = max(0, _state["depth"] - 1)
            if _state["depth"] == 0 and _state["timer"] is not None:
                _state["timer"].cancel()
                _state["timer"] = None


_installed = False


def watch() -> None:
    """Install the compile listener (idempotent); called by :mod:`pranker._numba`."""
    global _installed
    if _installed:
        return

    class Listener(event.Listener):
        def on_start(self, ev):
            _on_compile(ev)

        def on_end(self, ev):
            _on_compile(ev)

    event.register("numba:compile", Listener())
    _installed = True


def _reset_for_tests() -> None:
    with _lock:
        timer = _state["timer"]
        if timer is not None:
            timer.cancel()
        _state.update(announced=False, depth=0, timer=None, modules=set())
