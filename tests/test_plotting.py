"""Figures show what they say: axes, curves, areas, the observed value, its p-value.

Oracles are independent of the code under test: PR points and average
precision by plain loops, the null by enumerating every placement of the
positives, the p-value text by :func:`pranker._format.pvalue_text`, and
overlaps by the renderer's own window extents (Agg).
"""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from pranker import null_distribution, plotting, pranker, significance_from_ap  # noqa: E402
from pranker._format import pvalue_text  # noqa: E402
from pranker.null import null_ap_samples  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def is_png(path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(8) == PNG_MAGIC


def legend_texts(fig, ax=None):
    legend = ax.get_legend() if ax is not None else fig.legends[0]
    return [t.get_text() for t in legend.get_texts()]


def lines_by_gid(ax, gid):
    return [ln for ln in ax.get_lines() if ln.get_gid() == gid]


def observed_point(ax):
    """The errorbar container of the observed point on a tail panel."""
    (obs,) = [c for c in ax.containers if c.lines[0].get_gid() == "observed"]
    return obs


@pytest.fixture(scope="module")
def curve():
    """A ranking and its PR/ROC points computed by a plain loop (independent oracle)."""
    rng = np.random.default_rng(3)
    n = 400
    y = rng.random(n) < 0.1
    s = rng.normal(size=n) + 1.5 * y
    order = np.argsort(-s)
    tp = fp = 0
    rec, prec, fpr = [0.0], [1.0], [0.0]
    P, Nneg = int(y.sum()), int((~y).sum())
    for i in order:
        tp += int(y[i])
        fp += int(not y[i])
        rec.append(tp / P)
        prec.append(tp / (tp + fp))
        fpr.append(fp / Nneg)
    return s, y, np.array(rec), np.array(prec), np.array(fpr)


def enumerated_null(N, P):
    """AP of every placement of P positives among N (ranks r_1 < ... < r_P): (1/P) sum k / r_k."""
    return np.sort(
        [
            sum(k / r for k, r in enumerate(ranks, start=1)) / P
            for ranks in itertools.combinations(range(1, N + 1), P)
        ]
    )


# --- PR curves ----------------------------------------------------------------------


def test_pr_plot(tmp_path, curve):
    s, y, rec, prec, _ = curve
    path = tmp_path / "pr.png"
    fig = plotting.plot_pr(
        rec, prec, prevalence=y.mean(), null_curve=([0, 0.5, 1], [1, 0.2, 0.1]), path=path
    )
    assert is_png(path)
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim()[0] == 0.0
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "precision"
    labels = legend_texts(fig)
    assert f"random: P/N = {y.mean():.3g}" in labels
    assert "random: expected precision" in labels and "precision = recall" in labels
    # the F isolines: every dotted line's points have the same F1 = 2PR/(P+R)
    dotted = lines_by_gid(ax, "f-isoline")
    assert len(dotted) == 4
    for ln, level in zip(dotted, (0.2, 0.4, 0.6, 0.8), strict=True):
        r, p = ln.get_xdata(), ln.get_ydata()
        assert np.allclose(2 * p * r / (p + r), level)
    # best-F marker is at the loop-computed maximum of F1
    f1 = np.where(prec + rec > 0, 2 * prec * rec / np.maximum(prec + rec, 1e-300), 0)
    assert any(t.startswith(f"best F = {f1.max():.3f}") for t in labels)


def test_step_curve_and_envelope_geometry(curve):
    """The step curve holds each precision on (r_{k-1}, r_k]; the envelope is the running
    maximum of precision to the right (both checked against loops)."""
    _, _, rec, prec, _ = curve
    fig = plotting.plot_pr(rec, prec, f_isolines=(), diagonal=False, mark_best_f=False)
    ax = fig.axes[0]
    (step,) = lines_by_gid(ax, "pr-step")
    (env,) = lines_by_gid(ax, "pr-envelope")
    # envelope: the run ending at recall r_k (vertex 2k) holds the max of precision from k on
    x, yv = env.get_data()
    assert x.size == 2 * rec.size - 1
    assert np.array_equal(x[2::2], rec[1:])
    assert np.allclose(yv[2::2], [max(prec[k:]) for k in range(1, rec.size)])
    # step curve: every horizontal run ends where recall grows, at that point's precision
    x, yv = step.get_data()
    runs = [(x[i], x[i + 1], yv[i + 1]) for i in range(1, x.size - 1, 2)]
    grows = [(rec[k - 1], rec[k], prec[k]) for k in range(1, rec.size) if rec[k] > rec[k - 1]]
    assert np.allclose(runs, grows)


def test_pr_curves_several_and_into_axes(curve):
    from matplotlib.figure import Figure

    _, y, rec, prec, _ = curve
    fig = Figure()
    ax = fig.subplots()
    out = plotting.plot_pr_curves({"a": (rec, prec), "b": (rec, prec * 0.5)}, ax=ax, f_isolines=())
    assert out is fig
    labels = legend_texts(fig, ax)
    assert any(t.startswith("a: AUPRC = ") for t in labels)
    assert any(t.startswith("b: AUPRC = ") for t in labels)


def test_roc_pr_shares_recall_axis(tmp_path, curve):
    _, y, rec, prec, fpr = curve
    fig = plotting.plot_roc_pr(
        fpr, rec, rec, prec, prevalence=y.mean(), auprc=0.5, roc_auc=0.8, path=tmp_path / "r.png"
    )
    assert is_png(tmp_path / "r.png")
    roc, pr = fig.axes
    assert roc.get_shared_y_axes().joined(roc, pr)
    assert roc.get_xlabel().startswith("false-positive") and pr.get_xlabel() == "precision"
    assert "recall" in roc.get_ylabel()
    for ax in (roc, pr):
        assert ax.get_xlim() == (0.0, 1.0)
    assert "AUC = 0.800" in roc.get_title() and "AUPRC = 0.500" in pr.get_title()
    # the PR panel has precision on x: its step curve is the loop's (recall, precision) swapped
    (step,) = lines_by_gid(pr, "pr-step")
    px, ry = step.get_data()
    assert set(np.round(ry, 12)) <= set(np.round(rec, 12))
    assert set(np.round(px, 12)) <= set(np.round(prec, 12))


def test_svg_and_pdf_by_extension(tmp_path):
    fig = plotting.plot_pr([0, 0.5, 1], [1, 1, 0.5])
    plotting.save_figure(fig, tmp_path / "f.svg")
    plotting.save_figure(fig, tmp_path / "f.pdf")
    assert (tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"


def points_in_box(ax_line, box, dense: int = 1) -> bool:
    """Whether a line, in display coordinates (with ``dense`` points per segment), enters ``box``."""
    pts = ax_line.get_transform().transform(np.column_stack(ax_line.get_xydata().T))
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if dense > 1 and len(pts) > 1:
        t = np.linspace(0.0, 1.0, dense, endpoint=False)
        pts = np.concatenate(
            [a + np.outer(t, b - a) for a, b in zip(pts[:-1], pts[1:], strict=True)] + [pts[-1:]]
        )
    inside = (
        (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
    )
    return bool(inside.any())


def test_f_labels_avoid_curves_and_frame(curve):
    _, y, rec, prec, _ = curve
    fig = plotting.plot_pr(rec, prec, prevalence=y.mean())
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_gid() == "f-label"]
    assert sorted(t.get_text() for t in labels) == ["F=0.2", "F=0.4", "F=0.6", "F=0.8"]
    frame = ax.get_window_extent()
    curves = lines_by_gid(ax, "pr-step") + lines_by_gid(ax, "pr-envelope")
    for t in labels:
        box = t.get_window_extent()
        assert frame.x0 < box.x0 and box.x1 < frame.x1 and frame.y0 < box.y0 and box.y1 < frame.y1
        for ln in curves:
            assert not points_in_box(ln, box), t.get_text()


def test_hamming(tmp_path):
    fig = plotting.plot_hamming_pr(
        np.arange(5),
        [np.nan, 0.9, 0.6, 0.3, 0.2],
        [0.0, 0.2, 0.5, 0.8, 1.0],
        path=tmp_path / "h.png",
    )
    assert is_png(tmp_path / "h.png")
    ax_pr, ax_r = fig.axes
    assert ax_r.get_xlabel() == "Hamming radius r" and ax_pr.get_xlabel() == "recall"
    assert ax_r.get_xlim() == (-0.5, 4.5)
    # the undefined precision (radius 0) is skipped on the PR panel
    (pr_line,) = [ln for ln in ax_pr.get_lines() if ln.get_label() == "hash codes"]
    assert pr_line.get_xdata().tolist() == [0.2, 0.5, 0.8, 1.0]
    radii = sorted(t.get_text() for t in ax_pr.texts if t.get_text().startswith("r="))
    assert radii[0] == "r=1"


def test_bad_shapes():
    with pytest.raises(ValueError, match="same length"):
        plotting.plot_pr([0, 1], [1])
    with pytest.raises(ValueError, match="empty"):
        plotting.plot_pr([], [])
    with pytest.raises(ValueError, match="radius"):
        plotting.plot_hamming_pr([0, 1], [1, 0.5, 0.2], [0, 0.5, 1])


def test_save_figure_refuses_overwrite(tmp_path):
    fig = plotting.plot_pr([0, 1], [1, 0.5])
    path = tmp_path / "f.png"
    path.write_bytes(b"keep")
    with pytest.raises(FileExistsError):
        plotting.save_figure(fig, path, overwrite=False)
    assert path.read_bytes() == b"keep"
    plotting.save_figure(fig, path)
    assert is_png(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png"]


def test_missing_matplotlib_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"pranker\[plot\]"):
        plotting.plot_pr([0, 1], [1, 0.5])


def test_hamming_from_radius_curves_plots_mean_curves():
    from pranker import hamming_radius_curves, pack_codes

    rng = np.random.default_rng(2)
    bits = 8
    q = rng.random((5, bits)) < 0.5
    d = rng.random((40, bits)) < 0.5
    ql, dl = rng.integers(0, 3, 5), rng.integers(0, 3, 40)
    rc = hamming_radius_curves(
        pack_codes(q), pack_codes(d), query_labels=ql, database_labels=dl, n_bits=bits
    )
    fig = plotting.plot_hamming_from_curves({"8 bits": rc, "again": rc})
    # oracle: plain loops over Hamming distances, precision 0 when nothing retrieved
    exp_p, exp_r = [], []
    for radius in range(bits + 1):
        ps, rs = [], []
        for i in range(5):
            dist = [(q[i] != d[j]).sum() for j in range(40)]
            got = [j for j in range(40) if dist[j] <= radius]
            rel = [j for j in range(40) if dl[j] == ql[i]]
            good = [j for j in got if dl[j] == ql[i]]
            ps.append(len(good) / len(got) if got else 0.0)
            if rel:
                rs.append(len(good) / len(rel))
        exp_p.append(np.mean(ps))
        exp_r.append(np.mean(rs))
    ax_r = fig.axes[1]
    prec_line, rec_line = ax_r.get_lines()[:2]
    assert np.allclose(prec_line.get_ydata(), exp_p)
    assert np.allclose(rec_line.get_ydata(), exp_r)
    assert legend_texts(fig, ax_r)[:2] == ["8 bits: precision", "8 bits: recall"]


def test_long_curves_are_thinned_keeping_ends():
    n = 100_001
    r = np.linspace(0, 1, n)
    p = 1 - 0.5 * r
    fig = plotting.plot_pr(r, p, f_isolines=(), diagonal=False, mark_best_f=False)
    for ln in fig.axes[0].get_lines():
        x = ln.get_xdata()
        assert len(x) < n  # fewer vertices than points (a step curve has two per point)
        assert x[0] == 0.0 and x[-1] == 1.0


def test_wrappers_take_curve_objects(curve):
    from pranker.measures.curves import pr_curve
    from pranker.measures.roc import roc_curve

    s, y, rec, prec, fpr = curve  # loop oracle (continuous scores: no ties)
    pr, roc = pr_curve(s, y), roc_curve(s, y)
    fig = plotting.plot_pr_from_curve(pr)
    labels = legend_texts(fig)
    assert f"random: P/N = {y.mean():.3g}" in labels  # prevalence from the counts
    (step,) = lines_by_gid(fig.axes[0], "pr-step")
    (env,) = lines_by_gid(fig.axes[0], "pr-envelope")
    # the legend's AUPRC is the area under the step curve = the loop's average precision
    ap = sum(p for p, r0, r1 in zip(prec[1:], rec[:-1], rec[1:], strict=True) if r1 > r0) / y.sum()
    assert f"AUPRC = {ap:.3f} (step curve)" in step.get_label()
    x, yv = step.get_data()
    assert np.sum(np.diff(x) * yv[1:]) == pytest.approx(ap)
    x, yv = env.get_data()
    assert "interpolated envelope" in env.get_label()
    assert np.sum(np.diff(x) * yv[1:]) >= ap
    fig = plotting.plot_roc_pr_from_curves(roc, pr)
    assert f"{roc.auc:.3f}" in fig.axes[0].get_title()
    roc_line = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "ranking"][0]
    assert np.allclose(roc_line.get_xdata(), fpr) and np.allclose(roc_line.get_ydata(), rec)


from pranker.plotting.null_stats import (  # noqa: E402
    density_grid,
    display_support,
    log10_interval,
    tail_curve,
)

# --- what the null objects give the figure --------------------------------------------


def test_display_statistics_of_the_exact_null_match_enumeration():
    N, P = 10, 3
    ap = enumerated_null(N, P)
    null = null_distribution(N, P, "exact")
    # the bulk: the 0.001 and 0.999 quantiles (first value with cdf >= q)
    lo, hi = display_support(null)
    cdf = np.arange(1, ap.size + 1) / ap.size
    assert lo == pytest.approx(ap[np.argmax(cdf >= 1e-3)])
    assert hi == pytest.approx(ap[np.argmax(cdf >= 1 - 1e-3 - 1e-12)])
    # the survival function on a grid
    a = np.linspace(lo, hi, 25)
    tail = tail_curve(null, a)
    expected = [np.log10(np.mean(ap >= v - 1e-12)) for v in a]
    assert np.allclose(tail.x, a) and np.allclose(tail.y, expected)
    # the binned density: each bin's mass is the share of placements falling in it
    dens = density_grid(null, lo, hi)
    assert dens.x.size == dens.y.size + 1
    mass = dens.y * np.diff(dens.x)
    counts = [
        np.mean((ap > e0 + 1e-12) & (ap <= e1 + 1e-12))
        for e0, e1 in zip(dens.x[:-1], dens.x[1:], strict=True)
    ]
    assert np.allclose(mass, counts)


def test_display_density_of_a_beta_integrates_to_the_mass_in_range():
    null = null_distribution(1000, 50, "beta")
    lo, hi = display_support(null)
    d = density_grid(null, lo, hi)
    assert d.x.size == d.y.size and "beta" in d.label
    width = d.x[1] - d.x[0]
    assert np.sum(d.y) * width == pytest.approx(0.998, abs=0.01)


def test_display_falls_back_to_samples_then_to_the_beta_shape():
    null = null_distribution(200, 10, "montecarlo", n_draws=1000)
    samples = null_ap_samples(200, 10, 4000, seed=5)
    lo, hi = display_support(null, samples)
    assert (lo, hi) == pytest.approx(tuple(np.quantile(samples, [1e-3, 1 - 1e-3])))
    tail = tail_curve(null, np.array([lo, np.median(samples)]), samples)
    assert tail.y[1] == pytest.approx(np.log10(np.mean(samples >= np.median(samples))))
    assert tail_curve(null, np.array([lo, hi])) is None  # no sample: no curve (too slow)
    assert "beta" in density_grid(null, lo, hi).label


def test_log10_interval_of_a_pvalue():
    from pranker import PValue

    interval = log10_interval
    # carried in log10
    assert interval(PValue(1e-3, -3.0, (9e-4, 1.1e-3), (-3.1, -2.9), 0.05, "tilt")) == (-3.1, -2.9)
    # from the linear interval; a lower end of 0 has no log
    mc = PValue(0.01, -2.0, (0.0, 0.02), None, 0.3, "montecarlo")
    assert interval(mc) == (-math.inf, pytest.approx(math.log10(0.02)))
    # from the relative standard error at the p-value's own confidence level
    z95, z99 = 1.959963984540054, 2.5758293035489
    rse = PValue(0.01, -2.0, None, None, 0.1, "tilt")
    lo, hi = interval(rse, 0.99)
    assert (10**lo, 10**hi) == pytest.approx((0.01 * (1 - z99 * 0.1), 0.01 * (1 + z99 * 0.1)))
    lo95, hi95 = interval(rse, 0.95)
    assert (10**lo95, 10**hi95) == pytest.approx((0.01 * (1 - z95 * 0.1), 0.01 * (1 + z95 * 0.1)))
    # no error bound
    assert interval(PValue(0.01, -2.0, None, None, None, "beta")) is None


# --- the null figure -------------------------------------------------------------------


@pytest.mark.slow
def test_null_distribution(curve):
    s, y, *_ = curve
    res = pranker(s, y)
    samples = null_ap_samples(res.n, res.n_pos, 2000, seed=1)
    fig = plotting.plot_null_from_result(res, samples=samples, tail_points=2)
    dens, tail = fig.axes
    # density zoomed on the null's bulk (0.001-0.999 quantiles), not [0, 1]
    lo, hi = dens.get_xlim()
    q = res.null.ppf([0.001, 0.999])
    assert lo <= q[0] < q[1] <= hi and hi - lo < 0.5
    # the observed value is off that scale: an arrow says where it is
    assert res.auprc > hi
    assert any(t.get_gid() == "observed-arrow" for t in dens.texts)
    # the legend states the p-value as the result has it: method and error
    texts = legend_texts(fig, dens)
    assert f"p = P(AUPRC_null ≥ observed) = {pvalue_text(res)}, exponential tilting" in texts
    assert "±" in pvalue_text(res)
    # tail panel: log10 survival function from the bulk to the observed value
    assert tail.get_xlim()[0] < res.null_mean < res.auprc <= tail.get_xlim()[1]
    x, yv = observed_point(tail).lines[0].get_data()
    assert x[0] == res.auprc and yv[0] == pytest.approx(res.log10_pvalue)
    # its error bar spans the p-value's interval (log10)
    seg = observed_point(tail).lines[2][0].get_segments()[0]
    lo_iv, hi_iv = (np.log10(v) for v in res.pvalue_interval)
    assert sorted(seg[:, 1]) == pytest.approx([lo_iv, hi_iv], abs=1e-6)
    assert tail.get_ylim()[0] < res.log10_pvalue
    assert "tilt estimates (95% interval)" in legend_texts(fig, tail)


def test_null_figure_shows_the_exact_null():
    res = significance_from_ap(0.45, 20, 5)  # C(20, 5) small: exact
    fig = plotting.plot_null_from_result(res)
    dens, tail = fig.axes
    assert [dens.get_xlabel(), tail.get_xlabel()] == ["AUPRC", "a (AUPRC)"]
    assert dens.get_ylabel() == "density under random ranking"
    assert tail.get_ylabel() == "log10 P(AUPRC_null ≥ a)"
    # the observed value: a vertical line on the density, a point at its p-value on the tail
    (vline,) = lines_by_gid(dens, "observed")
    assert np.allclose(vline.get_xdata(), 0.45)
    x, yv = observed_point(tail).lines[0].get_data()
    ap = enumerated_null(20, 5)
    assert x[0] == 0.45 and yv[0] == pytest.approx(np.log10(np.mean(ap >= 0.45 - 1e-12)))
    # the p-value as the score table prints it, with its method
    texts = legend_texts(fig, dens)
    assert f"p = P(AUPRC_null ≥ observed) = {pvalue_text(res)}, exact enumeration" in texts
    assert "observed AUPRC = 0.45" in texts and "tail AUPRC ≥ observed" in texts
    assert legend_texts(fig, tail)[0] == "exact survival function"
    # limits: the density's axis covers the whole support, the tail's reaches past 0.45
    assert dens.get_xlim()[0] <= ap[0] and tail.get_xlim()[1] > 0.45
    assert dens.get_ylim()[0] == 0.0 and tail.get_ylim()[1] > 0.0


def test_null_distribution_beta_says_beta():
    fig = plotting.plot_null_distribution(100, 10, 0.3, params=None, method="beta", tail=False)
    (ax,) = fig.axes
    texts = legend_texts(fig, ax)
    assert any(t.startswith("p = ") and t.endswith(", beta approximation") for t in texts)
    assert any(t.startswith("null: beta fit to the exact mean and variance") for t in texts)


def test_null_distribution_into_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    axes = fig.subplots(1, 2)
    out = plotting.plot_null_distribution(50, 10, 0.35, ax=axes, tail_points=1)
    assert out is fig and len(fig.axes) == 2
    with pytest.raises(TypeError, match="two panels"):
        plotting.plot_null_distribution(50, 10, 0.35, ax=axes[0])


def test_null_distribution_shades_the_tail():
    fig = plotting.plot_null_distribution(50, 10, 0.35, tail=False)
    ax = fig.axes[0]
    (poly,) = ax.collections
    xs = poly.get_paths()[0].vertices[:, 0]
    lo, hi = ax.get_xlim()
    # shading starts at the observed value (to a grid step of the density)
    assert 0.35 <= xs.min() <= 0.35 + (hi - lo) / 70


def test_the_bar_is_the_pvalue_interval_at_the_result_conf_level():
    """A tilt p-value below the double range (its linear interval underflows to 0): the
    drawn interval is the p-value's own, at the result's confidence level."""
    bars = {}
    for level in (0.95, 0.99):
        res = significance_from_ap(0.95, 3000, 300, method="tilt", conf_level=level)
        assert res.pvalue_interval == (0.0, 0.0) and res.log10_pvalue < -330
        fig = plotting.plot_null_from_result(res, tail_points=0)
        seg = observed_point(fig.axes[1]).lines[2][0].get_segments()[0]
        bars[level] = sorted(seg[:, 1])
        own = res.null.pvalue(res.auprc, conf_level=level).log10_pvalue_interval
        assert bars[level] == pytest.approx(list(own), abs=1e-9)
        assert f"bar: {100 * level:g}% interval" in legend_texts(fig, fig.axes[1])[-1]
    assert bars[0.99][0] < bars[0.95][0] < bars[0.95][1] < bars[0.99][1]


@pytest.mark.parametrize(
    ("N", "P", "observed", "method"),
    [
        (20, 5, 0.45, None),  # exact, p about 0.2 (weak)
        (20, 5, 0.95, None),  # exact, the second best ranking (strong)
        (300, 20, 0.08, "saddlepoint"),  # weak: p about 0.4
        (300, 20, 0.6, "saddlepoint"),  # strong: p about 1e-13
        (10_000, 100, 0.5, "beta"),  # strong, the null's bulk squeezed to the left
        (10_000, 100, 0.0105, "beta"),  # at the null mean
    ],
)
def test_p05_label_stays_off_the_tail_curve(N, P, observed, method):
    fig = plotting.plot_null_distribution(N, P, observed, method=method, tail_points=0)
    FigureCanvasAgg(fig).draw()
    tail = fig.axes[1]
    (label,) = [t for t in tail.texts if t.get_text() == "p = 0.05"]
    box = label.get_window_extent()
    (curve,) = lines_by_gid(tail, "tail-curve")
    assert not points_in_box(curve, box, dense=50)
    for ln in tail.get_lines():  # nor any other line or marker drawn on the panel
        if ln.get_gid() != "p05-line":
            assert not points_in_box(ln, box, dense=50), ln.get_label()
    obs_label = [t for t in tail.texts if t.get_gid() == "observed-label"]
    assert all(not box.overlaps(t.get_window_extent()) for t in obs_label)
    # it labels the dotted line: at its height, inside the figure
    (line,) = lines_by_gid(tail, "p05-line")
    y_line = tail.transData.transform((0.0, math.log10(0.05)))[1]
    assert box.y0 < y_line < box.y1
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)


