"""Retrieval within a Hamming radius: the PR curve traced by the radius, and P and R against it."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._figure import DPI, as_curve, axes_pair, legend_under, maybe_save, unit_square
from ._layout import place_f_labels
from .pr import F_LEVELS, draw_f_isolines


def plot_hamming_pr(
    radius,
    precision,
    recall,
    *,
    label: str = "hash codes",
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """Precision and recall of retrieval within Hamming radius r (the MATLAB ``recall_precision`` of hashing evaluations).

    Left: the PR curve traced by the radius (points labelled with r;
    undefined precision, NaN, is skipped). Right: precision and recall
    against the radius. For several code sets see
    :func:`plot_hamming_pr_curves`.

    Parameters
    ----------
    radius : array_like of int
        Hamming radii, increasing.
    precision, recall : array_like
        Precision and recall of "retrieve everything within radius r"
        (e.g. ``RadiusCurves.mean_precision`` / ``mean_recall`` from
        :func:`pranker.hamming_radius_curves`).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_hamming_pr([0, 1, 2], [0.9, 0.7, 0.4], [0.1, 0.5, 1.0])
    >>> [a.get_xlabel() for a in fig.axes]
    ['recall', 'Hamming radius r']
    """
    return plot_hamming_pr_curves(
        {label: (radius, precision, recall)}, title=title, ax=ax, path=path, dpi=dpi
    )


def _radius_labels(ax, rad, r, p, ok, color) -> None:
    """``r=...`` beside the points of a PR curve, skipping points crowded onto the previous label."""
    last = (np.inf, np.inf)
    for i in np.flatnonzero(ok):
        if np.hypot(r[i] - last[0], p[i] - last[1]) < 0.06:
            continue
        last = (r[i], p[i])
        ax.annotate(
            f"r={rad[i]:g}",
            (r[i], p[i]),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=7,
            color=color,
        )


def _draw_code_set(ax_pr, ax_r, label, radius, precision, recall, color, single) -> float:
    """One code set on both panels; returns its largest radius (0 when none)."""
    rad = np.asarray(radius, dtype=np.float64).ravel()
    r, p = as_curve(recall, precision)
    if rad.shape != r.shape:
        raise ValueError(f"radius has {rad.size} values but the curve has {r.size} points.")
    ok = np.isfinite(p) & np.isfinite(r)
    ax_pr.plot(r[ok], p[ok], "-o", ms=3.5, lw=1.4, color=color, label=label)
    _radius_labels(ax_pr, rad, r, p, ok, color)
    fp_ = np.isfinite(p)
    ax_r.plot(
        rad[fp_],
        p[fp_],
        "-o",
        ms=3,
        color=color,
        label="precision" if single else f"{label}: precision",
    )
    ax_r.plot(
        rad,
        r,
        "--s",
        ms=3,
        color=color if not single else "C1",
        label="recall" if single else f"{label}: recall",
    )
    return float(rad.max()) if rad.size else 0.0


def plot_hamming_pr_curves(
    curves: Mapping[str, tuple],
    *,
    title: str | None = None,
    ax=None,
    path=None,
    dpi: int = DPI,
):
    """Hamming-radius PR curves of several code sets (e.g. 16, 32, 64 bits).

    Parameters
    ----------
    curves : mapping label -> (radius, precision, recall)
    ax : (Axes, Axes), optional
        Draw into these two axes instead of a new figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (ax_pr, ax_r), own = axes_pair(ax, (10.0, 4.8))
    unit_square(ax_pr, "recall", "precision")
    ax_pr.plot([0, 1], [0, 1], ls="--", lw=0.8, color="0.6", label="precision = recall")
    iso = draw_f_isolines(ax_pr, F_LEVELS, 1.0)
    single = len(curves) == 1
    rmax = 0.0
    for k, (label, (radius, precision, recall)) in enumerate(curves.items()):
        color = f"C{k % 10}"
        rmax = max(
            rmax, _draw_code_set(ax_pr, ax_r, label, radius, precision, recall, color, single)
        )
    ax_pr.set_title("PR by Hamming radius")
    place_f_labels(ax_pr, iso)
    legend_under(ax_pr)
    ax_r.set_xlabel("Hamming radius r")
    ax_r.set_ylabel("precision / recall")
    ax_r.set_ylim(0.0, 1.02)
    ax_r.set_xlim(-0.5, rmax + 0.5)
    ax_r.grid(True, lw=0.3, alpha=0.5)
    legend_under(ax_r)
    ax_r.set_title("retrieval within radius r")
    if title and own:
        fig.suptitle(title)
    return maybe_save(fig, path, dpi)


def plot_hamming_from_curves(curves, *, pooled: bool = False, **kwargs):
    """:func:`plot_hamming_pr_curves` from :class:`pranker.RadiusCurves`.

    ``curves`` is one ``RadiusCurves`` or a mapping label -> ``RadiusCurves``.
    ``pooled=False`` plots the mean over queries (``mean_precision``,
    ``mean_recall``); ``pooled=True`` the pair-level curves of the hashing
    MATLAB ``recall_precision`` (``pooled_precision``, ``pooled_recall``).
    """
    if not isinstance(curves, Mapping):
        curves = {kwargs.pop("label", "hash codes"): curves}
    arrays = {}
    for label, rc in curves.items():
        if pooled:
            arrays[label] = (rc.radii, rc.pooled_precision, rc.pooled_recall)
        else:
            arrays[label] = (rc.radii, rc.mean_precision, rc.mean_recall)
    return plot_hamming_pr_curves(arrays, **kwargs)
