"""res.plot(): each result type's figure shows the result's own numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import pranker  # noqa: E402
from pranker._format import pvalue_text  # noqa: E402
from pranker.significance.montecarlo import montecarlo_pvalue  # noqa: E402


def _by_gid(fig, gid):
    found = [a for ax in fig.axes for a in ax.get_children() if a.get_gid() == gid]
    assert found, gid
    return found[0]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.2
    a = rng.random(300) + 0.3 * y
    b = rng.random(300) + 0.2 * y
    return a, b, y


def test_single_result_plot_is_the_null_figure(data):
    a, _, y = data
    res = pranker.pranker(a, y)
    fig = res.plot()
    texts = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    legends = " ".join(
        t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()
    )
    assert pvalue_text(res) in texts + legends
    assert any("AUPRC" in ax.get_xlabel() for ax in fig.axes)


@pytest.mark.parametrize("method", ["influence", "permutation", "bootstrap"])
def test_compare_plot_marks_the_difference_and_its_interval(data, method):
    a, b, y = data
    res = pranker.compare(a, b, y, method=method, n_draws=299 if method != "influence" else None)
    fig = res.plot()
    ax = fig.axes[0]
    obs = _by_gid(fig, "observed")
    assert obs.get_xdata()[0] == pytest.approx(res.statistic, abs=1e-15)
    ci = res.confidence_interval()
    xs = _by_gid(fig, "confidence-interval").get_xdata()
    assert (xs[0], xs[1]) == pytest.approx((ci.low, ci.high), abs=1e-15)
    assert pvalue_text(res) in ax.get_title() and method in ax.get_title()
    assert ax.get_xlabel() == "AP of model a - AP of model b"
    if method == "influence":  # the t density integrates to about 1 over the drawn range
        line = _by_gid(fig, "null-difference")
        x, d = line.get_xdata(), line.get_ydata()
        assert 0.9 < float(np.sum((d[1:] + d[:-1]) / 2 * np.diff(x))) <= 1.0 + 1e-9


def test_many_plot_marks_what_bh_keeps():
    rng = np.random.default_rng(1)
    s = rng.random((30, 60))
    y = rng.random((30, 60)) < 0.15
    y[:, 0] = True
    s[:10] += 0.8 * y[:10]  # ten good rankings
    res = pranker.pranker_many(s, y, method="beta")
    fig = res.plot(alpha=0.05)
    # BH by its definition, written out: reject the k smallest, k = max{i: p_(i) <= i alpha / m}
    p = np.sort(res.pvalue)
    m = p.size
    k = max([i + 1 for i in range(m) if p[i] <= (i + 1) * 0.05 / m], default=0)
    assert len(_by_gid(fig, "significant").get_offsets()) == k
    assert len(_by_gid(fig, "others").get_offsets()) == m - k
    ys = _by_gid(fig, "significant").get_offsets()[:, 1]
    assert np.all(ys >= -math.log10(p[k - 1]) - 1e-9) if k else True


def test_plot_result_refuses_other_objects():
    from pranker.plotting import plot_result

    with pytest.raises(TypeError, match="no figure for a int"):
        plot_result(3)


def test_map_plot_shows_queries_and_the_mean():
    rng = np.random.default_rng(4)
    ys = [rng.random(80) < 0.1 for _ in range(6)]
    for y in ys:
        y[0] = True
    ss = [rng.random(80) + 0.5 * y for y in ys]
    res = pranker.map_significance(ss, ys)
    fig = res.plot()
    pts = _by_gid(fig, "queries").get_offsets()
    assert len(pts) == 6
    # y: each query's AP (scikit-learn's); x: the exact null mean of its (N, P)
    from sklearn.metrics import average_precision_score

    want = sorted(average_precision_score(y, s) for s, y in zip(ss, ys, strict=True))
    assert sorted(pts[:, 1]) == pytest.approx(want, rel=1e-12)
    assert sorted(pts[:, 0]) == pytest.approx(
        sorted(pranker.null_params(80, int(y.sum())).mean for y in ys), rel=1e-12
    )
    obs = _by_gid(fig, "observed")
    assert obs.get_xdata()[0] == pytest.approx(res.statistic, rel=1e-12)
    assert pvalue_text(res) in fig.axes[1].get_title()


def test_montecarlo_result_plot_marks_its_pvalue_and_draws_its_null():
    res = montecarlo_pvalue(0.5, 60, 5, n_draws=4000, seed=2)
    fig = res.plot()
    texts = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    legends = " ".join(
        t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()
    )
    assert pvalue_text(res) in texts + legends
    assert any("AUPRC" in ax.get_xlabel() for ax in fig.axes)


def test_map_group_plot_is_its_null_with_the_observed_mean():
    res = pranker.map_significance_from_ap(
        [0.5, 0.4, 0.6], [30, 40, 50], [4, 5, 6], groups=["a", "a", "b"]
    )
    g = res.groups[0]
    fig = g.plot()
    (ax,) = fig.axes
    assert ax.get_title().startswith("group a: p = " + pvalue_text(g))
    observed = _by_gid(fig, "observed")
    assert observed.get_xdata()[0] == pytest.approx(g.statistic)
    assert g.statistic == pytest.approx(0.45)  # the group's two queries