def test_null_figure_tilt_estimates_hold_the_enumerated_tail():
    """The tilted estimates on the tail panel (drawn to a relative standard error of 0.1)
    hold the tail counted over every placement, and the caller's null keeps its rtol."""
    from pranker.null.tilt_null import TiltNull

    N, P = 24, 4
    aps = np.array(
        [
            sum((k + 1) / (r + 1) for k, r in enumerate(c)) / P
            for c in itertools.combinations(range(N), P)
        ]
    )
    null = TiltNull(N, P)
    rtol = null.rtol
    fig = plotting.plot_null_distribution(N, P, 0.9, null=null, tail_points=4)
    assert null.rtol == rtol
    tail = fig.axes[1]
    (est,) = [c for c in tail.containers if c.get_label().startswith("tilt estimates")]
    xs, ys = est.lines[0].get_data()
    assert len(xs) == 4
    for x, y, seg in zip(xs, ys, est.lines[2][0].get_segments(), strict=True):
        lo, hi = sorted(seg[:, 1])
        truth = math.log10(np.mean(aps >= x * (1 - 1e-12)))
        assert lo <= truth <= hi, (x, truth, lo, y, hi)
        # an interval of about +-1.96 x 0.1 relative: narrower than 0.2 in log10
        assert 0.0 < hi - lo < 0.2
