"""The natural figure of each result type: what ``res.plot()`` draws.

- :class:`pranker.PrankerResult`: the null distribution and its tail with
  the observed AUPRC (:func:`pranker.plotting.plot_null_from_result`);
- :class:`pranker.CompareResult`: the difference AP_a - AP_b against its
  distribution when both models are equally good, with its confidence
  interval;
- :class:`pranker.MapResult`: each query's AP against its random-ranking
  mean, and the mean AP against its null;
- :class:`pranker.MapGroup`: one group's mean AP against its null;
- :class:`pranker.ManyResult`: every ranking's AUPRC and -log10 p-value,
  those significant after Benjamini-Hochberg at ``alpha`` marked;
- :class:`pranker.significance.montecarlo.MonteCarloPvalue`: the null distribution of its draws and
  tail, with the observed AP and the p-value with its interval.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _format as _fmt
from ._figure import DPI, axes_or_new, axes_pair, maybe_save
from .null import plot_null_distribution, plot_null_from_result

__all__ = ["plot_result", "plot_compare_result", "plot_map_result", "plot_many_result"]

_OBSERVED = "#c0392b"
_NULL = "#7f8c8d"


def plot_result(result, **kwargs):
    """The natural figure of a result of pranker (``result.plot()`` calls this).

    Parameters
    ----------
    result : PrankerResult, CompareResult, MapResult, MapGroup, ManyResult or MonteCarloPvalue
    **kwargs
        Passed to the figure's function: :func:`plot_null_from_result` (also
        for a MonteCarloPvalue, with the null of its draws),
        :func:`plot_compare_result`, :func:`plot_map_result` (a MapGroup: its
        right panel alone) or :func:`plot_many_result` (``ax=``, ``path=``,
        ``figsize=`` ...).

    Returns
    -------
    matplotlib.figure.Figure
    """
    kind = type(result).__name__
    draw = _FIGURES.get(kind)
    if draw is None:
        raise TypeError(
            f"plot_result: no figure for a {kind}; it draws {', '.join(_FIGURES)} (the "
            "results of pranker, compare, map_significance, pranker_many and "
            "montecarlo_pvalue)."
        )
    return draw(result, **kwargs)


def _null_of_difference(result):
    """x and density (or histogram) of AP_a - AP_b when both models are equally good."""
    lo, hi = result.null_interval
    d = result.statistic
    if result.method == "influence":
        from scipy import stats

        se = result.standard_error
        width = max(hi - lo, 1e-12)
        x = np.linspace(min(lo, d) - 0.3 * width, max(hi, d) + 0.3 * width, 400)
        df = result.df if result.df is not None and math.isfinite(result.df) else None
        dens = stats.t.pdf(x / se, df) / se if df else stats.norm.pdf(x / se) / se
        return "line", x, dens, f"Student's t, {_fmt.sig(result.df, 3)} df"
    reps = np.asarray(result._replicates, dtype=float)
    if result.method == "bootstrap":
        reps = reps - d
    return "hist", reps, None, f"{result.method} replicates ({reps.size:,})"  # method: a word


def plot_compare_result(result, *, ax=None, path=None, figsize=(6.4, 4.0), dpi: int = DPI):
    """AP_a - AP_b against its distribution when the two models are equally good.

    The null of the difference (Student's t times the standard error for
    ``"influence"``, the permutation replicates, or the bootstrap replicates
    centred on 0), the observed difference, its confidence interval at the
    result's ``conf_level`` and the central ``conf_level`` interval of the
    null.
    """
    fig, ax = axes_or_new(ax, figsize)
    kind, x, dens, label = _null_of_difference(result)
    if kind == "line":
        ax.plot(x, dens, color=_NULL, label=f"null: {label}", gid="null-difference")
    else:
        ax.hist(x, bins=40, density=True, color=_NULL, alpha=0.6, label=f"null: {label}")
    lo, hi = result.null_interval
    pct = f"{100 * result.conf_level:g}%"
    ax.axvspan(lo, hi, color=_NULL, alpha=0.12, label=f"{pct} of the null")
    d = result.statistic
    ax.axvline(d, color=_OBSERVED, lw=2, gid="observed", label=f"observed {d:+.4f}")
    ci = result.confidence_interval()
    top = ax.get_ylim()[1]
    c_lo = ci.low if math.isfinite(ci.low) else ax.get_xlim()[0]
    c_hi = ci.high if math.isfinite(ci.high) else ax.get_xlim()[1]
    ax.plot([c_lo, c_hi], [0.92 * top] * 2, color=_OBSERVED, lw=3, gid="confidence-interval")
    ax.plot([], [], color=_OBSERVED, lw=3, label=f"{pct} confidence interval")
    ax.set_xlabel("AP of model a - AP of model b")
    ax.set_ylabel("density")
    ax.set_title(f"p = {_fmt.pvalue_text(result)} ({result.alternative}, {result.method})")
    ax.legend(loc="best", fontsize=8, frameon=False)
    return maybe_save(fig, path, dpi)


def plot_map_result(result, *, ax=None, path=None, figsize=(9.6, 4.0), dpi: int = DPI):
    """Mean AP over queries: each query's AP against its null mean, and the mean against its null.

    Left: each query's AP (y) against the mean AP of a random ranking of its
    N and P (x); the diagonal is "no better than chance". Right: the null of
    the mean AP as the normal density with its exact mean and variance (a
    display; the p-value comes from the result), its central ``conf_level``
    interval, and the observed mean AP with its p-value.
    """
    from ..null import null_params

    fig, (left, right), _ = axes_pair(ax, figsize)
    ap = np.asarray(result.query_auprc, dtype=float)
    n = np.asarray(result.query_n)
    n_pos = np.asarray(result.query_n_pos)
    means = np.array([null_params(int(a), int(b)).mean for a, b in zip(n, n_pos, strict=True)])
    left.scatter(means, ap, s=10, color=_OBSERVED, alpha=0.7, gid="queries")
    top = max(float(np.max(ap, initial=0.0)), float(np.max(means, initial=0.0)), 1e-3)
    left.plot([0, top], [0, top], ls=":", color=_NULL, label="chance")
    left.set_xlabel("AP of a random ranking (mean)")
    left.set_ylabel("AP of the query")
    left.set_title(f"{result.n_queries:,} queries")
    left.legend(loc="upper left", fontsize=8, frameon=False)

    _mean_ap_null_panel(right, result)
    return maybe_save(fig, path, dpi)


def _plot_map_group(result, *, ax=None, path=None, figsize=(6.4, 4.0), dpi: int = DPI):
    """One group's mean AP against its null (the right panel of :func:`plot_map_result`).

    The null of the group's mean AP as the normal density with its exact
    mean and variance (a display; the p-value comes from the result), its
    central ``conf_level`` interval, and the observed mean AP with its p-value.
    """
    fig, ax = axes_or_new(ax, figsize)
    _mean_ap_null_panel(ax, result)
    ax.set_title(f"group {result.group!s}: {ax.get_title()}")
    return maybe_save(fig, path, dpi)


def _mean_ap_null_panel(right, result) -> None:
    """The null of a mean AP (normal display on the exact moments), its interval, the observed."""
    mu, sd = result.null_mean, math.sqrt(max(result.null_var, 0.0))
    m = result.statistic
    lo, hi = result.null_interval
    if sd > 0:
        span = max(m - mu, 4 * sd, hi - mu)
        x = np.linspace(mu - 4 * sd, mu + 1.1 * span, 400)
        right.plot(
            x,
            np.exp(-0.5 * ((x - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi)),
            color=_NULL,
            label="null (normal, exact moments)",
            gid="null-mean-ap",
        )
    pct = f"{100 * result.conf_level:g}%"
    right.axvspan(lo, hi, color=_NULL, alpha=0.12, label=f"{pct} of the null")
    right.axvline(m, color=_OBSERVED, lw=2, gid="observed", label=f"observed {_fmt.sig(m, 4)}")
    right.set_xlabel("mean AP over the queries")
    right.set_ylabel("density")
    right.set_title(f"p = {_fmt.pvalue_text(result)} ({_fmt.method_name(result.method)})")
    right.legend(loc="best", fontsize=8, frameon=False)


def plot_many_result(
    result, *, alpha: float = 0.05, ax=None, path=None, figsize=(6.4, 4.0), dpi: int = DPI
):
    """Every ranking's AUPRC (x) and -log10 p-value (y).

    Rankings whose Benjamini-Hochberg adjusted p-value is at most ``alpha``
    are drawn in colour, the others grey; rankings without a positive are
    left out.
    """
    fig, ax = axes_or_new(ax, figsize)
    valid = np.asarray(result.valid).ravel()
    x = np.asarray(result.auprc).ravel()[valid]
    y = -np.asarray(result.log10_pvalue).ravel()[valid]
    hit = np.asarray(result.log10_pvalue_bh).ravel()[valid] <= math.log10(alpha)
    ax.scatter(x[~hit], y[~hit], s=10, color=_NULL, label="not significant", gid="others")
    ax.scatter(
        x[hit],
        y[hit],
        s=12,
        color=_OBSERVED,
        gid="significant",
        label=f"BH-adjusted p <= {alpha:g} ({int(hit.sum()):,})",
    )
    ax.set_xlabel("AUPRC")
    ax.set_ylabel("-log10 p-value")
    ax.set_title(f"{int(valid.sum()):,} rankings")
    ax.legend(loc="best", fontsize=8, frameon=False)
    return maybe_save(fig, path, dpi)


def _plot_montecarlo_result(result, **kwargs):
    """A Monte Carlo p-value on its null: :func:`plot_null_distribution` with the null of
    the result's draws (:class:`pranker.null.montecarlo.MonteCarloNull`, same draws and seed) and the
    p-value as the result states it (with its Clopper-Pearson interval)."""
    from ..null.montecarlo import MonteCarloNull

    null = MonteCarloNull(result.n, result.n_pos, n_draws=result.n_draws, seed=result.seed)
    return plot_null_distribution(
        result.n, result.n_pos, result.statistic, null=null, pvalue=result, **kwargs
    )


_FIGURES = {
    "PrankerResult": plot_null_from_result,
    "CompareResult": plot_compare_result,
    "MapResult": plot_map_result,
    "MapGroup": _plot_map_group,
    "ManyResult": plot_many_result,
    "MonteCarloPvalue": _plot_montecarlo_result,
}
