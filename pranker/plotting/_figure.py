"""Figures and axes without pyplot, saving, and the small drawing helpers every figure shares."""

from __future__ import annotations

import os
import sys

import numpy as np

from .._files import atomic_write

DPI = 150  # default resolution of saved raster figures (PNG)
SAVE_FORMATS = ("png", "svg", "pdf")

# longest curve drawn point for point; longer ones are thinned evenly
_MAX_POINTS = 20_000


_NOTEBOOK_FORMATS: list[bool] = []  # set once the notebook's figure formats are registered


def _show_in_notebooks() -> None:
    """In Jupyter (IPython with a kernel), let a bare Figure display itself as PNG.

    The figures are built without pyplot (no global state), and IPython shows a
    Figure only once its inline backend has registered the figure formats, which
    importing pyplot would do. Register them here, once per process, with
    IPython's own ``select_figure_formats``; elsewhere nothing is done (and
    IPython is never imported).
    """
    if _NOTEBOOK_FORMATS or "IPython" not in sys.modules:
        return
    _NOTEBOOK_FORMATS.append(True)
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import select_figure_formats

        shell = get_ipython()
        if shell is not None and getattr(shell, "kernel", None) is not None:
            select_figure_formats(shell, {"png"})
    except Exception:  # pragma: no cover - display only; never fail a figure for it
        pass


def new_figure(figsize, ncols: int = 1, sharey: bool = False):
    """A new Figure with ``ncols`` axes, without pyplot (no display needed)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on environment
        raise ImportError(
            "pranker's plots need matplotlib: pip install 'pranker[plot]' "
            "(or pip install matplotlib)."
        ) from exc
    _show_in_notebooks()
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0]
    return fig, list(axes)


def axes_or_new(ax, figsize):
    """The caller's axes and its figure, or a new figure with one axes."""
    if ax is None:
        fig, (ax,) = new_figure(figsize)
        return fig, ax
    return ax.figure, ax


def axes_pair(ax, figsize, sharey: bool = False):
    """Two axes: a new figure's, or the two the caller passed as ``ax=(left, right)``.

    Returns ``(figure, [left, right], own)``, ``own`` True for a new figure.
    """
    if ax is None:
        fig, axes = new_figure(figsize, ncols=2, sharey=sharey)
        return fig, axes, True
    try:
        left, right = ax
    except (TypeError, ValueError):
        raise TypeError("this figure has two panels: pass ax=(left_axes, right_axes).") from None
    return left.figure, [left, right], False


def save_figure(fig, path, *, dpi: int = DPI, overwrite: bool = True) -> None:
    """Save ``fig`` to ``path`` atomically (temporary file in the same folder, then rename).

    The format follows the extension (``.png``, ``.svg``, ``.pdf``, or any
    other format matplotlib writes). With ``overwrite=False`` an existing
    file raises :class:`FileExistsError` and is left untouched. A failure
    never leaves a partial file behind. ``dpi`` applies to raster formats
    (150 by default).
    """
    path = os.fspath(path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists; refusing to overwrite it.")
    ext = os.path.splitext(path)[1] or ".png"
    atomic_write(
        path,
        lambda tmp: fig.savefig(
            tmp, dpi=dpi, format=ext.lstrip(".").lower() or "png", metadata=_metadata(ext)
        ),
        prefix=".pranker-",
        suffix=ext,
    )


def _metadata(ext: str):
    """No creation date in SVG/PDF, so the same figure gives the same bytes."""
    ext = ext.lower()
    if ext == ".svg":
        return {"Date": None}
    if ext == ".pdf":
        return {"CreationDate": None}
    return None


def maybe_save(fig, path, dpi):
    """Save ``fig`` when ``path`` is given; return it."""
    if path is not None:
        save_figure(fig, path, dpi=dpi)
    return fig


def as_curve(recall, precision):
    """Two 1-d float arrays of the same, non-zero length (else ValueError)."""
    r = np.asarray(recall, dtype=np.float64).ravel()
    p = np.asarray(precision, dtype=np.float64).ravel()
    if r.shape != p.shape:
        raise ValueError(
            f"recall and precision must have the same length; got {r.size} and {p.size}."
        )
    if r.size == 0:
        raise ValueError("recall and precision are empty: nothing to plot.")
    return r, p


def thin(*arrays, max_points: int = _MAX_POINTS):
    """At most ``max_points`` evenly spaced points (ends kept): a 1e7-point curve
    draws as fast as a small one and looks the same at figure resolution."""
    n = arrays[0].size
    if n <= max_points:
        return arrays
    idx = np.unique(np.linspace(0, n - 1, max_points).round().astype(np.int64))
    return tuple(a[idx] for a in arrays)


def unit_square(ax, xlabel, ylabel):
    """Axes on [0, 1] x [0, 1.02], equal aspect, a light grid."""
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_aspect("equal", adjustable="box")
    ax.grid(True, lw=0.3, alpha=0.5)


def legend_below(fig, ax, own_figure: bool, ncols: int = 2) -> None:
    """Legend outside the data area (below the axes) on our own figures."""
    if own_figure:
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(
            handles, labels, loc="outside lower center", ncols=ncols, fontsize=7.5, frameon=False
        )
    else:
        ax.legend(loc="lower left", fontsize=7, framealpha=0.85)


def legend_under(ax, ncols: int = 2, handles=None, labels=None) -> None:
    """Legend under one axes (outside the data; constrained layout makes room)."""
    extra = () if handles is None else (handles, labels)
    ax.legend(
        *extra,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncols=ncols,
        fontsize=7.5,
        frameon=False,
    )
